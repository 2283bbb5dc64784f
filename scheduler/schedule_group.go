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
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/profile"
	"github.com/berth-io/berth/scheduler/workload"
)

// msgGroupUnschedulable is what kube-scheduler puts first in the message of
// a PodGroup that its cycle could not place.
const msgGroupUnschedulable = "pod group is unschedulable"

// groupStatus is the outcome of a PodGroup's cycle, or of one placement's
// try. It keeps upstream's shape so that the messages come out as
// kube-scheduler writes them: unschedulable marks a status that carries
// "pod group is unschedulable" as its error, which leads its message and
// stands for it where the status is quoted as an error.
type groupStatus struct {
	code          framework.Code
	reasons       []string
	unschedulable bool
}

// message joins the status's reasons, as a pod or PodGroup condition shows them.
func (g groupStatus) message() string {
	if g.unschedulable {
		return strings.Join(append([]string{msgGroupUnschedulable}, g.reasons...), ", ")
	}
	return strings.Join(g.reasons, ", ")
}

// asError is the status quoted as an error.
func (g groupStatus) asError() string {
	if g.unschedulable {
		return msgGroupUnschedulable
	}
	return g.message()
}

func (g groupStatus) rejected() bool { return statusOf(g.code).IsRejected() }

// statusOf is a bare status of code c, for its predicates.
func statusOf(c framework.Code) *framework.Status { return framework.NewStatus(c) }

func (g groupStatus) success() bool { return g.code == framework.Success }

// fromStatus turns a plugin status into a group status.
func fromStatus(st *framework.Status) groupStatus {
	return groupStatus{code: st.Code(), reasons: append([]string(nil), st.Reasons()...)}
}

// noPlacementFits is the status of a group that fits in none of the n
// placements tried, quoting the first one's, in upstream's words.
func noPlacementFits(n int, first groupStatus) groupStatus {
	return unschedulableGroup(fmt.Sprintf("0/%d placements are available, first placement status: %v", n, first.asError()))
}

// unschedulableGroup is an Unschedulable status with upstream's error.
func unschedulableGroup(reasons ...string) groupStatus {
	return groupStatus{code: framework.Unschedulable, reasons: reasons, unschedulable: true}
}

// errorGroup is an Error status.
func errorGroup(format string, a ...any) groupStatus {
	return groupStatus{code: framework.Error, reasons: []string{fmt.Sprintf(format, a...)}}
}

// memberResult is one member's try in a placement.
type memberResult struct {
	qpi    *framework.QueuedPodInfo
	state  *framework.CycleState
	result scheduleResult
	// err is why the member was not placed; nil when it was.
	err error
	// assumed is the member's assumed copy while the try holds it.
	assumed *v1.Pod
}

// placementResult is a PodGroup's try in one placement.
type placementResult struct {
	placement *framework.Placement
	members   []memberResult
	status    groupStatus
	// group is how the cycle chose this placement, for the members'
	// recorded decisions; set on the best placement while recordGroup is.
	group *decisions.Group
}

// placedAny reports whether the try placed a member.
func (r *placementResult) placedAny() bool {
	for _, m := range r.members {
		if m.err == nil {
			return true
		}
	}
	return false
}

// assignments are the members the try placed.
func (r *placementResult) assignments() *framework.PodGroupAssignments {
	out := &framework.PodGroupAssignments{Placement: r.placement}
	for _, m := range r.members {
		if m.err == nil {
			out.Assignments = append(out.Assignments, framework.ProposedAssignment{Pod: m.qpi.Pod, NodeName: m.result.host, State: m.state})
		}
	}
	return out
}

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

// holdForGroup hands a group's member back to wait, gated by
// GangScheduling, for its group (or its hierarchy) to be whole again.
func (s *Scheduler) holdForGroup(logger klog.Logger, qpi *framework.QueuedPodInfo, cycle int64) {
	qpi.UnschedulablePlugins = sets.New(names.GangScheduling)
	if err := s.queue.AddUnschedulableIfNotPresent(logger, qpi, cycle); err != nil {
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

// sortMembers orders a group's members as its cycle places them, as
// kube-scheduler orders a pod group's queued pods: higher priority first,
// then more scheduling attempts, then earlier arrival in the queue, then
// name.
func sortMembers(members []*framework.QueuedPodInfo) {
	slices.SortStableFunc(members, func(a, b *framework.QueuedPodInfo) int {
		if c := cmp.Compare(b.Priority(), a.Priority()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Attempts, a.Attempts); c != 0 {
			return c
		}
		if c := a.Timestamp.Compare(b.Timestamp); c != 0 {
			return c
		}
		return strings.Compare(a.Pod.Name, b.Pod.Name)
	})
}

// triedMembers returns the cycle state of each member the tries ran the
// scheduling algorithm for, from the last try that reached it.
func triedMembers(tries []*placementResult) map[types.UID]*framework.CycleState {
	out := map[types.UID]*framework.CycleState{}
	for _, r := range tries {
		for _, m := range r.members {
			out[m.qpi.Pod.UID] = m.state
		}
	}
	return out
}

// tryPlacements tries the members in every placement the PlacementGenerate
// plugins propose, in their order, and returns each try. Its status fails
// only when the placements cannot be generated or a try ends in an error,
// which is then the last try returned. The tries hold their members on the
// snapshot alone (assumeMember): no member's search waits for the snapshot
// to be refreshed from the cache, and the cache sees only the members of
// the placement chosen, which admitGroup assumes. A PodGroupPostFilter's
// simulation is already on the snapshot alone and keeps its changes.
func (s *Scheduler) tryPlacements(ctx context.Context, fwk *runtime.Framework, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo) ([]*placementResult, groupStatus) {
	if err := s.updateSnapshot(ctx); err != nil {
		return nil, errorGroup("updating the snapshot: %v", err)
	}
	if !s.simulating {
		s.simulating = true
		defer func() {
			s.simulating = false
			s.snapshot.Restore()
		}()
	}
	scheduled := len(framework.ScheduledMembers(s.workloads, framework.RefOf(pg)))
	return s.tryEachPlacement(ctx, fwk, framework.PodGroupNode(pg), members, scheduled)
}

// tryEachPlacement tries the members of the PodGroup node in every
// placement the PlacementGenerate plugins propose within the snapshot's
// current placement, in their order, and returns each try, the members
// let go; the current placement is restored. scheduled counts the group's
// members placed before the cycle. Its status fails only when the
// placements cannot be generated or a try ends in an error, which is then
// the last try returned.
func (s *Scheduler) tryEachPlacement(ctx context.Context, fwk *runtime.Framework, node *framework.GroupNode, members []*framework.QueuedPodInfo, scheduled int) ([]*placementResult, groupStatus) {
	placements, st := fwk.RunPlacementGeneratePlugins(ctx, node, &framework.Placement{Nodes: s.snapshot.CandidateNodes()})
	if !st.IsSuccess() {
		return nil, fromStatus(st)
	}
	defer s.snapshot.SetPlacement(s.snapshot.Placement())
	tries := make([]*placementResult, 0, len(placements))
	for _, p := range placements {
		s.snapshot.SetPlacement(placementNodes(p, s.snapshot.NumNodes()))
		r := s.tryPlacement(ctx, fwk, node, members, scheduled, p)
		s.revert(ctx, fwk, r)
		tries = append(tries, r)
		if r.status.code == framework.Error {
			return tries, r.status
		}
	}
	return tries, groupStatus{code: framework.Success}
}

// placementNodes returns the node names of p, or nil when p holds every
// node (the search is then not confined).
func placementNodes(p *framework.Placement, all int) map[string]bool {
	if len(p.Nodes) == all {
		return nil
	}
	out := make(map[string]bool, len(p.Nodes))
	for _, ni := range p.Nodes {
		out[ni.Node().Name] = true
	}
	return out
}

// tryPlacement places the members of the PodGroup node one after another
// in the snapshot's current placement, assuming each one placed, until
// PlacementFeasible admits the group after the last member or gives up on
// it; scheduled counts the group's members placed before the cycle. The
// members stay assumed; the caller reverts them.
func (s *Scheduler) tryPlacement(ctx context.Context, fwk *runtime.Framework, node *framework.GroupNode, members []*framework.QueuedPodInfo, scheduled int, p *framework.Placement) *placementResult {
	r := &placementResult{placement: p, members: make([]memberResult, 0, len(members))}
	progress := framework.PlacementProgress{Remaining: len(members), Scheduled: scheduled}
	st := fwk.RunPlacementFeasiblePlugins(ctx, node, progress)
	switch {
	case st.Code() == framework.Error:
		r.status = errorGroup("failed to evaluate placement feasibility: %v", st.AsError())
		return r
	case st.Code() == framework.Unschedulable:
		r.status = unschedulableGroup(st.Reasons()...)
		return r
	}
	r.status = fromStatus(st)
	for _, qpi := range members {
		m := s.placeMember(ctx, fwk, qpi)
		r.members = append(r.members, m)
		var fitErr *framework.FitError
		if m.err != nil && !errors.As(m.err, &fitErr) && !errors.Is(m.err, errNoNodes) {
			r.status = errorGroup("failed to schedule other pod from a pod group: %v", m.err)
			break
		}
		progress.Remaining--
		if m.err == nil {
			progress.Scheduled++
		}
		st := fwk.RunPlacementFeasiblePlugins(ctx, node, progress)
		if st.Code() == framework.Error {
			r.status = errorGroup("failed to evaluate placement feasibility: %v", st.AsError())
			break
		}
		r.status = fromStatus(st)
		if st.Code() == framework.Unschedulable {
			break
		}
	}
	if r.status.code == framework.Wait {
		r.status = unschedulableGroup(r.status.reasons...)
	}
	return r
}

// placeMember runs one member's search and, when a node fits, assumes the
// member there and runs Reserve. PostFilter does not run for a member: a
// group that does not fit is handled as a group.
func (s *Scheduler) placeMember(ctx context.Context, fwk *runtime.Framework, qpi *framework.QueuedPodInfo) memberResult {
	ctx = klog.NewContext(ctx, loggerFor(ctx, qpi.Pod))
	m := memberResult{qpi: qpi, state: framework.NewCycleState()}
	result, err := s.schedulePod(ctx, fwk, m.state, qpi.Pod, s.recordGroup)
	m.result = result
	if err != nil {
		m.err = err
		return m
	}
	assumed := assumedCopy(qpi.Pod, result.host)
	if err := s.assumeMember(ctx, assumed); err != nil {
		m.err = fmt.Errorf("assuming pod on node %s: %w", result.host, err)
		return m
	}
	if st := fwk.RunReservePluginsReserve(ctx, m.state, assumed, result.host); !st.IsSuccess() {
		fwk.RunReservePluginsUnreserve(ctx, m.state, assumed, result.host)
		s.forgetMember(ctx, assumed)
		m.err = statusError(st, result.host, s.snapshot.NumCandidateNodes())
		return m
	}
	m.assumed = assumed
	return m
}

// assumeMember holds a member on the node a try placed it on: in the cache,
// or in the snapshot alone while a PodGroupPostFilter plugin simulates.
func (s *Scheduler) assumeMember(ctx context.Context, assumed *v1.Pod) error {
	if !s.simulating {
		return s.cache.AssumePod(klog.FromContext(ctx), assumed)
	}
	pi, err := framework.NewPodInfo(assumed)
	if err != nil {
		return err
	}
	return s.snapshot.AddPod(pi, assumed.Spec.NodeName)
}

// forgetMember lets go of a member assumeMember held.
func (s *Scheduler) forgetMember(ctx context.Context, assumed *v1.Pod) {
	if !s.simulating {
		s.forget(ctx, assumed)
		return
	}
	if err := s.snapshot.RemovePod(assumed, assumed.Spec.NodeName); err != nil {
		klog.FromContext(ctx).Error(err, "Taking a simulated member off its node")
	}
}

// revert unreserves and forgets every member the try assumed.
func (s *Scheduler) revert(ctx context.Context, fwk *runtime.Framework, r *placementResult) {
	for i := range r.members {
		m := &r.members[i]
		if m.assumed == nil {
			continue
		}
		fwk.RunReservePluginsUnreserve(ctx, m.state, m.assumed, m.result.host)
		s.forgetMember(ctx, m.assumed)
		m.assumed = nil
	}
}

// bestPlacement ranks the placements where the group fits with the
// PlacementScore plugins; equal scores are broken at random. While
// recordGroup is set, the best placement keeps the ranking.
func (s *Scheduler) bestPlacement(ctx context.Context, fwk *runtime.Framework, node *framework.GroupNode, feasible []*placementResult) (*placementResult, groupStatus) {
	assignments := make([]*framework.PodGroupAssignments, len(feasible))
	for i, r := range feasible {
		assignments[i] = r.assignments()
	}
	best, scores, status := s.bestScored(ctx, fwk, node, assignments)
	if !status.success() {
		return nil, status
	}
	if s.recordGroup {
		name := feasible[best].placement.Name
		feasible[best].group = &decisions.Group{Placement: name, Feasible: len(feasible), Placements: decisions.Top(scores, name)}
	}
	return feasible[best], status
}

// bestScored ranks the assignments of the placements where a group fits
// with the PlacementScore plugins and returns the index of the best, with
// every placement's scores; equal scores are broken at random.
func (s *Scheduler) bestScored(ctx context.Context, fwk *runtime.Framework, node *framework.GroupNode, assignments []*framework.PodGroupAssignments) (int, []framework.NodePluginScores, groupStatus) {
	scores, st := fwk.ScorePlacements(ctx, node, assignments)
	if !st.IsSuccess() {
		return 0, nil, fromStatus(st)
	}
	best, ties := 0, 1
	for i := 1; i < len(scores); i++ {
		switch {
		case scores[i].TotalScore > scores[best].TotalScore:
			best, ties = i, 1
		case scores[i].TotalScore == scores[best].TotalScore:
			// Reservoir sampling: each of the tied placements wins equally often.
			ties++
			if s.rand(ties) == 0 {
				best = i
			}
		}
	}
	return best, scores, groupStatus{code: framework.Success}
}

// admitGroup assumes the members of the chosen placement again, runs
// Reserve and Permit for each, and hands them to binding; the PodGroup
// reads PodGroupInitiallyScheduled=True.
func (s *Scheduler) admitGroup(ctx context.Context, prof *profile.Profile, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo, best *placementResult, start time.Time, cycle int64) {
	fwk := prof.Framework
	tried := make(map[*framework.QueuedPodInfo]*memberResult, len(best.members))
	for i := range best.members {
		tried[best.members[i].qpi] = &best.members[i]
	}
	scheduled, unschedulable := 0, 0
	for _, qpi := range members {
		mctx := klog.NewContext(ctx, loggerFor(ctx, qpi.Pod))
		m := tried[qpi]
		if m == nil || m.err != nil {
			// A member that did not fit while the group did (more members
			// than minCount) waits, with its own reason.
			err := error(&groupUnschedulableError{msg: unschedulableGroup().message(), plugins: sets.New(names.GangScheduling)})
			if m != nil {
				err = m.err
			}
			// It is retried at once, before pods queued after it, as
			// kube-scheduler v1.37.1 requeues what remains of a group that
			// scheduled: that cycle places none and may preempt for it.
			s.handleFailure(mctx, prof, qpi, &schedulingFailure{err: err, leftOut: true}, start, cycle)
			unschedulable++
			continue
		}
		assumed, failure := s.commitMember(mctx, fwk, m)
		if failure != nil {
			s.handleFailure(mctx, prof, qpi, failure, start, cycle)
			unschedulable++
			continue
		}
		m.result.group = best.group
		s.startBinding(mctx, prof, qpi, m.state, assumed, m.result, start, cycle)
		scheduled++
	}
	klog.FromContext(ctx).V(2).Info("Successfully scheduled a pod group", "placement", best.placement.Name, "scheduledPods", scheduled, "unschedulablePods", unschedulable)
	// The condition is written off the loop: the members left out, retried
	// at once, must not read the group as not yet scheduled meanwhile.
	s.workloads.MarkScheduled(pg)
	s.patchGroupCondition(ctx, pg, metav1.Condition{
		Type:   schedulingv1beta1.PodGroupInitiallyScheduled,
		Status: metav1.ConditionTrue,
		Reason: workload.ReasonScheduled,
	})
}

// commitMember assumes a member on the node its group's try chose and runs
// Reserve and Permit, as a pod's own scheduling cycle does.
func (s *Scheduler) commitMember(ctx context.Context, fwk *runtime.Framework, m *memberResult) (*v1.Pod, *schedulingFailure) {
	host := m.result.host
	assumed := assumedCopy(m.qpi.Pod, host)
	if err := s.cache.AssumePod(klog.FromContext(ctx), assumed); err != nil {
		return nil, &schedulingFailure{err: fmt.Errorf("assuming pod on node %s: %w", host, err)}
	}
	s.queue.DeleteNominatedPodIfExists(assumed)
	if st := fwk.RunReservePluginsReserve(ctx, m.state, assumed, host); !st.IsSuccess() {
		fwk.RunReservePluginsUnreserve(ctx, m.state, assumed, host)
		s.forget(ctx, assumed)
		return nil, &schedulingFailure{err: statusError(st, host, s.snapshot.NumNodes())}
	}
	if st := fwk.RunPermitPlugins(ctx, m.state, assumed, host); !st.IsWait() && !st.IsSuccess() {
		fwk.RunReservePluginsUnreserve(ctx, m.state, assumed, host)
		s.forget(ctx, assumed)
		return nil, &schedulingFailure{err: statusError(st, host, s.snapshot.NumNodes())}
	}
	return assumed, nil
}

// groupFailure is why a PodGroup's cycle placed none of its members.
type groupFailure struct {
	// status is the cycle's outcome; the members it did not reach quote it.
	status groupStatus
	// full is status with what the PodGroupPostFilter plugins answered; the
	// PodGroup and the members that fitted quote it.
	full groupStatus
	// tried is the placement whose members' outcomes are reported, if any.
	tried *placementResult
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
func (f *groupFailure) nominating(qpi *framework.QueuedPodInfo, m *memberResult) *framework.NominatingInfo {
	if f.full.code == framework.Error {
		return clearNomination()
	}
	if n := f.nominations[types.NamespacedName{Namespace: qpi.Pod.Namespace, Name: qpi.Pod.Name}]; n != nil {
		return n
	}
	if m != nil && m.err == nil {
		return clearNomination()
	}
	return nil
}

// simulate runs f with the snapshot frozen for a simulation, and restores
// the snapshot after it, however f ends.
func (s *Scheduler) simulate(f func() (*framework.PodGroupPostFilterResult, *framework.Status)) (*framework.PodGroupPostFilterResult, *framework.Status) {
	s.simulating = true
	defer func() {
		s.simulating = false
		s.snapshot.Restore()
		s.snapshot.SetPlacement(nil)
	}()
	return f()
}

// groupSimulation is the cluster a PodGroupPostFilter plugin changes to
// try its group again: the scheduler's snapshot, frozen while the plugin
// runs (Scheduler.simulating) and restored after it.
type groupSimulation struct {
	s *Scheduler
	// tree is the cycle of the group's hierarchy (a lone PodGroup's is a
	// hierarchy of one), which ScheduleGroup runs again.
	tree *compositeCycle
	// tried are the cycle states of the members the failed cycle tried.
	tried map[types.UID]*framework.CycleState
}

var _ framework.PodGroupSimulation = (*groupSimulation)(nil)

// RemovePod takes a pod off the named node in the snapshot.
func (g *groupSimulation) RemovePod(pod *v1.Pod, nodeName string) error {
	return g.s.snapshot.RemovePod(pod, nodeName)
}

// AddPod puts a pod on the named node in the snapshot.
func (g *groupSimulation) AddPod(pi *framework.PodInfo, nodeName string) error {
	return g.s.snapshot.AddPod(pi, nodeName)
}

// ScheduleGroup runs the group's cycle on the snapshot as it stands, with
// fresh cycle states, and returns the members it placed.
func (g *groupSimulation) ScheduleGroup(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
	return g.tree.scheduleTree(ctx)
}

// TriedMembers are the cycle states of the members the failed cycle tried.
func (g *groupSimulation) TriedMembers() map[types.UID]*framework.CycleState { return g.tried }

// failGroup requeues every member of a group its cycle did not place and
// tells each why, as kube-scheduler does: a member that did not fit says
// why it did not, a member that fitted says why its group did not, and a
// member the cycle did not reach carries the group's reason. The PodGroup
// reads PodGroupInitiallyScheduled=False with the group's reason.
func (s *Scheduler) failGroup(ctx context.Context, prof *profile.Profile, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo, outcome groupFailure, start time.Time, cycle int64) {
	logger := klog.FromContext(ctx)
	evaluated := make(map[*framework.QueuedPodInfo]*memberResult)
	if outcome.tried != nil {
		for i := range outcome.tried.members {
			m := &outcome.tried.members[i]
			evaluated[m.qpi] = m
		}
	}
	status, groupMsg := outcome.full, outcome.full.message()
	for _, qpi := range members {
		mctx := klog.NewContext(ctx, loggerFor(ctx, qpi.Pod))
		// The members back off as one group of this size.
		qpi.GroupSize = len(members)
		if outcome.size > 0 {
			qpi.GroupSize = outcome.size
		}
		m := evaluated[qpi]
		var err error
		switch {
		case m != nil && m.err != nil:
			err = m.err
		case status.code == framework.Error:
			err = errors.New(groupMsg)
		case m != nil && outcome.preempting:
			// It fitted, and waits for the room its group's preemption
			// makes. A member that failed for its group names no plugin,
			// as upstream's: any event may help it.
			err = &groupUnschedulableError{msg: groupMsg}
		case m != nil:
			// It fitted; its group did not.
			err = &groupUnschedulableError{msg: unschedulableGroup(groupMsg).message()}
		default:
			// The cycle did not reach it.
			err = &groupUnschedulableError{msg: outcome.status.message()}
		}
		s.handleFailure(mctx, prof, qpi, &schedulingFailure{err: err, nominating: outcome.nominating(qpi, m), groupFailed: !outcome.remainder, leftOut: outcome.remainder}, start, cycle)
	}
	cond := metav1.Condition{
		Type:    schedulingv1beta1.PodGroupInitiallyScheduled,
		Status:  metav1.ConditionFalse,
		Reason:  schedulingv1beta1.PodGroupReasonUnschedulable,
		Message: groupMsg,
	}
	if status.code == framework.Error {
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
func (s *Scheduler) patchGroupCondition(ctx context.Context, pg *schedulingv1beta1.PodGroup, cond metav1.Condition) {
	logger := klog.FromContext(ctx)
	s.bindings.Add(1)
	go func() {
		defer s.bindings.Done()
		if err := s.workloads.PatchCondition(context.WithoutCancel(ctx), s.client, pg, cond); err != nil {
			logger.Error(err, "Updating the PodGroup's status")
		}
	}()
}
