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
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	schedcache "github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/internal/podlog"
)

// MemberResult is one member's try in a placement.
type MemberResult struct {
	QPI   *framework.QueuedPodInfo
	State *framework.CycleState
	// Result is where the member was placed, when Err is nil.
	Result Result
	// Err is why the member was not placed; nil when it was.
	Err error
	// held is the member's copy, with its PodInfo, that the try puts on
	// its node in the snapshot; holding says whether it is there now.
	held    *framework.PodInfo
	holding bool
}

// PlacementResult is a PodGroup's try in one placement.
type PlacementResult struct {
	Placement *framework.Placement
	Members   []MemberResult
	Status    Status
	// Group is how the cycle chose this placement, for the members'
	// recorded decisions; set on the placement chosen with Env.Record.
	Group *decisions.Group
}

// PlacedAny reports whether the try placed a member.
func (r *PlacementResult) PlacedAny() bool {
	for _, m := range r.Members {
		if m.Err == nil {
			return true
		}
	}
	return false
}

// Assignments are the members the try placed.
func (r *PlacementResult) Assignments() *framework.PodGroupAssignments {
	out := &framework.PodGroupAssignments{Placement: r.Placement}
	for _, m := range r.Members {
		if m.Err == nil {
			out.Assignments = append(out.Assignments, framework.ProposedAssignment{Pod: m.QPI.Pod, NodeName: m.Result.Host, State: m.State})
		}
	}
	return out
}

// SortMembers orders a group's members as its cycle places them, as
// kube-scheduler orders a pod group's queued pods: higher priority first,
// then more scheduling attempts, then earlier arrival in the queue, then
// name.
func SortMembers(members []*framework.QueuedPodInfo) {
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

// TriedMembers returns the cycle state of each member the tries ran the
// search for, from the last try that reached it.
func TriedMembers(tries []*PlacementResult) map[types.UID]*framework.CycleState {
	out := map[types.UID]*framework.CycleState{}
	for _, r := range tries {
		for _, m := range r.Members {
			out[m.QPI.Pod.UID] = m.State
		}
	}
	return out
}

// TryEachPlacement tries the members of the PodGroup node in every
// placement the PlacementGenerate plugins propose within the snapshot's
// current placement, in their order, and returns each try, the members
// let go and the snapshot as it was. scheduled counts the group's members
// placed before the cycle. Its status fails only when the placements
// cannot be generated or a try ends in an error, which is then the last
// try returned.
func TryEachPlacement(ctx context.Context, env Env, node *framework.GroupNode, members []*framework.QueuedPodInfo, scheduled int) ([]*PlacementResult, Status) {
	snap := env.Snapshot
	placements, st := env.Framework.RunPlacementGeneratePlugins(ctx, node, &framework.Placement{Nodes: snap.CandidateNodes()})
	if !st.IsSuccess() {
		return nil, FromStatus(st)
	}
	defer Isolate(snap)()
	tries := make([]*PlacementResult, 0, len(placements))
	// Each member gets one copy to hold for all the tries: only its
	// spec.nodeName differs from one try to the next.
	copies := make([]*framework.PodInfo, len(members))
	// Each member's logger, made once for all the tries.
	memberCtx := make([]context.Context, len(members))
	for i, qpi := range members {
		memberCtx[i] = klog.NewContext(ctx, podlog.For(ctx, qpi.Pod))
	}
	for _, p := range placements {
		setPlacement(snap, p)
		r := tryPlacement(ctx, env, node, members, memberCtx, copies, scheduled, p)
		revert(ctx, env, r)
		tries = append(tries, r)
		if r.Status.Code == framework.Error {
			return tries, r.Status
		}
	}
	return tries, Succeeded()
}

// setPlacement confines the snapshot's searches to the nodes of p, or
// lifts the restriction when p holds every node.
func setPlacement(snap *schedcache.Snapshot, p *framework.Placement) {
	if len(p.Nodes) == snap.NumNodes() {
		snap.SetPlacement(nil)
		return
	}
	// A placement of no node is still a restriction: to nothing.
	nodes := p.Nodes
	if nodes == nil {
		nodes = []*framework.NodeInfo{}
	}
	snap.SetPlacementNodes(nodes)
}

// tryPlacement places the members of the PodGroup node one after another
// in the snapshot's current placement, holding each one placed, until
// PlacementFeasible admits the group after the last member or gives up on
// it; scheduled counts the group's members placed before the cycle. The
// members stay held; the caller reverts them. copies are the members'
// copies made by earlier tries (nil for a member none held), and get those
// this try makes. memberCtx are the members' contexts, with their loggers.
func tryPlacement(ctx context.Context, env Env, node *framework.GroupNode, members []*framework.QueuedPodInfo, memberCtx []context.Context, copies []*framework.PodInfo, scheduled int, p *framework.Placement) *PlacementResult {
	fwk := env.Framework
	r := &PlacementResult{Placement: p, Members: make([]MemberResult, 0, len(members))}
	progress := framework.PlacementProgress{Remaining: len(members), Scheduled: scheduled}
	st := fwk.RunPlacementFeasiblePlugins(ctx, node, progress)
	switch {
	case st.Code() == framework.Error:
		r.Status = Errorf("failed to evaluate placement feasibility: %v", st.AsError())
		return r
	case st.Code() == framework.Unschedulable:
		r.Status = GroupUnschedulable(st.Reasons()...)
		r.Status.Plugin = st.Plugin()
		return r
	}
	r.Status = FromStatus(st)
	for i, qpi := range members {
		m := placeMember(memberCtx[i], env, qpi, copies[i], p)
		if m.held != nil {
			copies[i] = m.held
		}
		r.Members = append(r.Members, m)
		var fitErr *framework.FitError
		if m.Err != nil && !errors.As(m.Err, &fitErr) && !errors.Is(m.Err, ErrNoNodes) {
			r.Status = Errorf("failed to schedule other pod from a pod group: %v", m.Err)
			break
		}
		progress.Remaining--
		if m.Err == nil {
			progress.Scheduled++
		}
		st := fwk.RunPlacementFeasiblePlugins(ctx, node, progress)
		if st.Code() == framework.Error {
			r.Status = Errorf("failed to evaluate placement feasibility: %v", st.AsError())
			break
		}
		r.Status = FromStatus(st)
		if st.Code() == framework.Unschedulable {
			break
		}
	}
	if r.Status.Code == framework.Wait {
		r.Status = GroupUnschedulable(r.Status.Reasons...)
	}
	return r
}

// placeMember runs one member's search in placement p and, when a node
// fits, holds the member there on the snapshot and runs Reserve (unless
// Env.SkipReserve), on held, the member's copy an earlier try made, when
// there is one; ctx carries the member's logger. PostFilter does not run
// for a member: a group that does not fit is handled as a group.
func placeMember(ctx context.Context, env Env, qpi *framework.QueuedPodInfo, held *framework.PodInfo, p *framework.Placement) MemberResult {
	m := MemberResult{QPI: qpi, State: framework.NewCycleState(), held: held}
	result, err := search(ctx, env, m.State, qpi.Pod, p)
	m.Result = result
	if err != nil {
		m.Err = err
		return m
	}
	if err := hold(ctx, env, &m); err != nil {
		m.Err = err
	}
	return m
}

// hold puts a placed member on its node in the snapshot and runs Reserve
// for it (unless Env.SkipReserve), so that the searches after it see it.
// A member Reserve rejects is let go, with a FitError for its node. The
// member's copy is made on its first hold in the cycle; later holds move
// it, which is safe as a copy is never on two nodes at once and what the
// snapshot handed out while it was held is not read after it is let go.
func hold(ctx context.Context, env Env, m *MemberResult) error {
	host := m.Result.Host
	if m.held == nil {
		pi, err := framework.NewPodInfo(AssumedCopy(m.QPI.Pod, host))
		if err != nil {
			return fmt.Errorf("assuming pod on node %s: %w", host, err)
		}
		m.held = pi
	}
	pi := m.held
	assumed := pi.Pod
	assumed.Spec.NodeName = host
	if err := env.Snapshot.AddPod(pi, host); err != nil {
		return fmt.Errorf("assuming pod on node %s: %w", host, err)
	}
	if !env.SkipReserve {
		if st := env.Framework.RunReservePluginsReserve(ctx, m.State, assumed, host); !st.IsSuccess() {
			env.Framework.RunReservePluginsUnreserve(ctx, m.State, assumed, host)
			letGo(ctx, env, assumed)
			return StatusError(st, host, env.Snapshot.NumCandidateNodes())
		}
	}
	m.holding = true
	return nil
}

// letGo takes a held member off its node in the snapshot.
func letGo(ctx context.Context, env Env, assumed *v1.Pod) {
	if err := env.Snapshot.RemovePod(assumed, assumed.Spec.NodeName); err != nil {
		klog.FromContext(ctx).Error(err, "Taking a held member off its node", "member", klog.KObj(assumed))
	}
}

// revert unreserves every member the try holds, then lets them go in the
// reverse order they were held, so that the snapshot takes each one off by
// bringing back the NodeInfo its hold replaced.
func revert(ctx context.Context, env Env, r *PlacementResult) {
	if !env.SkipReserve {
		for i := range r.Members {
			if m := &r.Members[i]; m.holding {
				env.Framework.RunReservePluginsUnreserve(ctx, m.State, m.held.Pod, m.Result.Host)
			}
		}
	}
	for i := len(r.Members) - 1; i >= 0; i-- {
		if m := &r.Members[i]; m.holding {
			letGo(ctx, env, m.held.Pod)
			m.holding = false
		}
	}
}

// holdAgain holds again the members a try placed, as placeMember held
// them, for the PodGroups tried after it to see.
func holdAgain(ctx context.Context, env Env, r *PlacementResult) error {
	for i := range r.Members {
		m := &r.Members[i]
		if m.Err != nil {
			continue
		}
		if err := hold(ctx, env, m); err != nil {
			return fmt.Errorf("pod %s: %w", klog.KObj(m.QPI.Pod), err)
		}
	}
	return nil
}

// RankPlacements ranks the placements where the group at node fits with
// the PlacementScore plugins and returns the index of the best, with every
// placement's scores: the preferred placement when it ties for the best,
// else one of the best at random (the first without Env.Rand).
func RankPlacements(ctx context.Context, env Env, node *framework.GroupNode, feasible []*PlacementResult) (int, []framework.NodePluginScores, Status) {
	assignments := make([]*framework.PodGroupAssignments, len(feasible))
	for i, r := range feasible {
		assignments[i] = r.Assignments()
	}
	return bestScored(ctx, env, node, assignments)
}

// bestPlacement is RankPlacements' best placement; with Env.Record it
// keeps the ranking.
func bestPlacement(ctx context.Context, env Env, node *framework.GroupNode, feasible []*PlacementResult) (*PlacementResult, Status) {
	best, scores, status := RankPlacements(ctx, env, node, feasible)
	if !status.Success() {
		return nil, status
	}
	if env.Record {
		name := feasible[best].Placement.Name
		feasible[best].Group = &decisions.Group{Placement: name, Feasible: len(feasible), Placements: decisions.Top(scores, name)}
	}
	return feasible[best], status
}

// bestScored ranks the assignments of the placements where a group fits
// with the PlacementScore plugins and returns the index of the best, with
// every placement's scores.
func bestScored(ctx context.Context, env Env, node *framework.GroupNode, assignments []*framework.PodGroupAssignments) (int, []framework.NodePluginScores, Status) {
	scores, st := env.Framework.ScorePlacements(ctx, node, assignments)
	if !st.IsSuccess() {
		return 0, nil, FromStatus(st)
	}
	prefer := ""
	if env.Prefer != nil {
		prefer = env.Prefer.Placement(node)
	}
	best, ties := 0, 1
	for i := 1; i < len(scores); i++ {
		switch {
		case scores[i].TotalScore > scores[best].TotalScore:
			best, ties = i, 1
		case scores[i].TotalScore == scores[best].TotalScore:
			// Reservoir sampling: each of the tied placements wins equally often.
			ties++
			if env.Rand != nil && env.Rand(ties) == 0 {
				best = i
			}
		}
	}
	if prefer != "" {
		for i, a := range assignments {
			if a.Placement.Name == prefer && scores[i].TotalScore == scores[best].TotalScore {
				best = i
			}
		}
	}
	return best, scores, Succeeded()
}
