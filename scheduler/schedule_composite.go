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
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/profile"
)

// nodeOutcome is what a hierarchy's cycle made of one of its nodes.
type nodeOutcome struct {
	node *framework.GroupNode
	// status is the node's outcome. A node whose parent failed shares the
	// parent's status, as upstream's results do, so that what the
	// PodGroupPostFilter plugins answer is added to it once per node.
	status *groupStatus
	// try is a PodGroup's try whose members are reported: the placement
	// chosen, or the first one tried when none fits; nil for a
	// CompositePodGroup, for a PodGroup whose placements could not be
	// generated and for one that failed with its parent.
	try *placementResult
	// tries are a PodGroup's tries in every placement.
	tries []*placementResult
	// placed reports whether the node placed a member in this cycle.
	placed bool
}

// outcomes are a hierarchy cycle's nodes' outcomes, by key.
type outcomes map[framework.GroupKey]*nodeOutcome

// compositeCycle is the scheduling cycle of a hierarchy of PodGroups under
// a CompositePodGroup, as kube-scheduler v1.37 runs it with its
// CompositePodGroup gate on: each node tries every placement its
// PlacementGenerate plugins propose within its parent's placement; a
// CompositePodGroup places its children in turn in each of its placements
// (each child whole or not at all) until PlacementFeasible admits it or
// gives up on it, and keeps the best placement where it fits, whose
// members stay held on the snapshot while the PodGroups after it are
// tried. Nothing backtracks across siblings.
type compositeCycle struct {
	s    *Scheduler
	fwk  *runtime.Framework
	root *framework.GroupNode
	// members are each PodGroup's queued members, in the order they are placed.
	members map[framework.GroupKey][]*framework.QueuedPodInfo
	// scheduled count each PodGroup's members placed before the cycle.
	scheduled map[framework.GroupKey]int
}

// run evaluates the hierarchy on the snapshot, leaving nothing held on it,
// and returns every node's outcome with the failures of CompositePodGroups
// handed down to the nodes below them.
func (c *compositeCycle) run(ctx context.Context) outcomes {
	s := c.s
	res := outcomes{}
	if err := s.updateSnapshot(ctx); err != nil {
		st := errorGroup("updating the snapshot: %v", err)
		res[c.root.Key] = &nodeOutcome{node: c.root, status: &st}
		completeOutcomes(c.root, res, nil)
		return res
	}
	if !s.simulating {
		s.simulating = true
		defer func() {
			s.simulating = false
			s.snapshot.Restore()
			s.snapshot.SetPlacement(nil)
		}()
	}
	o, held := c.evaluate(ctx, c.root, res)
	c.release(ctx, held)
	if o.status.success() && !o.placed {
		// As for a single group, a cycle succeeds only when it places a
		// member.
		st := unschedulableGroup()
		o.status = &st
	}
	completeOutcomes(c.root, res, nil)
	return res
}

// evaluate tries a node in the snapshot's current placement and records
// its outcome (and its subtree's) in res; it returns the tries whose
// members it left held on the snapshot, for the caller to release.
func (c *compositeCycle) evaluate(ctx context.Context, n *framework.GroupNode, res outcomes) (*nodeOutcome, []*placementResult) {
	if n.IsLeaf() {
		o, held := c.leaf(ctx, n)
		res[n.Key] = o
		return o, held
	}
	return c.composite(ctx, n, res)
}

// leaf tries a PodGroup's members in each of its placements and holds the
// members of the best one on the snapshot for the PodGroups tried after
// it (none are when the PodGroup is the root).
func (c *compositeCycle) leaf(ctx context.Context, n *framework.GroupNode) (*nodeOutcome, []*placementResult) {
	s := c.s
	o := &nodeOutcome{node: n}
	tries, status := s.tryEachPlacement(ctx, c.fwk, n, c.members[n.Key], c.scheduled[n.Key])
	o.tries = tries
	if !status.success() {
		if len(tries) > 0 {
			o.try = tries[len(tries)-1]
		}
		o.status = &status
		return o, nil
	}
	if len(tries) == 0 {
		o.status = ptr.To(unschedulableGroup("0/0 placements are available"))
		return o, nil
	}
	var feasible []*placementResult
	for _, r := range tries {
		if r.status.success() {
			feasible = append(feasible, r)
		}
	}
	if len(feasible) == 0 {
		o.try = tries[0]
		o.status = ptr.To(noPlacementFits(len(tries), o.try.status))
		return o, nil
	}
	// As upstream, a single placement where the group fits is not scored.
	best := feasible[0]
	if len(feasible) > 1 {
		var status groupStatus
		if best, status = s.bestPlacement(ctx, c.fwk, n, feasible); !status.success() {
			o.status = ptr.To(status)
			return o, nil
		}
	}
	if s.recordGroup {
		if best.group == nil {
			best.group = &decisions.Group{Placement: best.placement.Name, Feasible: 1}
		}
		best.group.PodGroup = n.Key.Namespace + "/" + n.Key.Name
		best.group.TopologyKey, _ = framework.TopologyKeyOf(n.PodGroup)
		best.group.Tried = len(tries)
	}
	o.try, o.status, o.placed = best, ptr.To(best.status), best.placedAny()
	if n == c.root {
		return o, nil
	}
	if err := c.hold(ctx, best); err != nil {
		s.revert(ctx, c.fwk, best)
		o.status, o.placed = ptr.To(errorGroup("failed to assume the subtree: %v", err)), false
		return o, nil
	}
	return o, []*placementResult{best}
}

// composite tries a CompositePodGroup's children in each of its
// placements and holds the members of its subtree's best one.
func (c *compositeCycle) composite(ctx context.Context, n *framework.GroupNode, res outcomes) (*nodeOutcome, []*placementResult) {
	s := c.s
	placements, st := c.fwk.RunPlacementGeneratePlugins(ctx, n, &framework.Placement{Nodes: s.snapshot.CandidateNodes()})
	if !st.IsSuccess() {
		o := &nodeOutcome{node: n, status: ptr.To(fromStatus(st))}
		res[n.Key] = o
		return o, nil
	}
	parent := s.snapshot.Placement()
	defer s.snapshot.SetPlacement(parent)
	var first outcomes
	var fits []outcomes
	var fitPlacements []*framework.Placement
	for _, p := range placements {
		s.snapshot.SetPlacement(placementNodes(p, s.snapshot.NumNodes()))
		sub := outcomes{}
		o, held := c.children(ctx, n, sub)
		c.release(ctx, held)
		if o.status.code == framework.Error {
			res[n.Key] = o
			return o, nil
		}
		if first == nil {
			first = sub
		}
		if o.status.success() {
			fits = append(fits, sub)
			fitPlacements = append(fitPlacements, p)
		}
	}
	if len(fits) == 0 {
		// The first placement's outcomes are reported, down to each
		// member's own reason.
		o := first[n.Key]
		o.status = ptr.To(noPlacementFits(len(placements), *o.status))
		maps.Copy(res, first)
		return o, nil
	}
	best := 0
	if len(fits) > 1 {
		assignments := make([]*framework.PodGroupAssignments, len(fits))
		for i, sub := range fits {
			assignments[i] = &framework.PodGroupAssignments{Placement: fitPlacements[i]}
			for _, leaf := range placedLeaves(n, sub) {
				assignments[i].Assignments = append(assignments[i].Assignments, leaf.try.assignments().Assignments...)
			}
		}
		var status groupStatus
		if best, _, status = s.bestScored(ctx, c.fwk, n, assignments); !status.success() {
			o := &nodeOutcome{node: n, status: ptr.To(status)}
			res[n.Key] = o
			return o, nil
		}
	}
	var held []*placementResult
	for _, leaf := range placedLeaves(n, fits[best]) {
		if err := c.hold(ctx, leaf.try); err != nil {
			s.revert(ctx, c.fwk, leaf.try)
			c.release(ctx, held)
			o := &nodeOutcome{node: n, status: ptr.To(errorGroup("failed to assume the subtree: %v", err))}
			res[n.Key] = o
			return o, nil
		}
		held = append(held, leaf.try)
	}
	maps.Copy(res, fits[best])
	return fits[best][n.Key], held
}

// children tries a CompositePodGroup's children in order in the
// snapshot's current placement, each whole, until PlacementFeasible admits
// the CompositePodGroup after the last one or gives up on it; the members
// of the children that fitted stay held unless it gives up.
func (c *compositeCycle) children(ctx context.Context, n *framework.GroupNode, sub outcomes) (*nodeOutcome, []*placementResult) {
	o := &nodeOutcome{node: n}
	sub[n.Key] = o
	progress := framework.PlacementProgress{Remaining: len(n.Children)}
	st := c.fwk.RunPlacementFeasiblePlugins(ctx, n, progress)
	if code := st.Code(); code == framework.Unschedulable || code == framework.Error {
		o.status = ptr.To(fromStatus(st))
		return o, nil
	}
	var held []*placementResult
	for _, child := range n.Children {
		co, h := c.evaluate(ctx, child, sub)
		if co.status.code == framework.Error {
			c.release(ctx, h)
			c.release(ctx, held)
			o.status = ptr.To(errorGroup("composite pod group evaluation failed due to child error: %v", co.status.asError()))
			return o, nil
		}
		held = append(held, h...)
		o.placed = o.placed || co.placed
		progress.Remaining--
		if co.status.success() {
			progress.Scheduled++
		}
		st = c.fwk.RunPlacementFeasiblePlugins(ctx, n, progress)
		if code := st.Code(); code == framework.Unschedulable || code == framework.Error {
			break
		}
	}
	status := fromStatus(st)
	if st.IsWait() {
		status = unschedulableGroup(st.Reasons()...)
	}
	o.status = &status
	if !status.success() {
		c.release(ctx, held)
		o.placed = false
		return o, nil
	}
	return o, held
}

// hold assumes again, on the snapshot, the members a try placed, and runs
// Reserve for each, so that the PodGroups tried after it see them.
func (c *compositeCycle) hold(ctx context.Context, r *placementResult) error {
	for i := range r.members {
		m := &r.members[i]
		if m.err != nil {
			continue
		}
		assumed := assumedCopy(m.qpi.Pod, m.result.host)
		if err := c.s.assumeMember(ctx, assumed); err != nil {
			return fmt.Errorf("assuming pod %s on node %s: %w", klog.KObj(m.qpi.Pod), m.result.host, err)
		}
		if st := c.fwk.RunReservePluginsReserve(ctx, m.state, assumed, m.result.host); !st.IsSuccess() {
			c.fwk.RunReservePluginsUnreserve(ctx, m.state, assumed, m.result.host)
			c.s.forgetMember(ctx, assumed)
			return fmt.Errorf("reserving pod %s on node %s: %w", klog.KObj(m.qpi.Pod), m.result.host, st.AsError())
		}
		m.assumed = assumed
	}
	return nil
}

// release lets go of the members the tries hold.
func (c *compositeCycle) release(ctx context.Context, held []*placementResult) {
	for _, r := range held {
		c.s.revert(ctx, c.fwk, r)
	}
}

// placedLeaves returns the PodGroups under n that fitted with every node
// above them up to n, and placed members.
func placedLeaves(n *framework.GroupNode, res outcomes) []*nodeOutcome {
	o, ok := res[n.Key]
	if !ok || !o.status.success() {
		return nil
	}
	if n.IsLeaf() {
		if o.try != nil && o.try.placedAny() {
			return []*nodeOutcome{o}
		}
		return nil
	}
	var out []*nodeOutcome
	for _, child := range n.Children {
		out = append(out, placedLeaves(child, res)...)
	}
	return out
}

// completeOutcomes hands a failed CompositePodGroup's status down to the
// nodes below it that fitted, or that the cycle did not reach: none of them
// may be admitted without it. parent is nil at the root.
func completeOutcomes(n *framework.GroupNode, res outcomes, parent *groupStatus) {
	o, ok := res[n.Key]
	if !ok || (parent != nil && !parent.success() && o.status.success()) {
		if parent == nil {
			parent = ptr.To(groupStatus{code: framework.Success})
		}
		o = &nodeOutcome{node: n, status: parent}
		res[n.Key] = o
	}
	for _, child := range n.Children {
		completeOutcomes(child, res, o.status)
	}
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

	c := &compositeCycle{s: s, fwk: fwk, root: root}
	leaves := root.Leaves()
	if !s.hierarchyMembers(ctx, qpi, leaves, c) {
		// The informer shows enough members of a gang, but the queue has
		// not been handed them all yet: kube-scheduler counts only the pods
		// its handlers have seen (gated ones included), so its gang would
		// still be held at PreEnqueue. The members wait, with nothing
		// written, for the others to arrive.
		logger.V(4).Info("Pod group's members have not all reached the queue yet; waiting for them")
		for _, leaf := range leaves {
			for _, m := range c.members[leaf.Key] {
				s.holdForGroup(logger, m, cycle)
			}
		}
		return
	}
	var all []*framework.QueuedPodInfo
	for _, leaf := range leaves {
		all = append(all, c.members[leaf.Key]...)
	}
	if root.IsLeaf() {
		logger.V(3).Info("Attempting to schedule pod group", "members", len(all), "profile", prof.Source, "generation", prof.Generation)
	} else {
		logger.V(3).Info("Attempting to schedule a composite pod group", "members", len(all), "podGroups", len(leaves), "profile", prof.Source, "generation", prof.Generation)
	}
	if err := s.validateHierarchy(root, all); err != nil {
		st := errorGroup("%v", err)
		for _, leaf := range leaves {
			s.failGroup(leafContext(leaf), prof, leaf.PodGroup, c.members[leaf.Key], groupFailure{status: st, full: st, size: len(all)}, start, cycle)
		}
		return
	}

	// Shadow profiles of this schedulerName, if any, run a lone PodGroup's
	// cycle dry on their own snapshot, on their own goroutine, once it is
	// done.
	if root.IsLeaf() {
		s.beginGroupShadow(qpi.Pod, fwk, root.PodGroup, all)
	}
	s.recordGroup = prof.Decisions != nil
	res := c.run(ctx)
	s.recordGroup = false
	rootStatus := *res[root.Key].status
	if root.IsLeaf() {
		s.endGroupShadow(res[root.Key].try, rootStatus)
	}
	// What each PodGroup's members that the cycle did not reach quote: the
	// status before the PodGroupPostFilter plugins add to it.
	before := make(map[framework.GroupKey]groupStatus, len(leaves))
	for _, leaf := range leaves {
		before[leaf.Key] = *res[leaf.Key].status
	}
	var preempting bool
	var nominations map[types.NamespacedName]*framework.NominatingInfo
	if rootStatus.code == framework.Unschedulable {
		preempting, nominations = s.postFilterHierarchy(ctx, c, all, res)
	}
	for _, leaf := range leaves {
		o := res[leaf.Key]
		members := c.members[leaf.Key]
		lctx := leafContext(leaf)
		if o.status.success() {
			try := o.try
			if try == nil {
				// A PodGroup with nothing to place in a hierarchy that fits.
				try = &placementResult{placement: &framework.Placement{}}
			}
			s.admitGroup(lctx, prof, leaf.PodGroup, members, try, start, cycle)
			continue
		}
		s.failGroup(lctx, prof, leaf.PodGroup, members, groupFailure{
			status:      before[leaf.Key],
			full:        *o.status,
			tried:       o.try,
			preempting:  preempting,
			nominations: nominations,
			size:        len(all),
			remainder:   rootStatus.success(),
		}, start, cycle)
	}
}

// hierarchyMembers gathers into c the queued members of each PodGroup
// under the root, qpi among them, and the members each had placed before.
// It reports false when a gang's members have not all reached the queue
// yet (waitsForMembers): the hierarchy then waits for them.
func (s *Scheduler) hierarchyMembers(ctx context.Context, qpi *framework.QueuedPodInfo, leaves []*framework.GroupNode, c *compositeCycle) bool {
	c.members = make(map[framework.GroupKey][]*framework.QueuedPodInfo, len(leaves))
	c.scheduled = make(map[framework.GroupKey]int, len(leaves))
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
		sortMembers(taken)
		c.members[leaf.Key] = taken
		c.scheduled[leaf.Key] = placed
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
func (s *Scheduler) postFilterHierarchy(ctx context.Context, c *compositeCycle, members []*framework.QueuedPodInfo, res outcomes) (bool, map[types.NamespacedName]*framework.NominatingInfo) {
	pods := make([]*v1.Pod, len(members))
	for i, m := range members {
		pods[i] = m.Pod
	}
	tried := map[types.UID]*framework.CycleState{}
	for _, leaf := range c.root.Leaves() {
		maps.Copy(tried, triedMembers(res[leaf.Key].tries))
	}
	result, st := s.simulate(func() (*framework.PodGroupPostFilterResult, *framework.Status) {
		return c.fwk.RunPodGroupPostFilterPlugins(ctx, c.root, pods, &groupSimulation{s: s, tree: c, tried: tried})
	})
	if st.Code() == framework.Error {
		failed := fromStatus(st)
		for _, o := range res {
			o.status = &failed
		}
		return false, nil
	}
	for _, o := range res {
		o.status.reasons = append(slices.Clone(o.status.reasons), st.Message())
	}
	if !st.IsSuccess() {
		return false, nil
	}
	if result == nil {
		return true, nil
	}
	return true, result.NominatingInfos
}

// scheduleTree is groupSimulation.ScheduleGroup for a hierarchy: the whole
// hierarchy's cycle again, and the members it placed.
func (c *compositeCycle) scheduleTree(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
	res := c.run(ctx)
	out := &framework.PodGroupAssignments{}
	for _, leaf := range c.root.Leaves() {
		if o := res[leaf.Key]; o.try != nil {
			out.Assignments = append(out.Assignments, o.try.assignments().Assignments...)
		}
	}
	status := res[c.root.Key].status
	if status.success() {
		return out, nil
	}
	return out, framework.NewStatus(status.code, status.message())
}
