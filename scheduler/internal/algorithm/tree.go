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

package algorithm

import (
	"context"
	"maps"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
)

// Outcome is what a group's cycle made of one node of its tree.
type Outcome struct {
	Node *framework.GroupNode
	// Status is the node's outcome. A node whose parent failed shares the
	// parent's status, as upstream's results do, so that what the
	// PodGroupPostFilter plugins answer is added to it once per node.
	Status *Status
	// Try is a PodGroup's try whose members are reported: the placement
	// chosen, or the first one tried when none fits; nil for a
	// CompositePodGroup, for a PodGroup whose placements could not be
	// generated and for one that failed with its parent.
	Try *PlacementResult
	// Tries are a PodGroup's tries in every placement.
	Tries []*PlacementResult
	// Placed reports whether the node placed a member in this cycle.
	Placed bool
	// Placement is the placement a CompositePodGroup that fits chose; nil
	// for a PodGroup (its Try names it) and for a node that does not fit.
	Placement *framework.Placement
}

// Outcomes are a cycle's nodes' outcomes, by key.
type Outcomes map[framework.GroupKey]*Outcome

// Cycle is the scheduling cycle of a group: a PodGroup alone (a tree of
// one), or a hierarchy of PodGroups under a CompositePodGroup, as
// kube-scheduler v1.37 runs both through one algorithm. Each node tries
// every placement its PlacementGenerate plugins propose within its
// parent's placement; a PodGroup places its members one after another in
// each placement, a CompositePodGroup its children in turn (each child
// whole or not at all), until PlacementFeasible admits it or gives up on
// it; each keeps the best placement where it fits, whose members stay held
// on the snapshot while the PodGroups after it are tried. Nothing
// backtracks across siblings.
type Cycle struct {
	Env  Env
	Root *framework.GroupNode
	// Members are each PodGroup's queued members, in the order they are
	// placed (SortMembers).
	Members map[framework.GroupKey][]*framework.QueuedPodInfo
	// Scheduled count each PodGroup's members placed before the cycle.
	Scheduled map[framework.GroupKey]int
}

// Run evaluates the tree on the snapshot, leaving it as it found it, and
// returns every node's outcome with the failures of CompositePodGroups
// handed down to the nodes below them.
func (c *Cycle) Run(ctx context.Context) Outcomes {
	defer Isolate(c.Env.Snapshot)()
	res := Outcomes{}
	o, held := c.evaluate(ctx, c.Root, res)
	c.release(ctx, held)
	if o.Status.Success() && !o.Placed {
		// A cycle succeeds only when it places a member.
		o.Status = ptr.To(GroupUnschedulable())
	}
	completeOutcomes(c.Root, res, nil)
	return res
}

// Failed are the outcomes of a cycle that could not run: every node
// shares st.
func Failed(root *framework.GroupNode, st Status) Outcomes {
	res := Outcomes{root.Key: {Node: root, Status: &st}}
	completeOutcomes(root, res, nil)
	return res
}

// Schedule runs the cycle again on the snapshot as it stands, with fresh
// cycle states, and returns the members it placed: a PodGroupPostFilter
// plugin's simulation of the group.
func (c *Cycle) Schedule(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
	res := c.Run(ctx)
	out := &framework.PodGroupAssignments{}
	for _, leaf := range c.Root.Leaves() {
		if o := res[leaf.Key]; o.Try != nil {
			out.Assignments = append(out.Assignments, o.Try.Assignments().Assignments...)
		}
	}
	status := res[c.Root.Key].Status
	if status.Success() {
		return out, nil
	}
	return out, framework.NewStatus(status.Code, status.Message())
}

// evaluate tries a node in the snapshot's current placement and records
// its outcome (and its subtree's) in res; it returns the tries whose
// members it left held on the snapshot, for the caller to release.
func (c *Cycle) evaluate(ctx context.Context, n *framework.GroupNode, res Outcomes) (*Outcome, []*PlacementResult) {
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
func (c *Cycle) leaf(ctx context.Context, n *framework.GroupNode) (*Outcome, []*PlacementResult) {
	o := &Outcome{Node: n}
	tries, status := TryEachPlacement(ctx, c.Env, n, c.Members[n.Key], c.Scheduled[n.Key])
	o.Tries = tries
	if !status.Success() {
		if len(tries) > 0 {
			o.Try = tries[len(tries)-1]
		}
		o.Status = &status
		return o, nil
	}
	if len(tries) == 0 {
		o.Status = ptr.To(GroupUnschedulable("0/0 placements are available"))
		return o, nil
	}
	var feasible []*PlacementResult
	for _, r := range tries {
		if r.Status.Success() {
			feasible = append(feasible, r)
		}
	}
	if len(feasible) == 0 {
		o.Try = tries[0]
		o.Status = ptr.To(NoPlacementFits(len(tries), o.Try.Status))
		return o, nil
	}
	// As upstream, a single placement where the group fits is not scored.
	best := feasible[0]
	if len(feasible) > 1 {
		var status Status
		if best, status = bestPlacement(ctx, c.Env, n, feasible); !status.Success() {
			o.Status = &status
			return o, nil
		}
	}
	if c.Env.Record {
		if best.Group == nil {
			best.Group = &decisions.Group{Placement: best.Placement.Name, Feasible: 1}
		}
		best.Group.PodGroup = n.Key.Namespace + "/" + n.Key.Name
		best.Group.TopologyKey, _ = framework.TopologyKeyOf(n.PodGroup)
		best.Group.Tried = len(tries)
	}
	o.Try, o.Status, o.Placed = best, ptr.To(best.Status), best.PlacedAny()
	if n == c.Root {
		return o, nil
	}
	if err := holdAgain(ctx, c.Env, best); err != nil {
		revert(ctx, c.Env, best)
		o.Status, o.Placed = ptr.To(Errorf("failed to assume the subtree: %v", err)), false
		return o, nil
	}
	return o, []*PlacementResult{best}
}

// composite tries a CompositePodGroup's children in each of its
// placements and holds the members of its subtree's best one.
func (c *Cycle) composite(ctx context.Context, n *framework.GroupNode, res Outcomes) (*Outcome, []*PlacementResult) {
	snap := c.Env.Snapshot
	placements, st := c.Env.Framework.RunPlacementGeneratePlugins(ctx, n, &framework.Placement{Nodes: snap.CandidateNodes()})
	if !st.IsSuccess() {
		o := &Outcome{Node: n, Status: ptr.To(FromStatus(st))}
		res[n.Key] = o
		return o, nil
	}
	parent := snap.Placement()
	defer snap.SetPlacement(parent)
	var first Outcomes
	var fits []Outcomes
	var fitPlacements []*framework.Placement
	for _, p := range placements {
		setPlacement(snap, p)
		sub := Outcomes{}
		o, held := c.children(ctx, n, sub)
		c.release(ctx, held)
		if o.Status.Code == framework.Error {
			res[n.Key] = o
			return o, nil
		}
		if first == nil {
			first = sub
		}
		if o.Status.Success() {
			fits = append(fits, sub)
			fitPlacements = append(fitPlacements, p)
		}
	}
	if len(fits) == 0 {
		if first == nil {
			o := &Outcome{Node: n, Status: ptr.To(GroupUnschedulable("0/0 placements are available"))}
			res[n.Key] = o
			return o, nil
		}
		// The first placement's outcomes are reported, down to each
		// member's own reason.
		o := first[n.Key]
		o.Status = ptr.To(NoPlacementFits(len(placements), *o.Status))
		maps.Copy(res, first)
		return o, nil
	}
	best := 0
	if len(fits) > 1 {
		assignments := make([]*framework.PodGroupAssignments, len(fits))
		for i, sub := range fits {
			assignments[i] = &framework.PodGroupAssignments{Placement: fitPlacements[i]}
			for _, leaf := range placedLeaves(n, sub) {
				assignments[i].Assignments = append(assignments[i].Assignments, leaf.Try.Assignments().Assignments...)
			}
		}
		var status Status
		if best, _, status = bestScored(ctx, c.Env, n, assignments); !status.Success() {
			o := &Outcome{Node: n, Status: &status}
			res[n.Key] = o
			return o, nil
		}
	}
	var held []*PlacementResult
	for _, leaf := range placedLeaves(n, fits[best]) {
		if err := holdAgain(ctx, c.Env, leaf.Try); err != nil {
			revert(ctx, c.Env, leaf.Try)
			c.release(ctx, held)
			o := &Outcome{Node: n, Status: ptr.To(Errorf("failed to assume the subtree: %v", err))}
			res[n.Key] = o
			return o, nil
		}
		held = append(held, leaf.Try)
	}
	maps.Copy(res, fits[best])
	o := fits[best][n.Key]
	o.Placement = fitPlacements[best]
	return o, held
}

// children tries a CompositePodGroup's children in order in the
// snapshot's current placement, each whole, until PlacementFeasible admits
// the CompositePodGroup after the last one or gives up on it; the members
// of the children that fitted stay held unless it gives up.
func (c *Cycle) children(ctx context.Context, n *framework.GroupNode, sub Outcomes) (*Outcome, []*PlacementResult) {
	fwk := c.Env.Framework
	o := &Outcome{Node: n}
	sub[n.Key] = o
	progress := framework.PlacementProgress{Remaining: len(n.Children)}
	st := fwk.RunPlacementFeasiblePlugins(ctx, n, progress)
	if code := st.Code(); code == framework.Unschedulable || code == framework.Error {
		o.Status = ptr.To(FromStatus(st))
		return o, nil
	}
	var held []*PlacementResult
	for _, child := range n.Children {
		co, h := c.evaluate(ctx, child, sub)
		if co.Status.Code == framework.Error {
			c.release(ctx, h)
			c.release(ctx, held)
			o.Status = ptr.To(Errorf("composite pod group evaluation failed due to child error: %v", co.Status.AsError()))
			return o, nil
		}
		held = append(held, h...)
		o.Placed = o.Placed || co.Placed
		progress.Remaining--
		if co.Status.Success() {
			progress.Scheduled++
		}
		st = fwk.RunPlacementFeasiblePlugins(ctx, n, progress)
		if code := st.Code(); code == framework.Unschedulable || code == framework.Error {
			break
		}
	}
	status := FromStatus(st)
	if st.IsWait() {
		status = GroupUnschedulable(st.Reasons()...)
	}
	o.Status = &status
	if !status.Success() {
		c.release(ctx, held)
		o.Placed = false
		return o, nil
	}
	return o, held
}

// release lets go of the members the tries hold.
func (c *Cycle) release(ctx context.Context, held []*PlacementResult) {
	for _, r := range held {
		revert(ctx, c.Env, r)
	}
}

// placedLeaves returns the PodGroups under n that fitted with every node
// above them up to n, and placed members.
func placedLeaves(n *framework.GroupNode, res Outcomes) []*Outcome {
	o, ok := res[n.Key]
	if !ok || !o.Status.Success() {
		return nil
	}
	if n.IsLeaf() {
		if o.Try != nil && o.Try.PlacedAny() {
			return []*Outcome{o}
		}
		return nil
	}
	var out []*Outcome
	for _, child := range n.Children {
		out = append(out, placedLeaves(child, res)...)
	}
	return out
}

// completeOutcomes hands a failed CompositePodGroup's status down to the
// nodes below it that fitted, or that the cycle did not reach: none of them
// may be admitted without it. parent is nil at the root.
func completeOutcomes(n *framework.GroupNode, res Outcomes, parent *Status) {
	o, ok := res[n.Key]
	if !ok || (parent != nil && !parent.Success() && o.Status.Success()) {
		if parent == nil {
			parent = ptr.To(Succeeded())
		}
		o = &Outcome{Node: n, Status: parent}
		res[n.Key] = o
	}
	for _, child := range n.Children {
		completeOutcomes(child, res, o.Status)
	}
}

// Simulation is the cluster a PodGroupPostFilter plugin changes to try
// its group again: the cycle's snapshot, which the caller isolates
// (Isolate) while the plugin runs.
type Simulation struct {
	// Cycle is the group's cycle, which ScheduleGroup runs again.
	Cycle *Cycle
	// Tried are the cycle states of the members the failed cycle tried.
	Tried map[types.UID]*framework.CycleState
}

var _ framework.PodGroupSimulation = (*Simulation)(nil)

// RemovePod takes a pod off the named node in the snapshot.
func (s *Simulation) RemovePod(pod *v1.Pod, nodeName string) error {
	return s.Cycle.Env.Snapshot.RemovePod(pod, nodeName)
}

// AddPod puts a pod on the named node in the snapshot.
func (s *Simulation) AddPod(pi *framework.PodInfo, nodeName string) error {
	return s.Cycle.Env.Snapshot.AddPod(pi, nodeName)
}

// ScheduleGroup runs the group's cycle on the snapshot as it stands, with
// fresh cycle states, and returns the members it placed.
func (s *Simulation) ScheduleGroup(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
	return s.Cycle.Schedule(ctx)
}

// TriedMembers are the cycle states of the members the failed cycle tried.
func (s *Simulation) TriedMembers() map[types.UID]*framework.CycleState { return s.Tried }
