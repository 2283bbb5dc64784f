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

// Package rebalance runs RebalancePolicies: on each policy's schedule it
// takes a consistent snapshot of nodes and pods, runs the policy's
// descheduler-style strategies over it and evicts, through the Eviction
// API, the pods they choose and the evictor lets go.
package rebalance

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// EventReasonEvicted is the reason of the event recorded on an evicted pod.
const EventReasonEvicted = "Rebalanced"

// ProfileCompiler compiles a SchedulingProfile spec into a framework;
// *scheduler.Scheduler is one.
type ProfileCompiler interface {
	// CompileProfile builds a framework from spec without installing it.
	CompileProfile(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error)
}

// RunObserver is told the name of a policy after each of its runs, and
// when its next run moves.
type RunObserver func(ctx context.Context, policyName string)

// Rebalancer runs each RebalancePolicy on its schedule, one run at a time
// per policy. It is a manager runnable that runs on the leader only.
type Rebalancer struct {
	client kubernetes.Interface
	// objects reads the SchedulingProfiles nodeFit names and records in
	// each RebalancePolicy's status the run about to start.
	objects client.Client
	// records reads the policies' recorded runs live, not from a cache, so
	// a new leader sees the run its predecessor started.
	records client.Reader
	// claimRetry is how long a run waits to retry recording its start.
	claimRetry time.Duration
	compiler   ProfileCompiler
	registry   strategies.Registry
	clock      clock.WithTicker
	recorder   events.EventRecorder
	metrics    *metrics.Metrics
	factory    informers.SharedInformerFactory
	podLister  corelisters.PodLister
	nodeLister corelisters.NodeLister
	// gangs tells which pods are members of gangs; nil knows none.
	gangs Gangs
	// nodeUsage reads what nodes really use; nil reads nothing.
	nodeUsage NodeUsage
	// serving returns the live profile serving a scheduler name; nil knows none.
	serving ServingProfiles

	mu        sync.Mutex
	policies  map[string]*policyState
	observers []RunObserver
	// runCtx is set by Start; policies set before it wait for it.
	runCtx context.Context
	wg     sync.WaitGroup
}

// policyState is one policy's spec, its worker and its last run.
type policyState struct {
	policy *compiledPolicy
	// wake tells the worker the spec changed.
	wake   chan struct{}
	cancel context.CancelFunc
	last   *RunResult
	next   time.Time
}

var (
	_ manager.Runnable               = (*Rebalancer)(nil)
	_ manager.LeaderElectionRunnable = (*Rebalancer)(nil)
)

// Option configures a Rebalancer.
type Option func(*Rebalancer)

// WithClock injects the clock of schedules and pod ages.
func WithClock(c clock.WithTicker) Option { return func(r *Rebalancer) { r.clock = c } }

// WithMetrics counts the runs and evictions in Berth's rebalance metrics;
// nil counts nothing.
func WithMetrics(m *metrics.Metrics) Option { return func(r *Rebalancer) { r.metrics = m } }

// WithEventRecorder records an event on every evicted pod.
func WithEventRecorder(rec events.EventRecorder) Option {
	return func(r *Rebalancer) { r.recorder = rec }
}

// WithRecordReader reads the policies' recorded runs through reader, an
// uncached reader such as the manager's API reader; by default through the
// client of Berth's objects.
func WithRecordReader(reader client.Reader) Option {
	return func(r *Rebalancer) { r.records = reader }
}

// WithInformerFactory shares an informer factory for pods and nodes; by
// default the Rebalancer starts its own when it starts.
func WithInformerFactory(f informers.SharedInformerFactory) Option {
	return func(r *Rebalancer) { r.factory = f }
}

// Gangs tells the rebalancer which gang a pod is a member of, so that no
// eviction leaves a gang below the members it needs, nor takes one member
// of a group that goes whole or not at all; the scheduler is one.
type Gangs interface {
	// GangOf returns the gang pod is a member of; ok is false for a pod in
	// no gang.
	GangOf(pod *v1.Pod) (gang Gang, ok bool)
}

// Gang is a group of pods the rebalancer evicts together or not at all
// when evicting one of them would break the group.
type Gang struct {
	// Name names the group in messages.
	Name string
	// MinCount is how many members the group needs placed together.
	MinCount int
	// Bound are its members bound to nodes and not being deleted.
	Bound []*v1.Pod
	// Whole is set for a group whose disruption mode is All: it is
	// evicted whole or not at all, whatever MinCount says.
	Whole bool
	// Parent is the CompositePodGroup the group is a child of, when one
	// above it must be kept whole too (a gang of children, or a
	// disruption mode of All); nil otherwise.
	Parent *Composite
}

// Composite is a CompositePodGroup above a gang's group: an eviction that
// would leave it below the children it needs (its minGroupCount) takes
// every bound pod of its subtree or none, and so does any eviction in its
// subtree when its disruption mode is All.
type Composite struct {
	// Name names the CompositePodGroup in messages.
	Name string
	// MinGroupCount is how many of its children it needs scheduled; 0
	// for a basic CompositePodGroup, which needs nothing kept.
	MinGroupCount int
	// Whole is set when its disruption mode is All.
	Whole bool
	// Children are its children, the gang's own group among them.
	Children []Child
	// Parent is the CompositePodGroup above it, if any.
	Parent *Composite
}

// Child is a child of a Composite: a PodGroup, with its bound members
// and how many of them it needs to count as scheduled, or a
// CompositePodGroup.
type Child struct {
	// Name names the child as Gang.Name or Composite.Name does.
	Name string
	// MinCount is how many bound members a PodGroup needs to count as
	// scheduled (1 for a basic one).
	MinCount int
	// Bound are a PodGroup's bound members.
	Bound []*v1.Pod
	// Composite is set for a CompositePodGroup child.
	Composite *Composite
}

// scheduled reports whether the CompositePodGroup counts as scheduled
// once the pods gone are: at least its minGroupCount (one, for a basic
// one) of its children do.
func (c *Composite) scheduled(gone func(*v1.Pod) bool) bool {
	n := 0
	for _, ch := range c.Children {
		if ch.scheduled(gone) {
			n++
		}
	}
	return n >= max(c.MinGroupCount, 1)
}

// scheduled reports whether the child counts as scheduled once the pods
// gone are.
func (ch Child) scheduled(gone func(*v1.Pod) bool) bool {
	if ch.Composite != nil {
		return ch.Composite.scheduled(gone)
	}
	n := 0
	for _, p := range ch.Bound {
		if !gone(p) {
			n++
		}
	}
	return n >= max(ch.MinCount, 1)
}

// pods returns the bound pods of the CompositePodGroup's subtree.
func (c *Composite) pods() []*v1.Pod {
	var out []*v1.Pod
	for _, ch := range c.Children {
		if ch.Composite != nil {
			out = append(out, ch.Composite.pods()...)
		} else {
			out = append(out, ch.Bound...)
		}
	}
	return out
}

// WithGangs keeps gangs whole: a strategy's eviction of a member that
// would leave its gang below minCount evicts every bound member or none.
func WithGangs(g Gangs) Option { return func(r *Rebalancer) { r.gangs = g } }

// New returns a Rebalancer that reads pods and nodes and evicts through c,
// reads the SchedulingProfiles nodeFit names and records each run's start
// in its policy's status through objects, compiles the profiles with
// compiler and builds the strategies policies name from registry. A nil
// objects records nothing and reads no profile.
func New(c kubernetes.Interface, objects client.Client, compiler ProfileCompiler, registry strategies.Registry, opts ...Option) *Rebalancer {
	r := &Rebalancer{
		client: c, objects: objects, compiler: compiler,
		registry: registry, clock: clock.RealClock{},
		policies: map[string]*policyState{}, claimRetry: 10 * time.Second,
	}
	for _, opt := range opts {
		opt(r)
	}
	if r.records == nil && objects != nil {
		r.records = objects
	}
	if r.factory == nil {
		r.factory = informers.NewSharedInformerFactory(c, 0)
	}
	r.podLister = r.factory.Core().V1().Pods().Lister()
	r.nodeLister = r.factory.Core().V1().Nodes().Lister()
	return r
}

// NeedLeaderElection is true: only the leader evicts.
func (r *Rebalancer) NeedLeaderElection() bool { return true }

// OnRun adds an observer told after every run and whenever a policy's next
// run moves; call it before Start.
func (r *Rebalancer) OnRun(o RunObserver) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.observers = append(r.observers, o)
}

// Validate reports every problem of spec, as SetPolicy would.
func (r *Rebalancer) Validate(spec *v1alpha1.RebalancePolicySpec) error {
	_, err := compile(r.registry, "", 0, spec)
	return err
}

// SetPolicy validates spec and makes it the policy's spec from its next run
// on. A policy that does not validate stops running and the error says why.
func (r *Rebalancer) SetPolicy(name string, generation int64, spec *v1alpha1.RebalancePolicySpec) error {
	compiled, err := compile(r.registry, name, generation, spec)
	if err != nil {
		r.RemovePolicy(name)
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.policies[name]
	if st == nil {
		st = &policyState{wake: make(chan struct{}, 1)}
		r.policies[name] = st
	}
	st.policy = compiled
	if r.runCtx != nil && st.cancel == nil {
		r.startWorkerLocked(name, st)
	}
	select {
	case st.wake <- struct{}{}:
	default:
	}
	return nil
}

// RemovePolicy stops running the policy; a run in flight finishes.
func (r *Rebalancer) RemovePolicy(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.policies[name]; st != nil {
		if st.cancel != nil {
			st.cancel()
		}
		delete(r.policies, name)
	}
	r.metrics.DeleteRebalancePolicy(name)
}

// LastRun returns the policy's most recent run, if it ran.
func (r *Rebalancer) LastRun(name string) (RunResult, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.policies[name]
	if st == nil || st.last == nil {
		return RunResult{}, false
	}
	return *st.last, true
}

// NextRun returns when the policy runs next, if it is scheduled.
func (r *Rebalancer) NextRun(name string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.policies[name]
	if st == nil || st.next.IsZero() {
		return time.Time{}, false
	}
	return st.next, true
}

// Start runs the policies until ctx is done, then waits for runs in flight.
func (r *Rebalancer) Start(ctx context.Context) error {
	r.factory.Start(ctx.Done())
	for typ, ok := range r.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("waiting for the %v informer to sync", typ)
		}
	}
	r.mu.Lock()
	r.runCtx = ctx
	for name, st := range r.policies {
		r.startWorkerLocked(name, st)
	}
	r.mu.Unlock()
	<-ctx.Done()
	r.wg.Wait()
	return nil
}

// recordedLastRun is when the policy's last run ended as its status says,
// zero when it never ran or cannot be read.
func (r *Rebalancer) recordedLastRun(ctx context.Context, name string) time.Time {
	if r.records == nil {
		return time.Time{}
	}
	var p v1alpha1.RebalancePolicy
	if err := r.records.Get(ctx, types.NamespacedName{Name: name}, &p); err != nil {
		if !apierrors.IsNotFound(err) {
			klog.FromContext(ctx).Error(err, "Reading the policy's last run; scheduling it as new", "rebalancePolicy", klog.KRef("", name))
		}
		return time.Time{}
	}
	switch run := p.Status.LastRun; {
	case run == nil:
		return time.Time{}
	case run.CompletionTime != nil:
		return run.CompletionTime.Time
	default:
		return run.StartTime.Time
	}
}

// startWorkerLocked starts the goroutine that runs one policy.
func (r *Rebalancer) startWorkerLocked(name string, st *policyState) {
	ctx, cancel := context.WithCancel(r.runCtx)
	st.cancel = cancel
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.work(ctx, name, st)
	}()
}

// work runs one policy whenever it is due; a spec change reschedules it.
func (r *Rebalancer) work(ctx context.Context, name string, st *policyState) {
	logger := klog.FromContext(ctx).WithValues("rebalancePolicy", klog.KRef("", name))
	// A new leader (or a restarted one) schedules the policy from its last
	// run as the status records it, whoever made it, so that leader changes
	// neither multiply runs nor the evictions the per-run limits allow.
	lastEnd := r.recordedLastRun(ctx, name)
	// The usage sources the policy polls are held from one spec to the
	// next, the new acquired before the old released, so that a store
	// shared by both keeps its history.
	var held *compiledPolicy
	release := func() {}
	defer func() { release() }()
	for {
		r.mu.Lock()
		policy := st.policy
		next := policy.nextRun(lastEnd, r.clock.Now())
		moved := !next.Equal(st.next)
		st.next = next
		observers := append([]RunObserver(nil), r.observers...)
		r.mu.Unlock()
		if policy != held {
			hold := r.holdUsage(ctx, policy)
			release()
			release, held = hold, policy
		}
		// A next run that moved (the first, or after a change of schedule)
		// is told at once, so that the status shows it before the run: a
		// cron policy may wait hours for its first.
		if moved {
			for _, o := range observers {
				o(ctx, name)
			}
		}

		if wait := next.Sub(r.clock.Now()); wait > 0 {
			timer := r.clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-st.wake:
				timer.Stop()
				continue
			case <-timer.C():
			}
		}
		if ctx.Err() != nil {
			return
		}
		// The spec may have changed while waiting; run the latest.
		r.mu.Lock()
		policy = st.policy
		r.mu.Unlock()
		// The run is recorded as started before it evicts anything: a leader
		// that dies mid-run loses the rest of that run, and its successor
		// does not run again within the interval.
		start := r.clock.Now()
		if err := r.claimRun(ctx, name, start, policy.dryRun()); err != nil {
			logger.Error(err, "Recording the run's start; the policy runs once it is recorded", "retryAfter", r.claimRetry)
			if !r.sleep(ctx, r.claimRetry) {
				return
			}
			continue
		}
		logger.V(2).Info("Rebalance run starting", "generation", policy.generation)
		result := r.execute(ctx, policy, start)
		lastEnd = result.End

		r.mu.Lock()
		st.last = &result
		st.next = st.policy.nextRun(lastEnd, r.clock.Now())
		observers = append([]RunObserver(nil), r.observers...)
		r.mu.Unlock()
		// A wake during the run is consumed: the next turn reads the spec anyway.
		select {
		case <-st.wake:
		default:
		}
		for _, o := range observers {
			o(ctx, name)
		}
	}
}

// claimRun records in the policy's status a run that started at start and
// has not completed. The whole lastRun is replaced and the previous run's
// plan cleared, so the status never mixes two runs.
func (r *Rebalancer) claimRun(ctx context.Context, name string, start time.Time, dryRun bool) error {
	if r.objects == nil {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{
		"plan": nil,
		"lastRun": map[string]any{
			"result": v1alpha1.RunRunning, "startTime": metav1.NewTime(start), "completionTime": nil, "dryRun": dryRun,
			"planned": 0, "evicted": 0, "blocked": 0, "failed": 0,
		},
	}})
	if err != nil {
		return fmt.Errorf("encoding the run's start: %w", err)
	}
	p := &v1alpha1.RebalancePolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := r.objects.Status().Patch(ctx, p, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("recording the start of a run of RebalancePolicy %s: %w", name, err)
	}
	return nil
}

// sleep waits d on the rebalancer's clock and reports whether ctx is still live.
func (r *Rebalancer) sleep(ctx context.Context, d time.Duration) bool {
	timer := r.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C():
		return true
	}
}
