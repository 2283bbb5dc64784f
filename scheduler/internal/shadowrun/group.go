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

package shadowrun

import (
	"context"
	"errors"
	"slices"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/shadow"
)

// groupJob is a PodGroup cycle's part of a shadow job: what the
// shadows need to run the same cycle dry, copied on the scheduling loop
// so that the worker reads nothing the loop changes.
type groupJob struct {
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

// BeginGroup samples the shadows of the pod's schedulerName for the cycle
// of pg about to start, as Begin does for a pod: members are the cycle's,
// in its order, and scheduled counts the group's members placed before
// it. It runs on the scheduling loop and costs nothing when no shadow is
// sampled.
func (r *Runner) BeginGroup(pod *v1.Pod, fwk *runtime.Framework, start int, pg *schedulingv1beta1.PodGroup, members []*v1.Pod, scheduled int) {
	r.Begin(pod, fwk, start)
	j := r.pending
	if j == nil {
		return
	}
	j.reuse = false
	j.group = &groupJob{
		pg:            pg,
		node:          framework.PodGroupNode(pg),
		pods:          members,
		scheduled:     scheduled,
		liveGenerator: fwk.PlacementGeneratorName(),
		live:          shadow.LiveGroup{PodGroup: pg.Namespace + "/" + pg.Name},
	}
}

// EndGroup hands the cycle's group job, if any, to the worker with
// the live decision: the placement chosen and each member's node, or the
// plugins that kept the group out. A cycle that ended in an error gives
// the worker back.
func (r *Runner) EndGroup(best *algorithm.PlacementResult, status algorithm.Status) {
	j := r.pending
	if j == nil || j.group == nil {
		return
	}
	r.pending = nil
	live := &j.group.live
	switch {
	case status.Success() && best != nil:
		live.Placed, live.Placement = true, best.Placement.Name
		live.Nodes = make(map[string]string, len(best.Members))
		for _, m := range best.Members {
			if m.Err == nil {
				live.Nodes[framework.PodKey(m.QPI.Pod)] = m.Result.Host
			}
		}
	case status.Rejected():
		live.Rejecting = groupRejecting(best)
		if best == nil && j.group.liveGenerator != "" {
			live.Rejecting = []string{j.group.liveGenerator}
		}
	default:
		r.idle <- struct{}{}
		return
	}
	r.jobs <- j
}

// groupRejecting names the plugins that rejected the members of a try
// that did not admit its group, or GangScheduling when none did (the
// group's own verdict).
func groupRejecting(r *algorithm.PlacementResult) []string {
	plugins := sets.New[string]()
	if r != nil {
		for _, m := range r.Members {
			var fitErr *framework.FitError
			if errors.As(m.Err, &fitErr) {
				plugins = plugins.Union(fitErr.Diagnosis.UnschedulablePlugins)
			}
		}
	}
	if plugins.Len() == 0 {
		return []string{names.GangScheduling}
	}
	return sets.List(plugins)
}

// cycleWorkloads are the PodGroups as the shadow profiles' plugins see
// them: the scheduler's, except that while a group cycle is evaluated its
// members read as they were before the live cycle, unplaced, although the
// live cycle may have assumed or bound them since.
type cycleWorkloads struct {
	framework.WorkloadLister
	// cycle holds the UIDs of the members of the cycle under evaluation;
	// only the shadows' worker sets and reads it.
	cycle map[types.UID]bool
}

// Members returns the group's members, those of the cycle as not bound.
func (w *cycleWorkloads) Members(ref framework.GroupRef) []*v1.Pod {
	members := w.WorkloadLister.Members(ref)
	if len(w.cycle) == 0 {
		return members
	}
	out := make([]*v1.Pod, len(members))
	for i, m := range members {
		out[i] = m
		if w.cycle[m.UID] && m.Spec.NodeName != "" {
			out[i] = algorithm.AssumedCopy(m, "")
		}
	}
	return out
}

// IsPlaced reports whether the pod is assumed or bound, and not of the cycle.
func (w *cycleWorkloads) IsPlaced(pod *v1.Pod) bool { return w.NodeOf(pod) != "" }

// NodeOf returns the pod's node, "" for a member of the cycle.
func (w *cycleWorkloads) NodeOf(pod *v1.Pod) string {
	if w.cycle[pod.UID] {
		return ""
	}
	return w.WorkloadLister.NodeOf(pod)
}

// evaluateGroup runs one shadow profile's dry run of the job's group
// cycle, compares it with the live decision and records the outcome.
func (r *Runner) evaluateGroup(ctx context.Context, p *Profile, j *job) {
	logger := klog.FromContext(ctx).WithValues("podGroup", j.group.live.PodGroup, "shadowProfile", p.Source)
	w := r.workloads
	w.cycle = make(map[types.UID]bool, len(j.group.pods))
	for _, pod := range j.group.pods {
		w.cycle[pod.UID] = true
	}
	defer func() { w.cycle = nil }()
	e, err := r.groupEvaluation(ctx, p.Framework, j)
	if err != nil {
		logger.V(2).Info("Shadow evaluation of a pod group failed", "err", err)
		r.count(p, shadow.OutcomeError)
		return
	}
	pod, d := shadow.CompareGroup(j.group.live, e)
	p.recorder.Record(pod, d)
	r.counter.CountShadowDecision(p.Source, d.Outcome)
	logger.V(4).Info("Shadow evaluated a pod group", "outcome", d.Outcome, "livePlacement", d.LivePlacement, "shadowPlacement", d.ShadowPlacement, "pod", pod, "deciding", d.Deciding)
}

// groupEvaluation runs the group's cycle with fwk on the shadows'
// snapshot, as the scheduling loop would have, through the same algorithm:
// every placement the PlacementGenerate plugins propose is tried by
// placing the members one after another (on the snapshot alone; nothing
// is reserved, assumed or bound, and no PodGroupPostFilter runs) until
// PlacementFeasible admits or gives up on the group, and the placements
// where it fits are ranked by the PlacementScore plugins. Where the live
// cycle chose among equals at random (two nodes for a member, two
// placements), the shadow takes the live choice, so that a tie counts as
// agreement, as for a single pod.
func (r *Runner) groupEvaluation(ctx context.Context, fwk *runtime.Framework, j *job) (shadow.GroupEvaluation, error) {
	g := j.group
	e := shadow.GroupEvaluation{Generator: fwk.PlacementGeneratorName()}
	if e.Generator == "" {
		e.Generator = g.liveGenerator
	}
	if len(g.pods) > 0 {
		e.FirstMember = framework.PodKey(g.pods[0])
	}
	snap := r.snapshot
	if snap.NumNodes() == 0 {
		return e, algorithm.ErrNoNodes
	}
	members := make([]*framework.QueuedPodInfo, len(g.pods))
	for i, pod := range g.pods {
		members[i] = &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: pod}}
	}
	live := &liveGroupChoice{live: g.live}
	next := j.start
	env := algorithm.Env{Framework: fwk, Snapshot: snap, Next: &next, SkipReserve: true, Prefer: live, OnSearch: live.compare}
	tries, status := algorithm.TryEachPlacement(ctx, env, g.node, members, g.scheduled)
	switch {
	case status.Code == framework.Error:
		return e, errors.New(status.Message())
	case !status.Success():
		// No placement could be generated.
		e.Rejecting = []string{status.Plugin}
		return e, nil
	}
	rejecting := sets.New[string]()
	var fits []*algorithm.PlacementResult
	for _, r := range tries {
		fit := r.Status.Success()
		if g.live.Placed && r.Placement.Name == g.live.Placement {
			e.LiveGenerated = true
			if !fit {
				e.LiveRejecting = tryRejecting(r)
			}
		}
		if fit {
			fits = append(fits, r)
		} else {
			rejecting.Insert(tryRejecting(r)...)
		}
	}
	if len(fits) == 0 {
		e.Rejecting = sets.List(rejecting)
		return e, nil
	}
	best, scores, st := algorithm.RankPlacements(ctx, env, g.node, fits)
	if !st.Success() {
		return e, errors.New(st.Message())
	}
	e.Placed, e.Placement, e.Scores, e.Member = true, fits[best].Placement.Name, scores, live.member
	return e, nil
}

// tryRejecting names the plugins that kept a group out of a placement
// where it does not fit: the plugin that refused the placement before any
// member was tried, else those that rejected members, else GangScheduling.
func tryRejecting(r *algorithm.PlacementResult) []string {
	if len(r.Members) == 0 && r.Status.Plugin != "" {
		return []string{r.Status.Plugin}
	}
	return groupRejecting(r)
}

// liveGroupChoice is what a shadow's dry run of a group's cycle prefers
// among equals: the live cycle's placement, and each member's live node
// within it. It compares each member's search in the live placement with
// the live node, and keeps the first member placed otherwise.
type liveGroupChoice struct {
	live   shadow.LiveGroup
	member *shadow.MemberDecision
}

var _ algorithm.Preference = (*liveGroupChoice)(nil)

// inLive reports whether p is the placement the live cycle chose.
func (c *liveGroupChoice) inLive(p *framework.Placement) bool {
	return p != nil && c.live.Placed && p.Name == c.live.Placement
}

// Node is the member's live node within the live placement.
func (c *liveGroupChoice) Node(pod *v1.Pod, p *framework.Placement) string {
	if !c.inLive(p) {
		return ""
	}
	return c.live.Nodes[framework.PodKey(pod)]
}

// Placement is the live cycle's placement.
func (c *liveGroupChoice) Placement(*framework.GroupNode) string {
	if !c.live.Placed {
		return ""
	}
	return c.live.Placement
}

// compare compares a member's search in the live placement with where the
// live cycle put it ("" when nowhere), as a single pod's is compared.
func (c *liveGroupChoice) compare(pod *v1.Pod, p *framework.Placement, search algorithm.Search) {
	if c.member != nil || !c.inLive(p) {
		return
	}
	liveNode := c.live.Nodes[framework.PodKey(pod)]
	e := shadow.Evaluation{Scores: search.Scores, Feasible: make([]string, len(search.Feasible))}
	for i, ni := range search.Feasible {
		e.Feasible[i] = ni.Name()
	}
	switch {
	case len(e.Feasible) == 0:
		e.Rejecting = sets.List(search.Diagnosis.UnschedulablePlugins)
	case liveNode != "" && !slices.Contains(e.Feasible, liveNode):
		if st := search.Diagnosis.NodeToStatus.Get(liveNode); st != nil && !st.IsSuccess() {
			e.RejectedLive = st.Plugin()
		}
	}
	if d := shadow.Compare(shadow.Live{Node: liveNode}, e); d.Outcome != shadow.OutcomeAgreed {
		c.member = &shadow.MemberDecision{Pod: framework.PodKey(pod), Decision: d}
	}
}
