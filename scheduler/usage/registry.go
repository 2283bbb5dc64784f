/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package usage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"
)

const (
	// DefaultPollInterval is how often a store reads its source: metrics-server's
	// default --metric-resolution, so that each poll finds a new NodeMetrics
	// window rather than the same one again.
	DefaultPollInterval = 15 * time.Second
	// MinStaleAfter is the least age at which samples turn Stale by default:
	// metrics-server's window ends up to a resolution plus its scrape
	// latency before it is read, and its clock and the manager's may differ.
	MinStaleAfter = time.Minute
	// DefaultWindow is how far back a store keeps samples for Stat.StdDev.
	DefaultWindow = 15 * time.Minute
	// minReadTimeout is the least time a read may take, whatever the
	// poll interval.
	minReadTimeout = 10 * time.Second
)

// Option configures a Registry.
type Option func(*Registry)

// WithContext sets the context the registry's polling runs under: its logger
// logs every store's reads and, once it is done, every store stops polling.
// The default is context.Background().
func WithContext(ctx context.Context) Option {
	return func(r *Registry) { r.ctx = ctx }
}

// WithMetricsClient sets the metrics.k8s.io client that MetricsServer sources
// are read with; without it they fail to read.
func WithMetricsClient(c metricsclient.Interface) Option {
	return func(r *Registry) { r.metrics = c }
}

// WithSecretGetter sets how Prometheus sources' token and CA Secrets are
// read; without it a source naming a Secret fails to read.
func WithSecretGetter(g SecretGetter) Option {
	return func(r *Registry) { r.secrets = g }
}

// WithAllocatable sets the nodes' allocatable, which MetricsServer sources
// divide usage by (they fail to read without it); every store also forgets,
// after each read, the nodes it reports as not ok.
func WithAllocatable(f AllocatableFunc) Option {
	return func(r *Registry) { r.allocatable = f }
}

// WithClock sets the clock that times polls, Prometheus queries and
// staleness; the default is the real clock.
func WithClock(c clock.WithTicker) Option {
	return func(r *Registry) { r.clock = c }
}

// WithPollInterval sets how often each acquired store reads its source;
// DefaultPollInterval when d <= 0.
func WithPollInterval(d time.Duration) Option {
	return func(r *Registry) { r.interval = d }
}

// WithStaleAfter sets the age beyond which a node's samples are Stale; when
// d <= 0, three poll intervals and at least MinStaleAfter.
func WithStaleAfter(d time.Duration) Option {
	return func(r *Registry) { r.staleAfter = d }
}

// WithWindow sets how far back samples count for Stat.StdDev; DefaultWindow
// when d <= 0.
func WithWindow(d time.Duration) Option {
	return func(r *Registry) { r.window = d }
}

// Registry hands out one Store per distinct Source and polls each while it is
// acquired or retained.
//
// There is no Start: the first Acquire of a Source, or a Retain naming it,
// starts a goroutine that reads it at once and then every poll interval;
// the last release, or a Retain that no longer names it, stops it, as does
// the end of the context set by WithContext. Store hands out a Source's
// store without polling it: the scheduler retains the sources its live
// profiles read, so a profile compiled only to be checked, or deleted,
// reads nothing. A Source acquired again after its last release starts
// with an empty store, unless Store handed it out.
type Registry struct {
	ctx         context.Context
	metrics     metricsclient.Interface
	secrets     SecretGetter
	allocatable AllocatableFunc
	clock       clock.WithTicker
	interval    time.Duration
	staleAfter  time.Duration
	window      time.Duration
	// newReader makes the reader of a source; tests replace it.
	newReader func(Source) reader

	mu      sync.Mutex
	entries map[string]*entry
	// pollers counts the running polling goroutines.
	pollers sync.WaitGroup
}

// entry is a store and its polling.
type entry struct {
	st *store
	// refs counts the Acquires not yet released, and Retain's one.
	refs int
	// cancel stops the polling; nil while it does not run.
	cancel context.CancelFunc
	// retained is set while Retain names the source.
	retained bool
	// shared is set once Store handed the store out: the entry then stays
	// when its polling stops, so that its holders keep reading it.
	shared bool
}

// NewRegistry returns a Registry configured by opts.
func NewRegistry(opts ...Option) *Registry {
	r := &Registry{entries: make(map[string]*entry)}
	for _, o := range opts {
		o(r)
	}
	if r.ctx == nil {
		r.ctx = context.Background()
	}
	if r.clock == nil {
		r.clock = clock.RealClock{}
	}
	if r.interval <= 0 {
		r.interval = DefaultPollInterval
	}
	if r.staleAfter <= 0 {
		r.staleAfter = max(3*r.interval, MinStaleAfter)
	}
	if r.window <= 0 {
		r.window = DefaultWindow
	}
	if r.newReader == nil {
		r.newReader = r.readerFor
	}
	return r
}

// Acquire returns the store of src, shared with every other holder of an
// equal Source, and the func that releases it (once; later calls do
// nothing). The first Acquire of src starts polling it, the last release
// stops it. ctx only gives the logger of this call.
func (r *Registry) Acquire(ctx context.Context, src Source) (Store, func()) {
	key := src.key()
	logger := logr.FromContextOrDiscard(ctx).WithValues("source", src.String())
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entryLocked(key, src)
	r.refLocked(logger, e)
	var once sync.Once
	return e.st, func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.unrefLocked(logger, key, e)
		})
	}
}

// Store returns the store of src, shared with every other holder of an
// equal Source, without polling it: it is read while Retain names src or
// someone holds it through Acquire. The scheduler's Handle gives load-aware
// plugins their stores this way (framework.UsageProvider).
func (r *Registry) Store(src Source) Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entryLocked(src.key(), src)
	e.shared = true
	return e.st
}

// Retain polls exactly the sources srcs among those Retain polled before:
// it starts the new ones and stops those no longer named (unless acquired).
// The scheduler calls it with the sources of its live and shadow profiles
// whenever they change.
func (r *Registry) Retain(srcs []Source) {
	keep := make(map[string]Source, len(srcs))
	for _, src := range srcs {
		keep[src.key()] = src
	}
	logger := logr.FromContextOrDiscard(r.ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, src := range keep {
		e := r.entryLocked(key, src)
		e.shared = true
		if !e.retained {
			e.retained = true
			r.refLocked(logger.WithValues("source", src.String()), e)
		}
	}
	for key, e := range r.entries {
		if _, ok := keep[key]; !ok && e.retained {
			e.retained = false
			r.unrefLocked(logger.WithValues("source", e.st.src.String()), key, e)
		}
	}
}

// entryLocked returns the entry of src, creating it, not polled, when there
// is none; r.mu is held.
func (r *Registry) entryLocked(key string, src Source) *entry {
	e, ok := r.entries[key]
	if !ok {
		e = &entry{st: r.newStore(src)}
		r.entries[key] = e
	}
	return e
}

// refLocked adds a reference to e, starting its polling at the first; r.mu
// is held.
func (r *Registry) refLocked(logger logr.Logger, e *entry) {
	e.refs++
	if e.refs > 1 || e.cancel != nil {
		return
	}
	pctx, cancel := context.WithCancel(r.ctx)
	e.cancel = cancel
	r.pollers.Add(1)
	go r.poll(pctx, e.st)
	logger.V(2).Info("Started polling node usage", "interval", r.interval)
}

// unrefLocked drops one reference to e and stops its polling after the
// last; an entry Store never handed out goes too. r.mu is held.
func (r *Registry) unrefLocked(logger logr.Logger, key string, e *entry) {
	e.refs--
	if e.refs > 0 {
		return
	}
	if e.cancel != nil {
		e.cancel()
		e.cancel = nil
		logger.V(2).Info("Stopped polling node usage")
	}
	if !e.shared && r.entries[key] == e {
		delete(r.entries, key)
	}
}

// ReadNow reads src once, synchronously, and returns its store with the
// read's error (which the store's Err reports too). While src is acquired
// the read goes into the shared store, after any read in progress; otherwise
// into a new store that nobody else sees (so its Averages are the samples
// themselves), which is what a rebalancer that reads once per run wants.
func (r *Registry) ReadNow(ctx context.Context, src Source) (Store, error) {
	r.mu.Lock()
	e, ok := r.entries[src.key()]
	r.mu.Unlock()
	var st *store
	if ok {
		st = e.st
	} else {
		st = r.newStore(src)
		defer st.close()
	}
	ctx = logr.NewContext(ctx, logr.FromContextOrDiscard(ctx).WithValues("source", src.String()))
	return st, r.refresh(ctx, st)
}

// Forget drops a node, deleted from the cluster, from every store.
func (r *Registry) Forget(node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		e.st.forget(node)
	}
}

// newStore returns an empty store of src.
func (r *Registry) newStore(src Source) *store {
	s := &store{
		src:        src.clone(),
		clock:      r.clock,
		staleAfter: r.staleAfter,
		window:     r.window,
		rd:         r.newReader(src.clone()),
		nodes:      make(map[string]*nodeSeries),
	}
	if alloc := r.allocatable; alloc != nil {
		s.known = func(name string) bool {
			_, _, ok := alloc(name)
			return ok
		}
	}
	return s
}

// readerFor returns the reader of src, or one that fails every read with
// why src cannot be read.
func (r *Registry) readerFor(src Source) reader {
	if err := src.validate(); err != nil {
		return errReader{err: fmt.Errorf("invalid usage source: %w", err)}
	}
	switch src.Type {
	case MetricsServer:
		if r.metrics == nil {
			return errReader{err: errors.New("no metrics.k8s.io client configured")}
		}
		if r.allocatable == nil {
			return errReader{err: errors.New("no node allocatable configured to divide metrics-server's usage by")}
		}
		return &metricsServerReader{client: r.metrics, allocatable: r.allocatable, now: r.clock.Now}
	default:
		return &promReader{src: src, secrets: r.secrets, now: r.clock.Now}
	}
}

// poll reads st at once and then every poll interval until ctx is done.
func (r *Registry) poll(ctx context.Context, st *store) {
	defer r.pollers.Done()
	defer st.close()
	ctx = logr.NewContext(ctx, logr.FromContextOrDiscard(ctx).WithValues("source", st.src.String()))
	t := r.clock.NewTicker(r.interval)
	defer t.Stop()
	for {
		_ = r.refresh(ctx, st) // Kept in the store and logged there.
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// refresh reads st once, within a timeout of a poll interval (at least
// minReadTimeout).
func (r *Registry) refresh(ctx context.Context, st *store) error {
	ctx, cancel := context.WithTimeout(ctx, max(r.interval, minReadTimeout))
	defer cancel()
	return st.refresh(ctx)
}
