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

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/internal/podlog"
	"github.com/berth-io/berth/scheduler/profile"
	"github.com/berth-io/berth/scheduler/workload"
)

// groupUnschedulableError is the failure of a member that its group's
// cycle did not place although nothing but its group kept it out; the pod
// reads Unschedulable.
type groupUnschedulableError struct {
	msg string
	// plugins are the plugins whose events may help the member: none for
	// a member that failed for its group (any event may), GangScheduling
	// for one a successful cycle left out.
	plugins sets.Set[string]
}

func (e *groupUnschedulableError) Error() string { return e.msg }

// scheduleGroup runs the scheduling cycle of the group that qpi, just
// popped, belongs to, as kube-scheduler v1.37 does with GenericWorkload
// and TopologyAwareWorkloadScheduling on. The group is the root of the
// PodGroup's hierarchy when the PodGroup has a CompositePodGroup above it
// that Berth follows, or else the PodGroup alone: both run the same cycle
// (scheduleHierarchy), as upstream runs a lone PodGroup and a hierarchy
// through one algorithm.
func (s *Scheduler) scheduleGroup(ctx context.Context, prof *profile.Profile, qpi *framework.QueuedPodInfo, ref framework.GroupRef, cycle int64) {
	logger := klog.FromContext(ctx).WithValues("podGroup", klog.KRef(ref.Namespace, ref.Name))
	if ref.Berth {
		logger = logger.WithValues("podGroupAPI", framework.BerthPodGroupAPIVersion)
	}
	pg, err := s.workloads.PodGroup(ref)
	if err != nil {
		// The group went away after the pod was queued: it waits, gated,
		// for the group to appear again; nothing is written to it.
		logger.V(3).Info("Pod's PodGroup is gone; the pod waits for it", "err", err)
		s.holdForGroup(logger, qpi, cycle)
		return
	}
	root := framework.PodGroupNode(pg)
	if h, ok := framework.HierarchyOf(s.workloads); ok && !ref.Berth && pg.Spec.ParentCompositePodGroupName != nil {
		if root, err = h.Hierarchy(ref); err != nil {
			// The hierarchy lost its root after the pod was queued: the pod
			// waits, gated, for it, as GangScheduling's PreEnqueue holds it.
			logger.V(3).Info("Pod group's hierarchy has no root; the pod waits for it", "err", err)
			s.holdForGroup(logger, qpi, cycle)
			return
		}
	}
	if root.IsLeaf() {
		ctx = klog.NewContext(ctx, logger)
	}
	s.scheduleHierarchy(ctx, prof, qpi, root, cycle)
}

// holdForGroup hands a group's member back to wait, rejected by
// GangScheduling, for its group (or its hierarchy) to be whole again. The
// attempt does not count and the member keeps its place in the queue:
// kube-scheduler's PreEnqueue would have held it, never popped it, so the
// member that completes the group brings it straight back to activeQ.
func (s *Scheduler) holdForGroup(logger klog.Logger, qpi *framework.QueuedPodInfo, cycle int64) {
	qpi.UnschedulablePlugins = sets.New(names.GangScheduling)
	if err := s.queue.AddGroupWaiting(logger, qpi, cycle); err != nil {
		logger.Error(err, "Requeueing the pod", "member", klog.KObj(qpi.Pod))
	}
}

// waitsForMembers reports whether a gang of minCount waits for members
// before its cycle: its PodGroup has all of them members, but fewer than
// minCount have reached the queue, since the informer's index runs ahead
// of the queue's handlers. Members gated by another PreEnqueue plugin have
// reached it: the cycle runs without them and fails, as kube-scheduler's
// does. With fewer members than minCount at all, the cycle runs and says
// so.
func waitsForMembers(minCount, all, unseen int) bool {
	return all >= minCount && all-unseen < minCount
}

// admitGroup assumes the members of the chosen placement again, runs
// Reserve and Permit for each, and hands them to binding; the PodGroup
// reads PodGroupInitiallyScheduled=True.
func (s *Scheduler) admitGroup(ctx context.Context, prof *profile.Profile, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo, best *algorithm.PlacementResult, start time.Time, cycle int64) {
	fwk := prof.Framework
	tried := make(map[*framework.QueuedPodInfo]*algorithm.MemberResult, len(best.Members))
	for i := range best.Members {
		tried[best.Members[i].QPI] = &best.Members[i]
	}
	scheduled, unschedulable := 0, 0
	for _, qpi := range members {
		mctx := klog.NewContext(ctx, podlog.For(ctx, qpi.Pod))
		m := tried[qpi]
		if m == nil || m.Err != nil {
			// A member that did not fit while the group did (more members
			// than minCount) waits, with its own reason.
			err := error(&groupUnschedulableError{msg: algorithm.GroupUnschedulable().Message(), plugins: sets.New(names.GangScheduling)})
			if m != nil {
				err = m.Err
			}
			// It is retried at once, before pods queued after it, as
			// kube-scheduler v1.37.1 requeues what remains of a group that
			// scheduled: that cycle places none and may preempt for it.
			s.handleFailure(mctx, prof, qpi, &schedulingFailure{err: err, leftOut: true}, start, cycle)
			unschedulable++
			continue
		}
		assumed, failure := s.commit(mctx, fwk, m.State, qpi.Pod, m.Result.Host)
		if failure != nil {
			s.handleFailure(mctx, prof, qpi, failure, start, cycle)
			unschedulable++
			continue
		}
		m.Result.Group = best.Group
		s.startBinding(mctx, prof, qpi, m.State, assumed, m.Result, start, cycle)
		scheduled++
	}
	klog.FromContext(ctx).V(2).Info("Successfully scheduled a pod group", "placement", best.Placement.Name, "scheduledPods", scheduled, "unschedulablePods", unschedulable)
	// The condition is written off the loop: the members left out, retried
	// at once, must not read the group as not yet scheduled meanwhile.
	s.workloads.MarkScheduled(pg)
	s.patchGroupCondition(ctx, pg, metav1.Condition{
		Type:   schedulingv1beta1.PodGroupInitiallyScheduled,
		Status: metav1.ConditionTrue,
		Reason: workload.ReasonScheduled,
	})
}

// groupFailure is why a PodGroup's cycle placed none of its members.
type groupFailure struct {
	// status is the cycle's outcome; the members it did not reach quote it.
	status algorithm.Status
	// full is status with what the PodGroupPostFilter plugins answered; the
	// PodGroup and the members that fitted quote it.
	full algorithm.Status
	// tried is the placement whose members' outcomes are reported, if any.
	tried *algorithm.PlacementResult
	// preempting is set when a PodGroupPostFilter plugin made room for the
	// group: the members wait for it, nominated where it is made.
	preempting bool
	// nominations are where the PodGroupPostFilter plugins nominated
	// members, by namespace and name.
	nominations map[types.NamespacedName]*framework.NominatingInfo
	// size is how many members back off together: the queued members of
	// the whole hierarchy; 0 means the members given to failGroup.
	size int
	// remainder is set for a PodGroup of a hierarchy whose cycle placed
	// other PodGroups: its members are retried at once, as the rest of a
	// group that scheduled is.
	remainder bool
}

// nominating is what becomes of a member's nomination, as upstream
// decides it: on an error every member loses it; otherwise a member the
// PodGroupPostFilter plugins nominated goes there, a member that fitted
// loses its nomination, and one that did not fit or was not reached
// keeps what it had. m is the member's try, nil when it was not reached.
func (f *groupFailure) nominating(qpi *framework.QueuedPodInfo, m *algorithm.MemberResult) *framework.NominatingInfo {
	if f.full.Code == framework.Error {
		return clearNomination()
	}
	if n := f.nominations[types.NamespacedName{Namespace: qpi.Pod.Namespace, Name: qpi.Pod.Name}]; n != nil {
		return n
	}
	if m != nil && m.Err == nil {
		return clearNomination()
	}
	return nil
}

// failGroup requeues every member of a group its cycle did not place and
// tells each why, as kube-scheduler does: a member that did not fit says
// why it did not, a member that fitted says why its group did not, and a
// member the cycle did not reach carries the group's reason. The PodGroup
// reads PodGroupInitiallyScheduled=False with the group's reason.
func (s *Scheduler) failGroup(ctx context.Context, prof *profile.Profile, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo, outcome groupFailure, start time.Time, cycle int64) {
	logger := klog.FromContext(ctx)
	evaluated := make(map[*framework.QueuedPodInfo]*algorithm.MemberResult)
	if outcome.tried != nil {
		for i := range outcome.tried.Members {
			m := &outcome.tried.Members[i]
			evaluated[m.QPI] = m
		}
	}
	status, groupMsg := outcome.full, outcome.full.Message()
	for _, qpi := range members {
		mctx := klog.NewContext(ctx, podlog.For(ctx, qpi.Pod))
		// The members back off as one group of this size.
		qpi.GroupSize = len(members)
		if outcome.size > 0 {
			qpi.GroupSize = outcome.size
		}
		m := evaluated[qpi]
		var err error
		switch {
		case m != nil && m.Err != nil:
			err = m.Err
		case status.Code == framework.Error:
			err = errors.New(groupMsg)
		case m != nil && outcome.preempting:
			// It fitted, and waits for the room its group's preemption
			// makes. A member that failed for its group names no plugin,
			// as upstream's: any event may help it.
			err = &groupUnschedulableError{msg: groupMsg}
		case m != nil:
			// It fitted; its group did not.
			err = &groupUnschedulableError{msg: algorithm.GroupUnschedulable(groupMsg).Message()}
		default:
			// The cycle did not reach it.
			err = &groupUnschedulableError{msg: outcome.status.Message()}
		}
		s.handleFailure(mctx, prof, qpi, &schedulingFailure{err: err, nominating: outcome.nominating(qpi, m), groupFailed: !outcome.remainder, leftOut: outcome.remainder}, start, cycle)
	}
	cond := metav1.Condition{
		Type:    schedulingv1beta1.PodGroupInitiallyScheduled,
		Status:  metav1.ConditionFalse,
		Reason:  schedulingv1beta1.PodGroupReasonUnschedulable,
		Message: groupMsg,
	}
	if status.Code == framework.Error {
		cond.Reason = schedulingv1beta1.PodGroupReasonSchedulerError
		logger.Error(errors.New(groupMsg), "Error scheduling pod group", "errorPods", len(members))
	} else if outcome.preempting {
		logger.V(2).Info("Pod group is waiting for preemption", "unschedulablePods", len(members), "err", groupMsg)
	} else {
		logger.V(2).Info("Unable to schedule a pod group", "unschedulablePods", len(members), "err", groupMsg)
	}
	s.patchGroupCondition(ctx, pg, cond)
}

// patchGroupCondition writes the PodGroup's condition off the scheduling
// loop; a failure is logged, and the next cycle of the group writes again.
// The writes of one PodGroup are sent one at a time, in the order its
// cycles decided them: kube-scheduler v1.37.1 writes each in its cycle,
// before the next cycle, and two writes sent at once may land in either
// order (the remainder of a hierarchy that scheduled, retried at once,
// would then read its first cycle's condition, not its own).
func (s *Scheduler) patchGroupCondition(ctx context.Context, pg *schedulingv1beta1.PodGroup, cond metav1.Condition) {
	logger := klog.FromContext(ctx)
	write := func() {
		if err := s.workloads.PatchCondition(context.WithoutCancel(ctx), s.client, pg, cond); err != nil {
			logger.Error(err, "Updating the PodGroup's status")
		}
	}
	ref := framework.RefOf(pg)
	if !s.groupWrites.add(ref, write) {
		// The goroutine sending the group's earlier write sends it next.
		return
	}
	s.bindings.Add(1)
	go func() {
		defer s.bindings.Done()
		for ; write != nil; write = s.groupWrites.next(ref) {
			write()
		}
	}()
}

// groupWrites holds the condition writes of each PodGroup that wait for
// the one being sent; the zero value has none.
type groupWrites struct {
	mu sync.Mutex
	// waiting has an entry, maybe empty, for each PodGroup a write is
	// being sent to.
	waiting map[framework.GroupRef][]func()
}

// add queues write behind the PodGroup's write being sent, if any, and
// reports whether there was none: the caller then sends write, and the
// writes next returns after it.
func (w *groupWrites) add(ref framework.GroupRef, write func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if queued, sending := w.waiting[ref]; sending {
		w.waiting[ref] = append(queued, write)
		return false
	}
	if w.waiting == nil {
		w.waiting = make(map[framework.GroupRef][]func())
	}
	w.waiting[ref] = nil
	return true
}

// next returns the PodGroup's next write once the previous one was sent,
// or nil when none waits: the group has no write being sent then.
func (w *groupWrites) next(ref framework.GroupRef) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	queued := w.waiting[ref]
	if len(queued) == 0 {
		delete(w.waiting, ref)
		return nil
	}
	w.waiting[ref] = queued[1:]
	return queued[0]
}

// scheduleHierarchy runs the cycle of the group under root that qpi, just
// popped, belongs to: a CompositePodGroup's hierarchy, or a PodGroup alone
// (a hierarchy of one). The queued members of every PodGroup under it join
// the cycle; the PodGroups that fit go on to Permit and binding, and the
// others are told why, each PodGroup's PodGroupInitiallyScheduled
// condition saying so. Nothing is written to a CompositePodGroup, as
// kube-scheduler v1.37.1 writes nothing there.
func (s *Scheduler) scheduleHierarchy(ctx context.Context, prof *profile.Profile, qpi *framework.QueuedPodInfo, root *framework.GroupNode, cycle int64) {
	start := s.clock.Now()
	fwk := prof.Framework
	logger := klog.FromContext(ctx)
	if !root.IsLeaf() {
		logger = logger.WithValues("compositePodGroup", klog.KRef(root.Key.Namespace, root.Key.Name))
		ctx = klog.NewContext(ctx, logger)
	}
	// leafContext is the context a PodGroup's outcome is told in.
	leafContext := func(leaf *framework.GroupNode) context.Context {
		if leaf == root {
			return ctx
		}
		return klog.NewContext(ctx, logger.WithValues("podGroup", klog.KRef(leaf.Key.Namespace, leaf.Key.Name)))
	}

	c := &algorithm.Cycle{Env: s.loopEnv(fwk, prof.Decisions != nil, cycle), Root: root}
	leaves := root.Leaves()
	if !s.hierarchyMembers(ctx, qpi, leaves, c) {
		// The informer shows enough members of a gang, but the queue has
		// not been handed them all yet: kube-scheduler counts only the pods
		// its handlers have seen (gated ones included), so its gang would
		// still be held at PreEnqueue. The members wait, with nothing
		// written, for the others to arrive.
		logger.V(4).Info("Pod group's members have not all reached the queue yet; waiting for them")
		for _, leaf := range leaves {
			for _, m := range c.Members[leaf.Key] {
				s.holdForGroup(logger, m, cycle)
			}
		}
		return
	}
	var all []*framework.QueuedPodInfo
	for _, leaf := range leaves {
		all = append(all, c.Members[leaf.Key]...)
	}
	if root.IsLeaf() {
		logger.V(3).Info("Attempting to schedule pod group", "members", len(all), "profile", prof.Source, "generation", prof.Generation)
	} else {
		logger.V(3).Info("Attempting to schedule a composite pod group", "members", len(all), "podGroups", len(leaves), "profile", prof.Source, "generation", prof.Generation)
	}
	if err := s.validateHierarchy(root, all); err != nil {
		st := algorithm.Errorf("%v", err)
		for _, leaf := range leaves {
			s.failGroup(leafContext(leaf), prof, leaf.PodGroup, c.Members[leaf.Key], groupFailure{status: st, full: st, size: len(all)}, start, cycle)
		}
		return
	}

	// Shadow profiles of this schedulerName, if any, run the group's cycle
	// dry on their own snapshot, on their own goroutine, once it is done.
	s.shadows.BeginGroup(qpi.Pod, fwk, s.nextStartNodeIndex, root, c.Members, c.Scheduled)
	var res algorithm.Outcomes
	if err := s.updateSnapshot(ctx); err != nil {
		res = algorithm.Failed(root, algorithm.Errorf("updating the snapshot: %v", err))
	} else {
		res = c.Run(ctx)
	}
	rootStatus := *res[root.Key].Status
	s.shadows.EndGroup(res)
	// What each PodGroup's members that the cycle did not reach quote: the
	// status before the PodGroupPostFilter plugins add to it.
	before := make(map[framework.GroupKey]algorithm.Status, len(leaves))
	for _, leaf := range leaves {
		before[leaf.Key] = *res[leaf.Key].Status
	}
	var preempting bool
	var nominations map[types.NamespacedName]*framework.NominatingInfo
	if rootStatus.Code == framework.Unschedulable {
		preempting, nominations = s.postFilterHierarchy(ctx, c, all, res)
	}
	for _, leaf := range leaves {
		o := res[leaf.Key]
		members := c.Members[leaf.Key]
		lctx := leafContext(leaf)
		if o.Status.Success() {
			try := o.Try
			if try == nil {
				// A PodGroup with nothing to place in a hierarchy that fits.
				try = &algorithm.PlacementResult{Placement: &framework.Placement{}}
			}
			s.admitGroup(lctx, prof, leaf.PodGroup, members, try, start, cycle)
			continue
		}
		s.failGroup(lctx, prof, leaf.PodGroup, members, groupFailure{
			status:      before[leaf.Key],
			full:        *o.Status,
			tried:       o.Try,
			preempting:  preempting,
			nominations: nominations,
			size:        len(all),
			remainder:   rootStatus.Success(),
		}, start, cycle)
	}
}

// hierarchyMembers gathers into c the queued members of each PodGroup
// under the root, qpi among them, and the members each had placed before.
// It reports false when a gang's members have not all reached the queue
// yet (waitsForMembers): the hierarchy then waits for them.
func (s *Scheduler) hierarchyMembers(ctx context.Context, qpi *framework.QueuedPodInfo, leaves []*framework.GroupNode, c *algorithm.Cycle) bool {
	c.Members = make(map[framework.GroupKey][]*framework.QueuedPodInfo, len(leaves))
	c.Scheduled = make(map[framework.GroupKey]int, len(leaves))
	ready := true
	mine, _ := framework.GroupRefOf(qpi.Pod)
	for _, leaf := range leaves {
		var others []*v1.Pod
		placed, own := 0, 0
		for _, m := range s.workloads.Members(leaf.Ref()) {
			switch {
			case s.workloads.IsPlaced(m):
				placed++
			case m.UID == qpi.Pod.UID:
			case m.DeletionTimestamp == nil:
				others = append(others, m)
			}
		}
		taken, unseen := s.queue.TakeMembers(klog.FromContext(ctx), others, names.GangScheduling)
		if leaf.Ref() == mine {
			taken = append(taken, qpi)
			own = 1
		}
		algorithm.SortMembers(taken)
		c.Members[leaf.Key] = taken
		c.Scheduled[leaf.Key] = placed
		if leaf.PodGroup.Spec.SchedulingPolicy.Gang != nil && waitsForMembers(leaf.MinCount(), placed+len(others)+own, unseen) {
			ready = false
		}
	}
	return ready
}

// validateHierarchy checks what kube-scheduler requires of a hierarchy's
// members, queued and placed: one scheduler name, one preemption policy,
// and the root's priority (0 when it has none).
func (s *Scheduler) validateHierarchy(root *framework.GroupNode, queued []*framework.QueuedPodInfo) error {
	pods := make([]*v1.Pod, 0, len(queued))
	for _, m := range queued {
		pods = append(pods, m.Pod)
	}
	for _, leaf := range root.Leaves() {
		pods = append(pods, framework.ScheduledMembers(s.workloads, leaf.Ref())...)
	}
	if len(pods) == 0 {
		return nil
	}
	schedulerName, priority := pods[0].Spec.SchedulerName, root.Priority()
	policy := v1.PreemptionPolicy("")
	for _, pod := range pods {
		if pod.Spec.SchedulerName != schedulerName {
			return fmt.Errorf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", pod.Spec.SchedulerName, schedulerName)
		}
		if p := corev1helpers.PodPriority(pod); p != priority {
			return fmt.Errorf("all pods in a single pod group should have the same priority as the pod group's priority, got %d and %d", p, priority)
		}
		pp := v1.PreemptLowerPriority
		if pod.Spec.PreemptionPolicy != nil {
			pp = *pod.Spec.PreemptionPolicy
		}
		if policy == "" {
			policy = pp
		} else if pp != policy {
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy, got %v and %v", pp, policy)
		}
	}
	if s.profiles.Get(schedulerName) == nil {
		return fmt.Errorf("profile not found for scheduler name %q", schedulerName)
	}
	return nil
}

// postFilterHierarchy runs the PodGroupPostFilter plugins for a hierarchy
// its cycle could not place, with the root as the group and every member
// of it, on a simulation that runs the whole hierarchy's cycle again, and
// adds their answer to every node's status as upstream does: once per node
// sharing it. It reports whether room is being made, and where the
// members are nominated.
func (s *Scheduler) postFilterHierarchy(ctx context.Context, c *algorithm.Cycle, members []*framework.QueuedPodInfo, res algorithm.Outcomes) (bool, map[types.NamespacedName]*framework.NominatingInfo) {
	pods := make([]*v1.Pod, len(members))
	for i, m := range members {
		pods[i] = m.Pod
	}
	tried := map[types.UID]*framework.CycleState{}
	for _, leaf := range c.Root.Leaves() {
		maps.Copy(tried, algorithm.TriedMembers(res[leaf.Key].Tries))
	}
	// The plugins run the cycle again on a changed cluster: the snapshot,
	// taken back to the cache's state after them. Nothing is recorded.
	again := *c
	again.Env.Record = false
	end := algorithm.Isolate(s.snapshot)
	result, st := c.Env.Framework.RunPodGroupPostFilterPlugins(ctx, c.Root, pods, &algorithm.Simulation{Cycle: &again, Tried: tried})
	end()
	if st.Code() == framework.Error {
		failed := algorithm.FromStatus(st)
		for _, o := range res {
			o.Status = &failed
		}
		return false, nil
	}
	for _, o := range res {
		*o.Status = o.Status.WithReason(st.Message())
	}
	if !st.IsSuccess() {
		return false, nil
	}
	if result == nil {
		return true, nil
	}
	return true, result.NominatingInfos
}
