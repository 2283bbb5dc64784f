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
	"slices"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/shadow"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// groupShadowJob is a PodGroup cycle's part of a shadow job: what the
// shadows need to run the same cycle dry, copied on the scheduling loop
// so that the worker reads nothing the loop changes.
type groupShadowJob struct {
	pg *schedulingv1beta1.PodGroup
	// node is pg as the placement plugins are handed it.
	node *framework.GroupNode
	// pods are the cycle's members, in its order.
	pods []*v1.Pod
	// scheduled counts the group's members bound or assumed before the
	// cycle, as the cycle's PlacementFeasible progress starts from.
	scheduled int
	// liveGenerator names the live profile's PlacementGenerate plugin.
	liveGenerator string
	live          shadow.LiveGroup
}

// beginGroupShadow samples the shadows of the pod's schedulerName for the
// cycle of pg about to start, as beginShadow does for a pod: the cycle's
// snapshot update then brings the shadows' snapshot along. It runs on the
// scheduling loop and costs nothing when no shadow is sampled.
func (s *Scheduler) beginGroupShadow(pod *v1.Pod, fwk *runtime.Framework, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo) {
	s.beginShadow(pod, fwk)
	job := s.shadows.pending
	if job == nil {
		return
	}
	job.reuse = false
	g := &groupShadowJob{
		pg:            pg,
		node:          framework.PodGroupNode(pg),
		pods:          make([]*v1.Pod, len(members)),
		scheduled:     len(framework.ScheduledMembers(s.workloads, framework.RefOf(pg))),
		liveGenerator: fwk.PlacementGeneratorName(),
		live:          shadow.LiveGroup{PodGroup: pg.Namespace + "/" + pg.Name},
	}
	for i, m := range members {
		g.pods[i] = m.Pod
	}
	job.group = g
}

// endGroupShadow hands the cycle's group job, if any, to the worker with
// the live decision: the placement chosen and each member's node, or the
// plugins that kept the group out. A cycle that ended in an error gives
// the worker back.
func (s *Scheduler) endGroupShadow(best *placementResult, status groupStatus) {
	job := s.shadows.pending
	if job == nil || job.group == nil {
		return
	}
	s.shadows.pending = nil
	live := &job.group.live
	switch {
	case status.success() && best != nil:
		live.Placed, live.Placement = true, best.placement.Name
		live.Nodes = make(map[string]string, len(best.members))
		for _, m := range best.members {
			if m.err == nil {
				live.Nodes[framework.PodKey(m.qpi.Pod)] = m.result.host
			}
		}
	case status.rejected():
		live.Rejecting = groupRejecting(best)
		if best == nil && job.group.liveGenerator != "" {
			live.Rejecting = []string{job.group.liveGenerator}
		}
	default:
		s.shadows.idle <- struct{}{}
		return
	}
	s.shadows.jobs <- job
}

// groupRejecting names the plugins that rejected the members of a try
// that did not admit its group, or GangScheduling when none did (the
// group's own verdict).
func groupRejecting(r *placementResult) []string {
	plugins := sets.New[string]()
	if r != nil {
		for _, m := range r.members {
			var fitErr *framework.FitError
			if errors.As(m.err, &fitErr) {
				plugins = plugins.Union(fitErr.Diagnosis.UnschedulablePlugins)
			}
		}
	}
	if plugins.Len() == 0 {
		return []string{names.GangScheduling}
	}
	return sets.List(plugins)
}

// shadowWorkloads are the PodGroups as the shadow profiles' plugins see
// them: the scheduler's, except that while a group cycle is evaluated its
// members read as they were before the live cycle, unplaced, although the
// live cycle may have assumed or bound them since.
type shadowWorkloads struct {
	framework.WorkloadLister
	// cycle holds the UIDs of the members of the cycle under evaluation;
	// only the shadows' worker sets and reads it.
	cycle map[types.UID]bool
}

// Members returns the group's members, those of the cycle as not bound.
func (w *shadowWorkloads) Members(ref framework.GroupRef) []*v1.Pod {
	members := w.WorkloadLister.Members(ref)
	if len(w.cycle) == 0 {
		return members
	}
	out := make([]*v1.Pod, len(members))
	for i, m := range members {
		out[i] = m
		if w.cycle[m.UID] && m.Spec.NodeName != "" {
			out[i] = assumedCopy(m, "")
		}
	}
	return out
}

// IsPlaced reports whether the pod is assumed or bound, and not of the cycle.
func (w *shadowWorkloads) IsPlaced(pod *v1.Pod) bool { return w.NodeOf(pod) != "" }

// NodeOf returns the pod's node, "" for a member of the cycle.
func (w *shadowWorkloads) NodeOf(pod *v1.Pod) string {
	if w.cycle[pod.UID] {
		return ""
	}
	return w.WorkloadLister.NodeOf(pod)
}

// evaluateGroupShadow runs one shadow profile's dry run of the job's group
// cycle, compares it with the live decision and records the outcome.
func (s *Scheduler) evaluateGroupShadow(ctx context.Context, p *ShadowProfile, job *shadowJob) {
	logger := klog.FromContext(ctx).WithValues("podGroup", job.group.live.PodGroup, "shadowProfile", p.Source)
	w := s.shadows.workloads
	w.cycle = make(map[types.UID]bool, len(job.group.pods))
	for _, pod := range job.group.pods {
		w.cycle[pod.UID] = true
	}
	defer func() { w.cycle = nil }()
	e, err := s.shadowGroupEvaluation(ctx, p.Framework, job)
	if err != nil {
		logger.V(2).Info("Shadow evaluation of a pod group failed", "err", err)
		p.recorder.Count(shadow.OutcomeError)
		s.metrics.CountShadowDecision(p.Source, shadow.OutcomeError)
		return
	}
	pod, d := shadow.CompareGroup(job.group.live, e)
	p.recorder.Record(pod, d)
	s.metrics.CountShadowDecision(p.Source, d.Outcome)
	logger.V(4).Info("Shadow evaluated a pod group", "outcome", d.Outcome, "livePlacement", d.LivePlacement, "shadowPlacement", d.ShadowPlacement, "pod", pod, "deciding", d.Deciding)
}

// groupTry is one placement's dry try by a shadow.
type groupTry struct {
	placement *framework.Placement
	fits      bool
	// assignments are the members placed.
	assignments []framework.ProposedAssignment
	// rejecting names the plugins that kept the group out, when it does not fit.
	rejecting []string
	// member is the first member placed otherwise than the live cycle did,
	// when the placement is the live one.
	member *shadow.MemberDecision
}

// shadowGroupEvaluation runs the group's cycle with fwk on the shadows'
// snapshot, as the scheduling loop would have: every placement the
// PlacementGenerate plugins propose is tried by placing the members one
// after another (on the snapshot alone; nothing is assumed, reserved or
// bound, and no PodGroupPostFilter runs) until PlacementFeasible admits
// or gives up on the group, and the placements where it fits are ranked
// by the PlacementScore plugins. Where the live cycle chose among equals
// at random (two nodes for a member, two placements), the shadow takes the
// live choice, so that a tie counts as agreement, as for a single pod.
func (s *Scheduler) shadowGroupEvaluation(ctx context.Context, fwk *runtime.Framework, job *shadowJob) (shadow.GroupEvaluation, error) {
	g := job.group
	e := shadow.GroupEvaluation{Generator: fwk.PlacementGeneratorName()}
	if e.Generator == "" {
		e.Generator = g.liveGenerator
	}
	if len(g.pods) > 0 {
		e.FirstMember = framework.PodKey(g.pods[0])
	}
	snap := s.shadows.snapshot
	if snap.NumNodes() == 0 {
		return e, errNoNodes
	}
	defer snap.SetPlacement(nil)
	all := snap.CandidateNodes()
	placements, st := fwk.RunPlacementGeneratePlugins(ctx, g.node, &framework.Placement{Nodes: all})
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return e, st.AsError()
		}
		e.Rejecting = []string{st.Plugin()}
		return e, nil
	}
	rejecting := sets.New[string]()
	var fits []*groupTry
	next := job.start
	for _, p := range placements {
		snap.SetPlacement(placementNodes(p, len(all)))
		t, err := s.shadowTryPlacement(ctx, fwk, snap, g, p, &next)
		snap.Restore()
		if err != nil {
			return e, err
		}
		if g.live.Placed && p.Name == g.live.Placement {
			e.LiveGenerated = true
			if !t.fits {
				e.LiveRejecting = t.rejecting
			}
		}
		if t.fits {
			fits = append(fits, t)
		} else {
			rejecting.Insert(t.rejecting...)
		}
	}
	if len(fits) == 0 {
		e.Rejecting = sets.List(rejecting)
		return e, nil
	}
	assignments := make([]*framework.PodGroupAssignments, len(fits))
	for i, t := range fits {
		assignments[i] = &framework.PodGroupAssignments{Placement: t.placement, Assignments: t.assignments}
	}
	scores, st := fwk.ScorePlacements(ctx, g.node, assignments)
	if !st.IsSuccess() {
		return e, st.AsError()
	}
	best := 0
	for i := 1; i < len(scores); i++ {
		top := scores[best].TotalScore
		if scores[i].TotalScore > top || (scores[i].TotalScore == top && fits[i].placement.Name == g.live.Placement && g.live.Placed) {
			best = i
		}
	}
	e.Placed, e.Placement, e.Scores, e.Member = true, fits[best].placement.Name, scores, fits[best].member
	return e, nil
}

// shadowTryPlacement places the group's members one after another in the
// snapshot's current placement, each on the snapshot alone, as
// tryPlacement does; the caller restores the snapshot.
func (s *Scheduler) shadowTryPlacement(ctx context.Context, fwk *runtime.Framework, snap *schedcache.Snapshot, g *groupShadowJob, p *framework.Placement, next *int) (*groupTry, error) {
	t := &groupTry{placement: p}
	compare := g.live.Placed && p.Name == g.live.Placement
	progress := framework.PlacementProgress{Remaining: len(g.pods), Scheduled: g.scheduled}
	st := fwk.RunPlacementFeasiblePlugins(ctx, g.node, progress)
	switch st.Code() {
	case framework.Error:
		return nil, fmt.Errorf("evaluating placement feasibility: %w", st.AsError())
	case framework.Unschedulable:
		t.rejecting = []string{st.Plugin()}
		return t, nil
	}
	rejecting := sets.New[string]()
	for _, pod := range g.pods {
		liveNode := ""
		if compare {
			liveNode = g.live.Nodes[framework.PodKey(pod)]
		}
		host, d, rejectedBy, err := s.shadowPlaceMember(ctx, fwk, snap, pod, liveNode, compare, next)
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", framework.PodKey(pod), err)
		}
		progress.Remaining--
		if host != "" {
			pi, err := framework.NewPodInfo(assumedCopy(pod, host))
			if err != nil {
				return nil, fmt.Errorf("member %s: %w", framework.PodKey(pod), err)
			}
			if err := snap.AddPod(pi, host); err != nil {
				return nil, fmt.Errorf("member %s on node %s: %w", framework.PodKey(pod), host, err)
			}
			progress.Scheduled++
			t.assignments = append(t.assignments, framework.ProposedAssignment{Pod: pod, NodeName: host})
		} else {
			rejecting.Insert(rejectedBy...)
		}
		if compare && t.member == nil && d.Outcome != shadow.OutcomeAgreed {
			t.member = &shadow.MemberDecision{Pod: framework.PodKey(pod), Decision: d}
		}
		st = fwk.RunPlacementFeasiblePlugins(ctx, g.node, progress)
		if st.Code() == framework.Error {
			return nil, fmt.Errorf("evaluating placement feasibility: %w", st.AsError())
		}
		if st.Code() == framework.Unschedulable {
			break
		}
	}
	t.fits = st.IsSuccess()
	if !t.fits {
		if rejecting.Len() == 0 {
			rejecting.Insert(names.GangScheduling)
		}
		t.rejecting = sets.List(rejecting)
	}
	return t, nil
}

// shadowPlaceMember finds one member's node in the snapshot's current
// placement, with the cycle's search and scoring. With compare, the
// member's node is compared with liveNode, where the live cycle put it
// ("" when it placed it nowhere), as a single pod's is, and the live node
// is taken when it is among the shadow's best. It returns "" and the
// rejecting plugins when no node fits.
func (s *Scheduler) shadowPlaceMember(ctx context.Context, fwk *runtime.Framework, snap *schedcache.Snapshot, pod *v1.Pod, liveNode string, compare bool, next *int) (string, shadow.Decision, []string, error) {
	var d shadow.Decision
	if snap.NumCandidateNodes() == 0 {
		d = shadow.Compare(shadow.Live{Node: liveNode}, shadow.Evaluation{})
		return "", d, nil, nil
	}
	state := framework.NewCycleState()
	feasible, diagnosis, err := findFeasibleNodes(ctx, fwk, snap, state, pod, next)
	if err != nil {
		return "", d, nil, err
	}
	defer fwk.ReleaseFeasible(feasible)
	e := shadow.Evaluation{}
	nodes := feasible
	if liveNode != "" && !slices.ContainsFunc(feasible, func(ni *framework.NodeInfo) bool { return ni.Name() == liveNode }) {
		switch st := diagnosis.NodeToStatus.Get(liveNode); {
		case st != nil && !st.IsSuccess():
			e.RejectedLive = st.Plugin()
		case len(feasible) > 0:
			// The search ended before the live node.
			if ni, err := snap.NodeInfos().Get(liveNode); err == nil {
				if st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); st.IsSuccess() {
					nodes = append(slices.Clip(feasible), ni)
				} else {
					e.RejectedLive = st.Plugin()
				}
			}
		}
	}
	for _, ni := range nodes {
		e.Feasible = append(e.Feasible, ni.Name())
	}
	if len(nodes) == 0 {
		e.Rejecting = sets.List(diagnosis.UnschedulablePlugins)
		if compare {
			d = shadow.Compare(shadow.Live{Node: liveNode}, e)
		}
		return "", d, e.Rejecting, nil
	}
	if len(nodes) > 1 {
		scores, err := prioritizeNodes(ctx, fwk, state, pod, nodes)
		if err != nil {
			return "", d, nil, fmt.Errorf("scoring: %w", err)
		}
		defer fwk.ReleaseScores(scores)
		e.Scores = scores
	}
	if compare {
		d = shadow.Compare(shadow.Live{Node: liveNode}, e)
		if d.ShadowNode != "" {
			return d.ShadowNode, d, nil, nil
		}
	}
	if len(e.Scores) == 0 {
		return e.Feasible[0], d, nil, nil
	}
	host, err := runtime.SelectHost(e.Scores, nil)
	if err != nil {
		return "", d, nil, fmt.Errorf("selecting a node: %w", err)
	}
	return host, d, nil, nil
}
