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

// Package queue is Berth's scheduling queue: one queue for every profile,
// holding pods that wait to be scheduled in three places — activeQ (ready, in
// scheduling order), backoffQ (failed recently, waiting out their backoff;
// Pop takes from it when activeQ is empty, see WithPopFromBackoff) and
// the unschedulable set (waiting for a cluster event that may help, or gated by
// a PreEnqueue plugin) — plus the nominator of pods reserved on nodes by
// preemption.
package queue

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
)

// ProfileHooks is what the queue needs from the live profile of a pod. The
// scheduler's runtime.Framework implements it. The queue calls it, and the hint
// functions it returns, with its lock held: they must not call back into the queue.
type ProfileHooks interface {
	// RunPreEnqueuePlugins decides whether the pod may enter activeQ; a
	// non-success status carries the gating plugin's name in Status.Plugin().
	// Plugins named in skip are not run.
	RunPreEnqueuePlugins(ctx context.Context, pod *v1.Pod, skip ...string) *framework.Status
	// QueueingHintMap lists, per plugin name, the cluster events the plugin registered with hints.
	QueueingHintMap() map[string][]framework.ClusterEventWithHint
	// PodBackoff returns the initial and maximum backoff of the profile.
	PodBackoff() (initial, max time.Duration)
}

// ProfileLookup returns the hooks of the profile serving schedulerName, or nil.
// It is called with the queue's lock held and should be cheap (a map read).
type ProfileLookup func(schedulerName string) ProfileHooks

// Stats counts the pods in each part of the queue.
type Stats struct {
	// Active is the number of pods in activeQ.
	Active int
	// Backoff is the number of pods in backoffQ.
	Backoff int
	// Unschedulable is the number of pods waiting for a cluster event.
	Unschedulable int
	// Gated is the number of pods a PreEnqueue plugin keeps out of activeQ.
	Gated int
	// InFlight is the number of pods popped and not yet Done.
	InFlight int
}

// ErrClosed is returned by Pop once the queue is closed.
const ErrClosed = queueError("scheduling queue is closed")

type queueError string

func (e queueError) Error() string { return string(e) }

// Labels of the internal moves, for logs.
const (
	eventPodAdd         = "UnscheduledPodAdd"
	eventPodUpdate      = "UnscheduledPodUpdate"
	eventAttemptFailed  = "ScheduleAttemptFailure"
	eventBackoffDone    = "BackoffComplete"
	eventForceActivate  = "ForceActivate"
	eventPopFromBackoff = "PopFromBackoffQ"
	defaultGatingPlugin = "PreEnqueue"
)

// place says where an entry is.
type place uint8

const (
	nowhere place = iota
	inActive
	inBackoff
	inUnschedulable
)

func (p place) String() string {
	switch p {
	case inActive:
		return "activeQ"
	case inBackoff:
		return "backoffQ"
	case inUnschedulable:
		return "unschedulable"
	}
	return "none"
}

// entry is one queued pod with the queue's bookkeeping.
type entry struct {
	info *framework.QueuedPodInfo
	key  types.NamespacedName
	// profile is the pod's schedulerName, kept here to spare a pointer chase per event.
	profile string
	at      place
	slot    int
	// gated is whether the entry counted as gated when it entered the unschedulable set.
	gated bool
	// backoffUntil is when the backoff ends, fixed when the entry enters backoffQ.
	backoffUntil time.Time
	// fullBackoff is whether the entry waits in backoffQ's heap of pods
	// that wait out their whole backoff, which Pop never takes from.
	fullBackoff bool
	// flushedAt is when the unschedulable timeout last moved the entry.
	flushedAt time.Time
	// group is the entry's group while it is in the unschedulable set.
	group *rejectorGroup
}

// slab puts a new pod's entry, QueuedPodInfo and PodInfo in one allocation.
type slab struct {
	e    entry
	info framework.QueuedPodInfo
	pod  framework.PodInfo
}

func keyOf(pod *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
}

// PriorityQueue is the scheduling queue shared by all profiles. It is safe for
// concurrent use.
type PriorityQueue struct {
	cfg    config
	clock  clock.WithTicker
	lookup ProfileLookup
	less   framework.LessFunc

	mu       sync.Mutex
	popReady *sync.Cond
	active   *entryHeap
	// backoff holds the pods in backoffQ that plugins rejected; Pop takes
	// from it when activeQ is empty and popping from backoffQ is on.
	backoff *entryHeap
	// fullBackoff holds the pods in backoffQ that wait out their backoff
	// whatever activeQ holds: pods that failed with an error, and members of
	// PodGroups.
	fullBackoff *entryHeap
	// unschedulable holds pods waiting for an event, gated pods included.
	unschedulable map[types.NamespacedName]*entry
	// groups partitions the unschedulable set by profile and rejecting plugins.
	groups     map[string]*rejectorGroup
	gatedCount int
	// queued indexes every entry in any of the three places.
	queued map[types.NamespacedName]*entry
	flight *inFlight
	cycle  int64
	closed bool

	runOnce sync.Once
	stop    chan struct{}
	workers sync.WaitGroup

	nominator *nominator
}

var _ framework.PodNominator = (*PriorityQueue)(nil)

// New returns a queue that orders activeQ by less and finds each pod's profile
// with lookup.
func New(less framework.LessFunc, lookup ProfileLookup, opts ...Option) *PriorityQueue {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if lookup == nil {
		lookup = func(string) ProfileHooks { return nil }
	}
	q := &PriorityQueue{
		cfg:           cfg,
		clock:         cfg.clock,
		lookup:        lookup,
		less:          less,
		unschedulable: make(map[types.NamespacedName]*entry),
		groups:        make(map[string]*rejectorGroup),
		queued:        make(map[types.NamespacedName]*entry),
		flight:        newInFlight(),
		stop:          make(chan struct{}),
		nominator:     newNominator(),
	}
	q.popReady = sync.NewCond(&q.mu)
	q.active = newEntryHeap(func(a, b *entry) bool { return less(a.info, b.info) })
	byBackoffEnd := func(a, b *entry) bool { return a.backoffUntil.Before(b.backoffUntil) }
	q.fullBackoff = newEntryHeap(byBackoffEnd)
	if cfg.popFromBackoff {
		// Within a window, the pods Pop may take early come in activeQ's order.
		q.backoff = newEntryHeap(func(a, b *entry) bool {
			if !a.backoffUntil.Equal(b.backoffUntil) {
				return a.backoffUntil.Before(b.backoffUntil)
			}
			return less(a.info, b.info)
		})
	} else {
		q.backoff = newEntryHeap(byBackoffEnd)
	}
	return q
}

// Run starts the background flushers: pods whose backoff ended move from
// backoffQ to activeQ, and pods unschedulable for longer than the timeout are
// retried. It returns at once; Close stops the flushers.
func (q *PriorityQueue) Run(logger logr.Logger) {
	q.runOnce.Do(func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.closed {
			return
		}
		if q.cfg.popFromBackoff {
			// A backoff ends with its window: the flush runs as each window
			// ends, so that a whole window leaves backoffQ at once.
			q.everyAligned(q.cfg.backoffFlushEvery, func() { q.flushBackoffCompleted(logger) })
		} else {
			q.every(q.cfg.backoffFlushEvery, func() { q.flushBackoffCompleted(logger) })
		}
		q.every(q.cfg.unschedulableFlushEvery, func() { q.flushUnschedulableTimedOut(logger) })
	})
}

// every runs fn on each tick of period until the queue closes.
func (q *PriorityQueue) every(period time.Duration, fn func()) {
	if period <= 0 {
		return
	}
	ticker := q.clock.NewTicker(period)
	q.runUntilClosed(ticker.C, ticker.Stop, fn)
}

// everyAligned runs fn whenever the clock reaches a multiple of period, until
// the queue closes.
func (q *PriorityQueue) everyAligned(period time.Duration, fn func()) {
	if period <= 0 {
		return
	}
	var timer clock.Timer
	next := func() <-chan time.Time {
		now := q.clock.Now()
		timer = q.clock.NewTimer(now.Truncate(period).Add(period).Sub(now))
		return timer.C()
	}
	q.runUntilClosed(next, func() { timer.Stop() }, fn)
}

// runUntilClosed calls fn each time the channel that tick returns delivers,
// until the queue closes; then it calls stop. tick is called once per round.
func (q *PriorityQueue) runUntilClosed(tick func() <-chan time.Time, stop func(), fn func()) {
	q.workers.Add(1)
	go func() {
		defer q.workers.Done()
		defer stop()
		for {
			select {
			case <-q.stop:
				return
			case <-tick():
			}
			select {
			case <-q.stop:
				return
			default:
				fn()
			}
		}
	}()
}

// Close wakes every Pop with ErrClosed and stops the flushers. It is idempotent.
func (q *PriorityQueue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	close(q.stop)
	q.popReady.Broadcast()
	q.mu.Unlock()
	q.workers.Wait()
}

// Add queues a new unscheduled pod. PreEnqueue plugins run first; a gated pod
// waits in the unschedulable set.
func (q *PriorityQueue) Add(logger logr.Logger, pod *v1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(logger, pod)
}

// AddAll queues new unscheduled pods as Add does, all in one step: Pop
// sees none of them or all of them, so that a PodGroup's members handed
// over together (pods a new profile takes over) reach a cycle together.
func (q *PriorityQueue) AddAll(logger logr.Logger, pods []*v1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, pod := range pods {
		q.addLocked(logger, pod)
	}
}

func (q *PriorityQueue) addLocked(logger logr.Logger, pod *v1.Pod) {
	if q.flight.has(pod.UID) {
		logger.V(4).Info("Pod is being scheduled; not queueing it again", "pod", klog.KObj(pod))
		return
	}
	if e, ok := q.queued[keyOf(pod)]; ok {
		q.updateLocked(logger, e, e.info.Pod, pod)
		return
	}
	e := q.newEntry(logger, pod)
	q.nominator.add(e.info.PodInfo, nil)
	q.moveToActive(logger, e, true, eventPodAdd)
}

func (q *PriorityQueue) newEntry(logger logr.Logger, pod *v1.Pod) *entry {
	s := &slab{}
	if err := s.pod.Update(pod); err != nil {
		logger.Error(err, "Cannot derive pod info; queueing the pod anyway", "pod", klog.KObj(pod))
	}
	s.info.PodInfo = &s.pod
	s.info.Timestamp = q.clock.Now()
	s.e.info = &s.info
	s.e.key = keyOf(pod)
	s.e.profile = pod.Spec.SchedulerName
	s.e.slot = -1
	return &s.e
}

// Update applies a new version of an unscheduled pod. A pod in the
// unschedulable set moves on if the change may help it; a gated pod re-runs
// PreEnqueue. A pod unknown to the queue is added.
func (q *PriorityQueue) Update(logger logr.Logger, oldPod, newPod *v1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.flight.has(newPod.UID) {
		// The scheduler hands the pod back when its cycle ends; remember what
		// changed so that the change is not lost on a failure.
		if oldPod != nil && mayHelpScheduling(oldPod, newPod) {
			for _, ev := range podUpdateEvents(oldPod, newPod) {
				q.flight.record(ev, oldPod, newPod, newPod.UID)
			}
		}
		if pi, err := framework.NewPodInfo(newPod); err == nil {
			q.nominator.update(orPod(oldPod, newPod), pi)
		}
		return
	}
	e, ok := q.queued[keyOf(newPod)]
	if !ok {
		q.addLocked(logger, newPod)
		return
	}
	if oldPod == nil {
		oldPod = e.info.Pod
	}
	q.updateLocked(logger, e, oldPod, newPod)
}

func orPod(a, b *v1.Pod) *v1.Pod {
	if a != nil {
		return a
	}
	return b
}

func (q *PriorityQueue) updateLocked(logger logr.Logger, e *entry, oldPod, newPod *v1.Pod) {
	if err := e.info.PodInfo.Update(newPod); err != nil {
		logger.Error(err, "Cannot derive pod info of updated pod", "pod", klog.KObj(newPod))
	}
	if e.profile != newPod.Spec.SchedulerName {
		e.profile = newPod.Spec.SchedulerName
		if e.group != nil {
			// The groups are per profile.
			q.leave(e)
			q.join(e)
		}
	}
	q.nominator.update(oldPod, e.info.PodInfo)
	switch e.at {
	case inActive:
		q.active.fix(e)
		return
	case inBackoff:
		// The order within a backoff window may depend on the pod.
		q.backoffHeap(e).fix(e)
		return
	}
	if !mayHelpScheduling(oldPod, newPod) {
		return
	}
	if e.gated {
		// The gate may have been lifted: ask PreEnqueue again.
		q.detach(e)
		q.moveToActive(logger, e, true, eventPodUpdate)
		return
	}
	views := profileViews{lookup: q.lookup}
	v := views.get(newPod.Spec.SchedulerName)
	best := stay
	for _, ev := range podUpdateEvents(oldPod, newPod) {
		if s := judge(logger, v, e.info, ev, oldPod, newPod); s > best {
			best = s
		}
		if best == now {
			break
		}
	}
	if best == stay {
		return
	}
	q.detach(e)
	q.requeue(logger, e, best, eventPodUpdate)
}

// Delete removes the pod from every part of the queue and from the nominator.
func (q *PriorityQueue) Delete(pod *v1.Pod) {
	q.nominator.remove(pod.UID)
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.queued[keyOf(pod)]; ok {
		q.detach(e)
		return
	}
	q.flight.markGone(pod.UID)
}

// Pop removes and returns the first pod of activeQ, blocking while activeQ is
// empty. When popping from backoffQ is on (WithPopFromBackoff) and activeQ is
// empty, it takes the first pod that plugins rejected from backoffQ instead,
// before its backoff ends; a pod that failed with an error, or a member of a
// PodGroup (scheduling.k8s.io or Berth's), waits its backoff out. The pod counts as in flight until Done; its attempt counter is
// incremented (a pod taken early from backoffQ keeps its count, so its next
// backoff is longer) and the plugins that rejected it last time are
// forgotten (the scheduler records the new attempt's). Pop returns ErrClosed
// after Close.
func (q *PriorityQueue) Pop(logger logr.Logger) (*framework.QueuedPodInfo, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.active.len() == 0 && !q.mayPopBackoff() && !q.closed {
		q.popReady.Wait()
	}
	if q.closed {
		return nil, ErrClosed
	}
	e := q.active.pop()
	if e == nil {
		e = q.backoff.pop()
		q.cfg.metrics.CountIncomingPod(metrics.QueueActive, eventPopFromBackoff)
		if l := logger.V(5); l.Enabled() {
			l.Info("Pod popped from backoffQ before its backoff ended, activeQ being empty", "pod", klog.KObj(e.info.Pod), "until", e.backoffUntil)
		}
	}
	delete(q.queued, e.key)
	e.at = nowhere
	info := e.info
	info.Attempts++
	if info.InitialAttemptTimestamp == nil {
		t := q.clock.Now()
		info.InitialAttemptTimestamp = &t
	}
	clear(info.UnschedulablePlugins)
	clear(info.PendingPlugins)
	info.GatingPlugin = ""
	q.cycle++
	if !q.flight.start(info.Pod.UID) {
		logger.Error(nil, "Popped a pod that is already in flight", "pod", klog.KObj(info.Pod))
	}
	return info, nil
}

// mayPopBackoff reports whether Pop may take a pod from backoffQ.
func (q *PriorityQueue) mayPopBackoff() bool {
	return q.cfg.popFromBackoff && q.backoff.len() > 0
}

// TakeMembers takes the given pods, the other members of a popped pod's
// group, out of activeQ, backoffQ or the unschedulable set, as Pop takes
// one pod: each counts as in flight until Done, its attempt counter goes up
// and its rejecting plugins are forgotten. Pods not queued, and pods a
// PreEnqueue plugin other than gatedBy gates, are left where they are:
// gatedBy is the plugin that holds members back for a reason of their
// group's, such as too few members, which the popped member passing it has
// answered for all of them. The pods come back in the order given, with
// the number of pods the queue has never been handed: neither queued nor in
// flight, since the informer's index runs ahead of the queue's handlers.
func (q *PriorityQueue) TakeMembers(logger logr.Logger, pods []*v1.Pod, gatedBy string) (taken []*framework.QueuedPodInfo, unseen int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for _, pod := range pods {
		e, ok := q.queued[keyOf(pod)]
		if !ok || e.info.Pod.UID != pod.UID {
			if !q.flight.has(pod.UID) {
				unseen++
			}
			continue
		}
		if e.at == inUnschedulable && e.gated && (gatedBy == "" || e.info.GatingPlugin != gatedBy) {
			continue
		}
		q.detach(e)
		info := e.info
		info.Attempts++
		if info.InitialAttemptTimestamp == nil {
			t := now
			info.InitialAttemptTimestamp = &t
		}
		clear(info.UnschedulablePlugins)
		clear(info.PendingPlugins)
		info.GatingPlugin = ""
		if !q.flight.start(info.Pod.UID) {
			logger.Error(nil, "Took a group member that is already in flight", "pod", klog.KObj(info.Pod))
		}
		taken = append(taken, info)
	}
	return taken, unseen
}

// Done ends the in-flight period of the pod that Pop returned. Call it once
// the pod's scheduling cycle is over (it was bound, or handed back through
// AddUnschedulableIfNotPresent, which calls it itself).
func (q *PriorityQueue) Done(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.flight.done(uid)
}

// AddUnschedulableIfNotPresent hands back a pod whose attempt failed. A pod
// rejected by plugins waits in the unschedulable set unless an event seen while
// it was in flight may help it; a pod that failed with an error goes to
// backoffQ. It ends the pod's in-flight period.
func (q *PriorityQueue) AddUnschedulableIfNotPresent(logger logr.Logger, pInfo *framework.QueuedPodInfo, podSchedulingCycle int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var s strategy
	where, err := q.handBack(logger, pInfo, func(e *entry) place {
		if !hasRejectors(pInfo) {
			pInfo.ConsecutiveErrorsCount++
		} else {
			pInfo.ConsecutiveErrorsCount = 0
		}
		pInfo.Timestamp = q.clock.Now()
		s = q.strategyAfterFlight(logger, e)
		return q.requeue(logger, e, s, eventAttemptFailed)
	})
	if l := logger.V(4); l.Enabled() && where != nowhere {
		l.Info("Pod returned to the queue", "pod", klog.KObj(pInfo.Pod), "queue", where, "strategy", s,
			"schedulingCycle", podSchedulingCycle, "unschedulablePlugins", sets.List(pInfo.UnschedulablePlugins),
			"pendingPlugins", sets.List(pInfo.PendingPlugins))
	}
	return err
}

// handBack ends the in-flight period of a pod whose attempt is over and,
// unless it is queued already (an error) or was deleted in flight,
// requeues it with requeue, returning where it went. q.mu is held.
func (q *PriorityQueue) handBack(logger logr.Logger, pInfo *framework.QueuedPodInfo, requeue func(*entry) place) (place, error) {
	pod := pInfo.Pod
	defer q.flight.done(pod.UID)
	key := keyOf(pod)
	if e, ok := q.queued[key]; ok {
		return nowhere, fmt.Errorf("pod %s is already in %s", key, e.at)
	}
	if q.flight.gone(pod.UID) {
		logger.V(4).Info("Pod was deleted while being scheduled; dropping it", "pod", klog.KObj(pod))
		return nowhere, nil
	}
	return requeue(&entry{info: pInfo, key: key, profile: pod.Spec.SchedulerName, slot: -1}), nil
}

// AddGroupFailure hands back a member of a PodGroup whose cycle did not
// schedule the group (failed with an error when failedWithError): it waits
// out its backoff in backoffQ and is then retried, whatever cluster events
// come meanwhile, as kube-scheduler v1.37.1 requeues a pod group (its group
// entity carries no rejecting plugins, so only its backoff moves it). The
// pod keeps its rejecting plugins for what reads them. The pod's in-flight
// period ends.
func (q *PriorityQueue) AddGroupFailure(logger logr.Logger, pInfo *framework.QueuedPodInfo, failedWithError bool, podSchedulingCycle int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	where, err := q.handBack(logger, pInfo, func(e *entry) place {
		if failedWithError {
			pInfo.ConsecutiveErrorsCount++
		} else {
			pInfo.ConsecutiveErrorsCount = 0
		}
		pInfo.Timestamp = q.clock.Now()
		return q.requeue(logger, e, afterBackoff, eventAttemptFailed)
	})
	if l := logger.V(4); l.Enabled() && where != nowhere {
		l.Info("Pod group member returned to the queue after its group's cycle", "pod", klog.KObj(pInfo.Pod), "queue", where,
			"schedulingCycle", podSchedulingCycle, "unschedulablePlugins", sets.List(pInfo.UnschedulablePlugins))
	}
	return err
}

// AddGroupRemainder returns a member that its PodGroup's successful cycle did
// not place straight to activeQ, keeping its timestamp so that it comes
// before pods queued after it, as kube-scheduler v1.37.1 requeues what
// remains of a pod group whose cycle succeeded. Its next cycle places none
// of the members or more of them; either way it is not retried like this
// again unless a cycle succeeds. The pod's in-flight period ends.
func (q *PriorityQueue) AddGroupRemainder(logger logr.Logger, pInfo *framework.QueuedPodInfo, podSchedulingCycle int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	where, err := q.handBack(logger, pInfo, func(e *entry) place {
		// The group scheduled: its remaining members' backoff starts over.
		pInfo.ConsecutiveErrorsCount = 0
		pInfo.BackoffFrom = pInfo.Attempts
		if pInfo.Timestamp.IsZero() {
			pInfo.Timestamp = q.clock.Now()
		}
		return q.requeue(logger, e, now, eventAttemptFailed)
	})
	if l := logger.V(4); l.Enabled() && where != nowhere {
		l.Info("Pod group member its group's cycle left out returned to the queue", "pod", klog.KObj(pInfo.Pod), "queue", where,
			"schedulingCycle", podSchedulingCycle, "unschedulablePlugins", sets.List(pInfo.UnschedulablePlugins))
	}
	return err
}

// AddGroupWaiting hands back a member of a PodGroup whose cycle did not run
// because the group is not whole in the queue yet (its PodGroup is gone, or
// members the informer shows have not been handed to the queue): the
// attempt does not count and the pod keeps its timestamp, as kube-scheduler
// v1.37.1 would have kept it gated at PreEnqueue rather than popped it. It
// waits in the unschedulable set, rejected by its UnschedulablePlugins,
// unless an event seen while it was in flight may help it; an event that
// may help moves it to activeQ at its old place, without a backoff it has
// not earned. The pod's in-flight period ends.
func (q *PriorityQueue) AddGroupWaiting(logger logr.Logger, pInfo *framework.QueuedPodInfo, podSchedulingCycle int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var s strategy
	where, err := q.handBack(logger, pInfo, func(e *entry) place {
		if pInfo.Attempts > pInfo.BackoffFrom {
			pInfo.Attempts--
		}
		if pInfo.Attempts == 0 {
			pInfo.InitialAttemptTimestamp = nil
		}
		s = q.strategyAfterFlight(logger, e)
		return q.requeue(logger, e, s, eventAttemptFailed)
	})
	if l := logger.V(4); l.Enabled() && where != nowhere {
		l.Info("Pod group member returned to the queue to wait for its group", "pod", klog.KObj(pInfo.Pod), "queue", where, "strategy", s,
			"schedulingCycle", podSchedulingCycle, "unschedulablePlugins", sets.List(pInfo.UnschedulablePlugins))
	}
	return err
}

// strategyAfterFlight checks a returning pod against the events it missed.
func (q *PriorityQueue) strategyAfterFlight(logger logr.Logger, e *entry) strategy {
	info := e.info
	if !hasRejectors(info) {
		return afterBackoff
	}
	events, ok := q.flight.since(info.Pod.UID)
	if !ok {
		// Not popped from this queue (or already Done): retry rather than risk a stuck pod.
		return afterBackoff
	}
	views := profileViews{lookup: q.lookup}
	var v *profileView
	best := stay
	for i := range events {
		ev := &events[i]
		if ev.only != "" && ev.only != info.Pod.UID {
			continue
		}
		if v == nil {
			v = views.get(info.Pod.Spec.SchedulerName)
		}
		if s := judge(logger, v, info, ev.event, ev.oldObj, ev.newObj); s > best {
			best = s
			if best == now {
				break
			}
		}
	}
	return best
}

// SchedulingCycle returns the number of pods popped so far.
func (q *PriorityQueue) SchedulingCycle() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.cycle
}

// MoveAllToActiveOrBackoffQueue offers a cluster event to every unschedulable
// pod that passes preCheck (nil passes all). A pod moves when a plugin that
// rejected it registered the event and its hint says Queue. The event is also
// remembered for pods in flight.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueue(logger logr.Logger, event framework.ClusterEvent, oldObj, newObj any, preCheck func(*v1.Pod) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveAllLocked(logger, event, oldObj, newObj, preCheck)
}

func (q *PriorityQueue) moveAllLocked(logger logr.Logger, event framework.ClusterEvent, oldObj, newObj any, preCheck func(*v1.Pod) bool) {
	if len(q.unschedulable) > 0 {
		// Only the groups whose plugins registered the event are walked.
		views := profileViews{lookup: q.lookup}
		var moving []*rejectorGroup
		n := 0
		for _, g := range q.groups {
			if g.mayMove(views.get(g.profile), event) {
				moving = append(moving, g)
				n += len(g.members)
			}
		}
		if n > 0 {
			candidates := make([]*entry, 0, n)
			for _, g := range moving {
				for e := range g.members {
					if preCheck == nil || preCheck(e.info.Pod) {
						candidates = append(candidates, e)
					}
				}
			}
			q.offer(logger, candidates, event, oldObj, newObj)
		}
	}
	if q.flight.record(event, oldObj, newObj, "") {
		logger.V(5).Info("Event recorded for pods in flight", "event", event.Label())
	}
}

// offer moves the candidates the event may help out of the unschedulable set.
func (q *PriorityQueue) offer(logger logr.Logger, candidates []*entry, event framework.ClusterEvent, oldObj, newObj any) {
	views := profileViews{lookup: q.lookup}
	for _, e := range candidates {
		v := views.get(e.profile)
		if hasRejectors(e.info) && !v.caresAbout(event) {
			continue
		}
		if e.gated && !v.pluginCares(e.info.GatingPlugin, event) {
			continue
		}
		s := judge(logger, v, e.info, event, oldObj, newObj)
		if s == stay {
			continue
		}
		q.detach(e)
		q.requeue(logger, e, s, event.Label())
	}
}

// AssignedPodAdded tells unschedulable pods that a pod was bound to a node.
func (q *PriorityQueue) AssignedPodAdded(logger logr.Logger, pod *v1.Pod) {
	q.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add}, nil, pod, nil)
}

// AssignedPodUpdated tells unschedulable pods that a bound pod changed.
func (q *PriorityQueue) AssignedPodUpdated(logger logr.Logger, oldPod, newPod *v1.Pod, event framework.ClusterEvent) {
	q.MoveAllToActiveOrBackoffQueue(logger, event, oldPod, newPod, nil)
}

// Activate moves the named pods from backoffQ or the unschedulable set to
// activeQ at once. A pod in flight is moved when it comes back; other pods are
// ignored.
func (q *PriorityQueue) Activate(logger logr.Logger, pods map[string]*v1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, pod := range pods {
		e, ok := q.queued[keyOf(pod)]
		switch {
		case ok && e.at == inUnschedulable:
			q.detach(e)
			q.moveToActive(logger, e, true, eventForceActivate)
		case ok && e.at == inBackoff:
			q.detach(e)
			q.moveToActive(logger, e, false, eventForceActivate)
		case !ok && q.flight.has(pod.UID):
			q.flight.activate(pod)
		}
	}
}

// PendingPods lists every queued pod and a summary of where they are.
func (q *PriorityQueue) PendingPods() ([]*v1.Pod, string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pods := make([]*v1.Pod, 0, len(q.queued))
	q.active.each(func(e *entry) { pods = append(pods, e.info.Pod) })
	q.backoff.each(func(e *entry) { pods = append(pods, e.info.Pod) })
	q.fullBackoff.each(func(e *entry) { pods = append(pods, e.info.Pod) })
	for _, e := range q.unschedulable {
		pods = append(pods, e.info.Pod)
	}
	summary := fmt.Sprintf("activeQ:%d; backoffQ:%d; unschedulablePods:%d; gatedPods:%d",
		q.active.len(), q.backoff.len()+q.fullBackoff.len(), len(q.unschedulable)-q.gatedCount, q.gatedCount)
	return pods, summary
}

// Stats counts the pods in each part of the queue.
func (q *PriorityQueue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{
		Active:        q.active.len(),
		Backoff:       q.backoff.len() + q.fullBackoff.len(),
		Unschedulable: len(q.unschedulable) - q.gatedCount,
		Gated:         q.gatedCount,
		InFlight:      q.flight.len(),
	}
}

// UnschedulablePods counts the pods of the unschedulable set (gated ones
// included) by profile and by each plugin that rejected them, left them
// pending or gates them. It walks the set's groups, not its pods.
func (q *PriorityQueue) UnschedulablePods() map[metrics.PluginProfile]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make(map[metrics.PluginProfile]int)
	for _, g := range q.groups {
		for _, p := range g.plugins {
			out[metrics.PluginProfile{Plugin: p, Profile: g.profile}] += len(g.members)
		}
		if g.gatingPlugin != "" && !slices.Contains(g.plugins, g.gatingPlugin) {
			out[metrics.PluginProfile{Plugin: g.gatingPlugin, Profile: g.profile}] += len(g.members)
		}
	}
	return out
}

// Has reports whether the pod waits in activeQ, backoffQ or the unschedulable
// set (pods in flight are not queued).
func (q *PriorityQueue) Has(pod *v1.Pod) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.queued[keyOf(pod)]
	return ok
}

// AddNominatedPod records that the pod is nominated to a node.
func (q *PriorityQueue) AddNominatedPod(pod *framework.PodInfo, nominatingInfo *framework.NominatingInfo) {
	q.nominator.add(pod, nominatingInfo)
}

// DeleteNominatedPodIfExists forgets the pod's nomination.
func (q *PriorityQueue) DeleteNominatedPodIfExists(pod *v1.Pod) {
	q.nominator.remove(pod.UID)
}

// UpdateNominatedPod moves the nomination of oldPod to the new version of the pod.
func (q *PriorityQueue) UpdateNominatedPod(oldPod *v1.Pod, newPodInfo *framework.PodInfo) {
	q.nominator.update(oldPod, newPodInfo)
}

// NominatedPodsForNode lists the pods nominated to the node.
func (q *PriorityQueue) NominatedPodsForNode(nodeName string) []*framework.PodInfo {
	return q.nominator.forNode(nodeName)
}

// flushBackoffCompleted moves pods whose backoff ended to activeQ.
func (q *PriorityQueue) flushBackoffCompleted(logger logr.Logger) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for _, h := range []*entryHeap{q.backoff, q.fullBackoff} {
		for {
			e := h.peek()
			if e == nil || now.Before(e.backoffUntil) {
				break
			}
			q.detach(e)
			// PreEnqueue already passed when the pod entered backoffQ.
			q.moveToActive(logger, e, false, eventBackoffDone)
		}
	}
}

// flushUnschedulableTimedOut retries pods that waited longer than the
// unschedulable timeout for an event.
func (q *PriorityQueue) flushUnschedulableTimedOut(logger logr.Logger) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	var due []*entry
	for _, e := range q.unschedulable {
		since := e.info.Timestamp
		if e.flushedAt.After(since) {
			since = e.flushedAt
		}
		if now.Sub(since) > q.cfg.unschedulableTimeout {
			e.flushedAt = now
			due = append(due, e)
		}
	}
	if len(due) > 0 {
		q.offer(logger, due, framework.EventUnschedulableTimeout, nil, nil)
	}
}

// requeue sends a detached entry where the strategy says and returns the place.
func (q *PriorityQueue) requeue(logger logr.Logger, e *entry, s strategy, reason string) place {
	switch {
	case s == stay:
		q.park(e, reason)
	case s == afterBackoff && q.backingOff(e):
		q.moveToBackoff(logger, e, reason)
	default:
		q.moveToActive(logger, e, true, reason)
	}
	return e.at
}

// moveToActive puts a detached entry in activeQ, or in the unschedulable set
// if PreEnqueue (when asked for) gates it.
func (q *PriorityQueue) moveToActive(logger logr.Logger, e *entry, preEnqueue bool, reason string) {
	if preEnqueue && q.gate(logger, e) {
		q.park(e, reason)
		return
	}
	q.cfg.metrics.CountIncomingPod(metrics.QueueActive, reason)
	e.at = inActive
	q.queued[e.key] = e
	q.active.push(e)
	q.popReady.Signal()
	if l := logger.V(5); l.Enabled() {
		l.Info("Pod moved to activeQ", "pod", klog.KObj(e.info.Pod), "event", reason)
	}
}

// moveToBackoff puts a detached entry in backoffQ after PreEnqueue lets it.
func (q *PriorityQueue) moveToBackoff(logger logr.Logger, e *entry, reason string) {
	if q.gate(logger, e) {
		q.park(e, reason)
		return
	}
	q.cfg.metrics.CountIncomingPod(metrics.QueueBackoff, reason)
	e.at = inBackoff
	// A pod no plugin rejected failed with an error: it waits its backoff
	// out, as the error may last. So does a gang member: kube-scheduler
	// v1.37.1 keeps its pod groups in its error-backoff heap (their entities
	// carry no rejecting plugins), and a member of Berth's own PodGroup
	// taken early would fail again while the members its group just
	// released still hold their nodes, releasing them again, round after
	// round.
	e.fullBackoff = !hasRejectors(e.info) || inGang(e.info.Pod)
	q.queued[e.key] = e
	q.backoffHeap(e).push(e)
	if q.mayPopBackoff() {
		q.popReady.Signal()
	}
	if l := logger.V(5); l.Enabled() {
		l.Info("Pod moved to backoffQ", "pod", klog.KObj(e.info.Pod), "event", reason, "until", e.backoffUntil, "fullBackoff", e.fullBackoff)
	}
}

// inGang reports whether the pod belongs to a PodGroup, Kubernetes' own or Berth's.
func inGang(pod *v1.Pod) bool {
	_, ok := framework.GroupRefOf(pod)
	return ok
}

// backoffHeap returns the heap of backoffQ that holds, or is to hold, e.
func (q *PriorityQueue) backoffHeap(e *entry) *entryHeap {
	if e.fullBackoff {
		return q.fullBackoff
	}
	return q.backoff
}

// park puts a detached entry in the unschedulable set; reason is the event
// that sent it there.
func (q *PriorityQueue) park(e *entry, reason string) {
	q.cfg.metrics.CountIncomingPod(metrics.QueueUnschedulable, reason)
	e.at = inUnschedulable
	e.gated = e.info.GatingPlugin != ""
	if e.gated {
		q.gatedCount++
	}
	q.queued[e.key] = e
	q.unschedulable[e.key] = e
	q.join(e)
}

// detach takes an entry out of wherever it is.
func (q *PriorityQueue) detach(e *entry) {
	switch e.at {
	case inActive:
		q.active.remove(e)
	case inBackoff:
		q.backoffHeap(e).remove(e)
	case inUnschedulable:
		delete(q.unschedulable, e.key)
		q.leave(e)
		if e.gated {
			q.gatedCount--
		}
		e.gated = false
	default:
		return
	}
	delete(q.queued, e.key)
	e.at = nowhere
}

// gate runs the profile's PreEnqueue plugins and reports whether the pod is gated.
func (q *PriorityQueue) gate(logger logr.Logger, e *entry) bool {
	info := e.info
	var skip []string
	if info.Attempts > 0 && info.GatingPlugin == "" && inGang(info.Pod) {
		// kube-scheduler v1.37.1 queues a PodGroup as one entity once its
		// members passed the group's admission and does not ask it again: a
		// gang whose minCount was raised above its members after they were
		// tried gets its cycle, which then gives up on it.
		if q.cfg.groupAdmission == "" {
			return false
		}
		skip = []string{q.cfg.groupAdmission}
	}
	hooks := q.lookup(info.Pod.Spec.SchedulerName)
	if hooks == nil {
		info.GatingPlugin = ""
		return false
	}
	st := hooks.RunPreEnqueuePlugins(logr.NewContext(context.Background(), logger), info.Pod, skip...)
	if st.IsSuccess() {
		info.GatingPlugin = ""
		return false
	}
	plugin := st.Plugin()
	if plugin == "" {
		plugin = defaultGatingPlugin
	}
	info.GatingPlugin = plugin
	// A group member that failed for its group's sake, not a plugin's, is
	// worth another try on any event the gate lets through, as
	// kube-scheduler's PodGroup is when a member of it is: recording the
	// gate as its rejector would leave it to the gate's hints, and the
	// preemption gate's say Skip.
	if info.Attempts == 0 || !inGang(info.Pod) || hasRejectors(info) {
		if info.UnschedulablePlugins == nil {
			info.UnschedulablePlugins = sets.New[string]()
		}
		info.UnschedulablePlugins.Insert(plugin)
	}
	if st.Code() == framework.Error {
		logger.Error(st.AsError(), "PreEnqueue plugin failed", "pod", klog.KObj(info.Pod), "plugin", plugin)
	} else {
		logger.V(4).Info("Pod gated by PreEnqueue", "pod", klog.KObj(info.Pod), "plugin", plugin, "status", st)
	}
	return true
}

// backingOff fixes the entry's backoff end and reports whether it is still
// ahead. When Pop may take from backoffQ, a backoff ends with the window it
// falls in (backoffWindow), so that the pods of one window form a batch.
func (q *PriorityQueue) backingOff(e *entry) bool {
	initial, maxBackoff := q.cfg.initialBackoff, q.cfg.maxBackoff
	if hooks := q.lookup(e.info.Pod.Spec.SchedulerName); hooks != nil {
		initial, maxBackoff = hooks.PodBackoff()
	}
	d := backoffDuration(e.info.Attempts-e.info.BackoffFrom, initial, groupMaxBackoff(maxBackoff, e.info.GroupSize))
	e.backoffUntil = e.info.Timestamp.Add(d)
	if q.cfg.popFromBackoff && d > 0 {
		e.backoffUntil = windowEnd(e.backoffUntil)
	}
	return q.clock.Now().Before(e.backoffUntil)
}

func hasRejectors(info *framework.QueuedPodInfo) bool {
	return info.UnschedulablePlugins.Len() > 0 || info.PendingPlugins.Len() > 0
}
