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
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// sample is one read of one node: a value for each resource the source
// gave, taken at at.
type sample struct {
	values map[Resource]float64
	at     time.Time
}

// reader reads every node's usage once from a source.
type reader interface {
	read(ctx context.Context) (map[string]sample, error)
}

// closer is a reader that holds resources to release once it is no longer
// used.
type closer interface {
	close()
}

// errReader is the reader of a source that cannot be read: every read fails
// with its error.
type errReader struct{ err error }

func (e errReader) read(context.Context) (map[string]sample, error) { return nil, e.err }

// nodeSeries is one node's history in a store.
type nodeSeries struct {
	// at is when the node's newest sample was taken.
	at  time.Time
	res map[Resource]*series
}

// store implements Store: it folds each successful read of its source into
// every node's history.
type store struct {
	src        Source
	clock      clock.PassiveClock
	staleAfter time.Duration
	window     time.Duration
	// known, when set, says whether a node is still in the cluster; the
	// nodes it does not know are dropped after each successful read.
	known func(name string) bool

	// readMu serialises refreshes, so that samples are folded in the order
	// they were read, without holding mu during the read.
	readMu sync.Mutex
	rd     reader

	mu       sync.RWMutex
	nodes    map[string]*nodeSeries
	err      error
	lastRead time.Time

	// view is every node's usage as Node returns it, rebuilt when the
	// nodes change: plugins read it for every node they visit in every
	// cycle, without a lock or a copy.
	view atomic.Pointer[published]
	// published counts the views published.
	published uint64
}

// published is one view of every node's usage, numbered.
type published struct {
	nodes map[string]NodeUsage
	// id is the view's number in its store, from 1.
	id uint64
}

var _ Store = (*store)(nil)

func (s *store) Source() Source { return s.src.clone() }

func (s *store) Err() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.err
}

func (s *store) LastRead() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lastRead
}

// Node returns the node's usage: a Stat for each resource its newest sample
// gave (a resource that sample lacked is left out, not reported with older
// numbers; CPUStdDev and MemoryStdDev are the StdDev of CPU and Memory, not
// Stats of their own), and Fresh while the sample is no older than
// staleAfter. The Usage map is shared: callers must not change it.
func (s *store) Node(name string) (NodeUsage, Freshness) {
	p := s.view.Load()
	if p == nil {
		return NodeUsage{}, Missing
	}
	u, ok := p.nodes[name]
	if !ok {
		return NodeUsage{}, Missing
	}
	if s.clock.Since(u.SampledAt) > s.staleAfter {
		return u, Stale
	}
	return u, Fresh
}

// View returns the nodes' usage as the last read left it, judged fresh
// against the clock now.
func (s *store) View() View {
	v := &view{staleBefore: s.clock.Now().Add(-s.staleAfter)}
	if p := s.view.Load(); p != nil {
		v.nodes, v.id = p.nodes, p.id
	}
	return v
}

// view implements View over a published map.
type view struct {
	nodes       map[string]NodeUsage
	id          uint64
	staleBefore time.Time
}

// Read returns the number of the published view v shows.
func (v *view) Read() uint64 { return v.id }

// StaleAt reports whether a sample taken at t is Stale in v.
func (v *view) StaleAt(t time.Time) bool { return t.Before(v.staleBefore) }

func (v *view) Node(name string) (NodeUsage, Freshness) {
	u, ok := v.nodes[name]
	if !ok {
		return NodeUsage{}, Missing
	}
	if u.SampledAt.Before(v.staleBefore) {
		return u, Stale
	}
	return u, Fresh
}

// publishLocked rebuilds the view Node reads from the nodes' histories; mu
// is held.
func (s *store) publishLocked() {
	view := make(map[string]NodeUsage, len(s.nodes))
	for name, ns := range s.nodes {
		u := NodeUsage{Usage: make(map[Resource]Stat, len(ns.res)), SampledAt: ns.at}
		for r, sr := range ns.res {
			if sr.at.Equal(ns.at) {
				u.Usage[r] = sr.stat()
			}
		}
		view[name] = u
	}
	s.published++
	s.view.Store(&published{nodes: view, id: s.published})
}

// refresh reads the source once and folds what it read into the store; it
// returns the read's error, which Err reports until a later read succeeds.
func (s *store) refresh(ctx context.Context) error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	samples, err := s.rd.read(ctx)
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		// The caller gave up (the last release, a shutdown): not the
		// source's fault, so neither recorded nor logged.
		return err
	}
	prev := s.apply(samples, err)
	logger := logr.FromContextOrDiscard(ctx)
	switch {
	case err != nil && (prev == nil || prev.Error() != err.Error()):
		logger.Error(err, "Reading node usage failed; keeping the previous samples")
	case err == nil && prev != nil:
		logger.Info("Reading node usage works again", "nodes", len(samples))
	case err == nil:
		logger.V(5).Info("Read node usage", "nodes", len(samples))
	}
	return err
}

// apply folds a read into the store and returns the error of the read
// before it.
func (s *store) apply(samples map[string]sample, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.err
	s.err = err
	if err != nil {
		return prev
	}
	s.lastRead = s.clock.Now()
	for name, smp := range samples {
		ns, ok := s.nodes[name]
		if !ok {
			ns = &nodeSeries{res: make(map[Resource]*series, len(smp.values))}
			s.nodes[name] = ns
		} else if !smp.at.After(ns.at) {
			// metrics-server gives the same window again until its next
			// scrape: fold each sample once.
			continue
		}
		ns.at = smp.at
		for r, v := range smp.values {
			base, isSpread := spreadOf(r)
			if !isSpread {
				base = r
			}
			sr, ok := ns.res[base]
			if !ok {
				sr = &series{}
				ns.res[base] = sr
			}
			if isSpread {
				sr.setSpread(smp.at, v)
			} else {
				sr.add(smp.at, v, s.window, s.src.Type == MetricsServer)
			}
		}
	}
	if s.known != nil {
		for name := range s.nodes {
			if !s.known(name) {
				delete(s.nodes, name)
			}
		}
	}
	s.publishLocked()
	return prev
}

// forget drops a node's history.
func (s *store) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.nodes[name]; ok {
		delete(s.nodes, name)
		s.publishLocked()
	}
}

// close releases what the store's reader holds.
func (s *store) close() {
	if c, ok := s.rd.(closer); ok {
		c.close()
	}
}
