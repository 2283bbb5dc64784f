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
	"maps"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/shadow"
)

// groupJob is a group cycle's part of a shadow job: what the shadows need
// to run the same cycle dry, a lone PodGroup's or a CompositePodGroup
// hierarchy's, copied on the scheduling loop so that the worker reads
// nothing the loop changes.
type groupJob struct {
	// root is the group's tree: a PodGroup alone, or the CompositePodGroup
	// at the top of its hierarchy.
	root *framework.GroupNode
	// members are each PodGroup's members in the cycle's order, and
	// scheduled the members each had placed before the cycle.
	members   map[framework.GroupKey][]*v1.Pod
	scheduled map[framework.GroupKey]int
	// pods are every member of the cycle; leafOf maps each to its PodGroup.
	pods   []*v1.Pod
	leafOf map[types.UID]framework.GroupKey
	// liveGenerator names the live profile's PlacementGenerate plugin.
	liveGenerator string
	// live is what the live cycle decided for each PodGroup, and
	// placements the placement it chose for each node of the tree.
	live       map[framework.GroupKey]*shadow.LiveGroup
	placements map[framework.GroupKey]string
}

// BeginGroup samples the shadows of the pod's schedulerName for the cycle
// of the group under root about to start, as Begin does for a pod:
// members are each PodGroup's queued members in the cycle's order, and
// scheduled counts those each PodGroup had placed before it; what the
// worker needs of them is copied. It runs on the scheduling loop and costs
// nothing when no shadow is sampled.
func (r *Runner) BeginGroup(pod *v1.Pod, fwk *runtime.Framework, start int, root *framework.GroupNode, members map[framework.GroupKey][]*framework.QueuedPodInfo, scheduled map[framework.GroupKey]int) {
	r.Begin(pod, fwk, start)
	j := r.pending
	if j == nil {
		return
	}
	j.reuse = false
	g := &groupJob{
		root:          root,
		members:       make(map[framework.GroupKey][]*v1.Pod, len(members)),
		scheduled:     maps.Clone(scheduled),
		leafOf:        map[types.UID]framework.GroupKey{},
		liveGenerator: fwk.PlacementGeneratorName(),
		live:          map[framework.GroupKey]*shadow.LiveGroup{},
		placements:    map[framework.GroupKey]string{},
	}
	for _, leaf := range root.Leaves() {
		for _, m := range members[leaf.Key] {
			g.members[leaf.Key] = append(g.members[leaf.Key], m.Pod)
			g.pods = append(g.pods, m.Pod)
			g.leafOf[m.Pod.UID] = leaf.Key
		}
	}
	j.group = g
}

// EndGroup hands the cycle's group job, if any, to the worker with the
// live decisions, res: for each PodGroup the placement chosen and each
// member's node, or the plugins that kept it out. A cycle that ended in
// an error gives the worker back.
func (r *Runner) EndGroup(res algorithm.Outcomes) {
	j := r.pending
	if j == nil || j.group == nil {
		return
	}
	r.pending = nil
	g := j.group
	if root := res[g.root.Key]; root == nil || (!root.Status.Success() && !root.Status.Rejected()) {
		r.idle <- struct{}{}
		return
	}
	for key, o := range res {
		switch {
		case o.Placement != nil:
			g.placements[key] = o.Placement.Name
		case o.Try != nil && o.Status.Success():
			g.placements[key] = o.Try.Placement.Name
		}
	}
	for _, leaf := range g.root.Leaves() {
		o := res[leaf.Key]
		live := &shadow.LiveGroup{PodGroup: leaf.Key.Namespace + "/" + leaf.Key.Name}
		g.live[leaf.Key] = live
		switch {
		case o.Status.Success() && o.Try != nil:
			live.Placed, live.Placement = true, o.Try.Placement.Name
			live.Nodes = make(map[string]string, len(o.Try.Members))
			for _, m := range o.Try.Members {
				if m.Err == nil {
					live.Nodes[framework.PodKey(m.QPI.Pod)] = m.Result.Host
				}
			}
		default:
			live.Rejecting = groupRejecting(o.Try)
			if o.Try == nil && g.liveGenerator != "" {
				live.Rejecting = []string{g.liveGenerator}
			}
		}
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
// cycle, compares it with the live decisions and records the outcome: one
// per cycle, the first PodGroup, in the cycle's order, on which the two
// disagree, or agreement.
func (r *Runner) evaluateGroup(ctx context.Context, p *Profile, j *job) {
	g := j.group
	logger := klog.FromContext(ctx).WithValues("group", g.root.Key.Namespace+"/"+g.root.Key.Name, "shadowProfile", p.Source)
	w := r.workloads
	w.cycle = make(map[types.UID]bool, len(g.pods))
	for _, pod := range g.pods {
		w.cycle[pod.UID] = true
	}
	defer func() { w.cycle = nil }()
	evals, err := r.groupEvaluation(ctx, p.Framework, j)
	if err != nil {
		logger.V(2).Info("Shadow evaluation of a pod group failed", "err", err)
		r.count(p, shadow.OutcomeError)
		return
	}
	var pod string
	var d shadow.Decision
	for _, leaf := range g.root.Leaves() {
		e, ok := evals[leaf.Key]
		if !ok {
			continue
		}
		lp, ld := shadow.CompareGroup(*g.live[leaf.Key], e)
		if pod == "" || (d.Outcome == shadow.OutcomeAgreed && ld.Outcome != shadow.OutcomeAgreed) {
			pod, d = lp, ld
		}
	}
	if pod == "" {
		// A cycle with no member to compare.
		return
	}
	p.recorder.Record(pod, d)
	r.counter.CountShadowDecision(p.Source, d.Outcome)
	logger.V(4).Info("Shadow evaluated a pod group", "outcome", d.Outcome, "podGroup", d.PodGroup, "livePlacement", d.LivePlacement, "shadowPlacement", d.ShadowPlacement, "pod", pod, "deciding", d.Deciding)
}

// groupEvaluation runs the group's cycle with fwk on the shadows' snapshot,
// as the scheduling loop would have, with the algorithm's Cycle: every
// PodGroup tries each placement its PlacementGenerate plugins propose,
// placing its members one after another (on the snapshot alone; nothing is
// reserved, assumed or bound, and no PodGroupPostFilter runs), a
// CompositePodGroup its children, and each keeps its best placement. Where
// the live cycle chose among equals at random (two nodes for a member, two
// placements), the shadow takes the live choice, so that a tie counts as
// agreement, as for a single pod. It returns the evaluation of each
// PodGroup with members.
func (r *Runner) groupEvaluation(ctx context.Context, fwk *runtime.Framework, j *job) (map[framework.GroupKey]shadow.GroupEvaluation, error) {
	g := j.group
	if r.snapshot.NumNodes() == 0 {
		return nil, algorithm.ErrNoNodes
	}
	generator := fwk.PlacementGeneratorName()
	if generator == "" {
		generator = g.liveGenerator
	}
	members := make(map[framework.GroupKey][]*framework.QueuedPodInfo, len(g.members))
	for key, pods := range g.members {
		for _, pod := range pods {
			members[key] = append(members[key], &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: pod}})
		}
	}
	live := &liveChoice{job: g, member: map[framework.GroupKey]*shadow.MemberDecision{}}
	next := j.start
	c := &algorithm.Cycle{
		Env: algorithm.Env{
			Framework: fwk, Snapshot: r.snapshot, Next: &next, SkipReserve: true, Record: true,
			Prefer: live, OnSearch: live.compare,
		},
		Root: g.root, Members: members, Scheduled: g.scheduled,
	}
	res := c.Run(ctx)
	if st := res[g.root.Key].Status; st.Code == framework.Error {
		return nil, errors.New(st.Message())
	}
	out := make(map[framework.GroupKey]shadow.GroupEvaluation, len(g.members))
	for _, leaf := range g.root.Leaves() {
		pods := g.members[leaf.Key]
		if len(pods) == 0 {
			continue
		}
		o, lg := res[leaf.Key], g.live[leaf.Key]
		e := shadow.GroupEvaluation{Generator: generator, FirstMember: framework.PodKey(pods[0])}
		rejecting := sets.New[string]()
		for _, t := range o.Tries {
			fit := t.Status.Success()
			if lg.Placed && t.Placement.Name == lg.Placement {
				e.LiveGenerated = true
				if !fit {
					e.LiveRejecting = tryRejecting(t)
				}
			}
			if !fit {
				rejecting.Insert(tryRejecting(t)...)
			}
		}
		switch {
		case o.Status.Success() && o.Try != nil:
			e.Placed, e.Placement, e.Member = true, o.Try.Placement.Name, live.member[leaf.Key]
			if o.Try.Group != nil {
				e.Scores = o.Try.Group.Placements
			}
		case len(o.Tries) == 0 && o.Status.Plugin != "":
			// No placement could be generated.
			e.Rejecting = []string{o.Status.Plugin}
		case rejecting.Len() > 0:
			e.Rejecting = sets.List(rejecting)
		default:
			e.Rejecting = []string{names.GangScheduling}
		}
		out[leaf.Key] = e
	}
	return out, nil
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

// liveChoice is what a shadow's dry run of a group's cycle prefers among
// equals: the placement the live cycle chose for each node of the tree,
// and each member's live node within its PodGroup's live placement. It
// compares each member's search in that placement with the live node, and
// keeps, for each PodGroup, the first member placed otherwise.
type liveChoice struct {
	job    *groupJob
	member map[framework.GroupKey]*shadow.MemberDecision
}

var _ algorithm.Preference = (*liveChoice)(nil)

// liveNode returns the PodGroup of the member, and its live node when p is
// its PodGroup's live placement.
func (c *liveChoice) liveNode(pod *v1.Pod, p *framework.Placement) (framework.GroupKey, string, bool) {
	key, ok := c.job.leafOf[pod.UID]
	if !ok || p == nil {
		return key, "", false
	}
	lg := c.job.live[key]
	if lg == nil || !lg.Placed || p.Name != lg.Placement {
		return key, "", false
	}
	return key, lg.Nodes[framework.PodKey(pod)], true
}

// Node is the member's live node within its PodGroup's live placement.
func (c *liveChoice) Node(pod *v1.Pod, p *framework.Placement) string {
	_, node, _ := c.liveNode(pod, p)
	return node
}

// Placement is the placement the live cycle chose for n.
func (c *liveChoice) Placement(n *framework.GroupNode) string { return c.job.placements[n.Key] }

// compare compares a member's search in its PodGroup's live placement with
// where the live cycle put it ("" when nowhere), as a single pod's is
// compared.
func (c *liveChoice) compare(pod *v1.Pod, p *framework.Placement, search algorithm.Search) {
	key, liveNode, inLive := c.liveNode(pod, p)
	if !inLive || c.member[key] != nil {
		return
	}
	e := liveEvaluation(search.Feasible, search.Diagnosis, search.Scores, liveNode)
	if d := shadow.Compare(shadow.Live{Node: liveNode}, e); d.Outcome != shadow.OutcomeAgreed {
		c.member[key] = &shadow.MemberDecision{Pod: framework.PodKey(pod), Decision: d}
	}
}
