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
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// SchedulePod finds the best node for the pod in env's snapshot, within
// its current placement: the feasible nodes, then their scores, then the
// host. A pod no node fits gets a FitError; a snapshot without candidate
// nodes ErrNoNodes.
func SchedulePod(ctx context.Context, env Env, state *framework.CycleState, pod *v1.Pod) (Result, error) {
	return search(ctx, env, state, pod, nil)
}

// search is SchedulePod within placement p, nil for a pod's own cycle;
// Env's hooks are told p.
func search(ctx context.Context, env Env, state *framework.CycleState, pod *v1.Pod, p *framework.Placement) (Result, error) {
	fwk, snap := env.Framework, env.Snapshot
	numNodes := snap.NumCandidateNodes()
	if numNodes == 0 {
		if env.OnSearch != nil {
			env.OnSearch(pod, p, Search{})
		}
		return Result{}, ErrNoNodes
	}

	var (
		sig    framework.PodSignature
		hinter func() string
		hint   string
	)
	if b := env.Batch; b != nil {
		sig = b.Sign(ctx, pod, env.Cycle)
		hinter = func() string {
			hint = b.NodeHint(ctx, snap.NodeInfos(), state, pod, sig, env.Cycle)
			return hint
		}
	}
	feasible, diagnosis, err := findFeasibleNodes(ctx, fwk, snap, state, pod, env.Next, hinter)
	if err != nil {
		return Result{}, err
	}
	// Nothing keeps the feasible list past the search.
	defer fwk.ReleaseFeasible(feasible)
	evaluated := len(feasible) + diagnosis.NodeToStatus.Len()
	prefer := ""
	if env.Prefer != nil {
		prefer = env.Prefer.Node(pod, p)
	}
	nodes := feasible
	if prefer != "" {
		nodes = WithPreferred(ctx, fwk, snap, state, pod, feasible, &diagnosis, prefer)
	}
	var scores []framework.NodePluginScores
	if len(nodes) > 1 {
		score := fwk.RunScorePlugins
		if env.Batch != nil && sig != nil {
			score = env.Batch.Score
		}
		if scores, err = prioritizeNodes(ctx, fwk, state, pod, nodes, score); err != nil {
			return Result{}, err
		}
		defer fwk.ReleaseScores(scores)
	}
	if env.OnSearch != nil {
		env.OnSearch(pod, p, Search{Feasible: nodes, Diagnosis: diagnosis, NumNodes: numNodes, Scores: scores})
	}
	switch len(nodes) {
	case 0:
		return Result{}, &framework.FitError{Pod: pod, NumAllNodes: numNodes, Diagnosis: diagnosis}
	case 1:
		host := nodes[0].Node().Name
		if env.Batch != nil {
			env.Batch.Store(ctx, sig, hint, host, nil, env.Cycle)
		}
		return Result{Host: host, EvaluatedNodes: evaluated, FeasibleNodes: 1}, nil
	}

	host, err := selectHost(env, fwk, scores, prefer)
	if err != nil {
		return Result{}, fmt.Errorf("selecting a node: %w", err)
	}
	if env.Batch != nil {
		env.Batch.Store(ctx, sig, hint, host, scores, env.Cycle)
	}
	r := Result{Host: host, EvaluatedNodes: evaluated, FeasibleNodes: len(nodes)}
	if env.Record {
		r.Top = decisions.Top(scores, host)
	}
	return r, nil
}

// WithPreferred returns the feasible nodes with the preferred node added
// when the search ended before reaching it and it passes Filter; when it
// does not pass, the diagnosis records why.
func WithPreferred(ctx context.Context, fwk *runtime.Framework, snap *schedcache.Snapshot, state *framework.CycleState, pod *v1.Pod, feasible []*framework.NodeInfo, diagnosis *framework.Diagnosis, prefer string) []*framework.NodeInfo {
	if len(feasible) == 0 || !snap.InPlacement(prefer) || slices.ContainsFunc(feasible, func(ni *framework.NodeInfo) bool { return ni.Name() == prefer }) {
		return feasible
	}
	if st := diagnosis.NodeToStatus.Get(prefer); st != nil && !st.IsSuccess() {
		return feasible
	}
	ni, err := snap.NodeInfos().Get(prefer)
	if err != nil {
		return feasible
	}
	if st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); !st.IsSuccess() {
		diagnosis.NodeToStatus.Set(prefer, st)
		return feasible
	}
	return append(slices.Clip(feasible), ni)
}

// selectHost picks the highest-scoring node: prefer when it is among the
// best, else as upstream does, at random among equals only when extenders
// scored.
func selectHost(env Env, fwk *runtime.Framework, scores []framework.NodePluginScores, prefer string) (string, error) {
	if prefer != "" {
		top, at := scores[0].TotalScore, -1
		for i, s := range scores {
			if s.TotalScore > top {
				top = s.TotalScore
			}
			if s.Name == prefer {
				at = i
			}
		}
		if at >= 0 && scores[at].TotalScore == top {
			return prefer, nil
		}
	}
	var tieBreak func(int) int
	if fwk.HasExtenderPrioritizers() {
		tieBreak = env.Rand
	}
	return runtime.SelectHost(scores, tieBreak)
}

// PrioritizeNodes runs PreScore, Score (with NormalizeScore and the
// weights) and the extenders' prioritizers over the feasible nodes.
func PrioritizeNodes(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, feasible []*framework.NodeInfo) ([]framework.NodePluginScores, error) {
	return prioritizeNodes(ctx, fwk, state, pod, feasible, fwk.RunScorePlugins)
}

// scoreFunc runs the Score plugins over the feasible nodes.
type scoreFunc func(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) ([]framework.NodePluginScores, *framework.Status)

// prioritizeNodes is PrioritizeNodes with the Score plugins run by score.
func prioritizeNodes(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, feasible []*framework.NodeInfo, score scoreFunc) ([]framework.NodePluginScores, error) {
	if st := fwk.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
		return nil, st.AsError()
	}
	scores, st := score(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		return nil, st.AsError()
	}
	fwk.RunExtenderPrioritizers(ctx, pod, feasible, scores)
	return scores, nil
}

// preFilter runs the PreFilter plugins of a pod's search and returns their
// result with the diagnosis the search starts from; stop is set when they
// rejected the pod (the diagnosis says why, PreFilterMsg included) or
// failed (err). Every search starts here.
func preFilter(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod) (*framework.PreFilterResult, framework.Diagnosis, bool, error) {
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus()}
	preResult, st, rejectedBy := fwk.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = rejectedBy
	switch {
	case st.IsSuccess():
		return preResult, diagnosis, false, nil
	case !st.IsRejected():
		return nil, diagnosis, true, st.AsError()
	}
	diagnosis.NodeToStatus.SetAbsentNodesStatus(st)
	diagnosis.PreFilterMsg = st.Message()
	diagnosis.AddPluginStatus(st)
	return nil, diagnosis, true, nil
}

// FindFeasibleNodes runs PreFilter and Filter over the snapshot's
// candidate nodes. With next set, as in the scheduling cycle, the pod's
// nominated node, if any, is tried first; otherwise the search starts at
// *next, ends once enough feasible nodes are found, and leaves in *next
// where the following search over all nodes starts. With next nil (berth
// explain) every node is filtered and the nominated node gets no shortcut.
func FindFeasibleNodes(ctx context.Context, fwk *runtime.Framework, snapshot *schedcache.Snapshot, state *framework.CycleState, pod *v1.Pod, next *int) ([]*framework.NodeInfo, framework.Diagnosis, error) {
	return findFeasibleNodes(ctx, fwk, snapshot, state, pod, next, nil)
}

// findFeasibleNodes is FindFeasibleNodes; hinter, when set, is asked once
// PreFilter passed for a node to try first, as a nominated node is tried
// (the nominated node wins), "" for none.
func findFeasibleNodes(ctx context.Context, fwk *runtime.Framework, snapshot *schedcache.Snapshot, state *framework.CycleState, pod *v1.Pod, next *int, hinter func() string) ([]*framework.NodeInfo, framework.Diagnosis, error) {
	// The slice is only read during this search.
	allNodes := snapshot.SearchNodes()
	preResult, diagnosis, stop, err := preFilter(ctx, fwk, state, pod)
	if stop {
		return nil, diagnosis, err
	}
	// The plugins whose PreFilter narrowed the search, for the nodes it left out.
	narrowedBy := diagnosis.UnschedulablePlugins

	hint := ""
	if hinter != nil {
		hint = hinter()
	}
	nominated := pod.Status.NominatedNodeName
	first := nominated
	if first == "" {
		// A hint is filtered as a nominated node is, whatever PreFilter
		// narrowed the search to: it came from a pod that searched alike.
		first = hint
	}
	if next != nil && first != "" && snapshot.InPlacement(first) && (first != nominated || preResult.AllNodes() || preResult.NodeNames.Has(first)) {
		if ni, err := snapshot.NodeInfos().Get(first); err == nil {
			if st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); st.IsSuccess() {
				passed, err := fwk.RunExtenderFilters(ctx, pod, []*framework.NodeInfo{ni}, diagnosis.NodeToStatus)
				if err != nil {
					return nil, diagnosis, err
				}
				if len(passed) == 1 {
					return passed, diagnosis, nil
				}
			}
		}
	}

	nodes := allNodes
	if !preResult.AllNodes() {
		nodes = make([]*framework.NodeInfo, 0, preResult.NodeNames.Len())
		for _, name := range sets.List(preResult.NodeNames) {
			if !snapshot.InPlacement(name) {
				continue
			}
			if ni, err := snapshot.NodeInfos().Get(name); err == nil {
				nodes = append(nodes, ni)
			}
		}
	}

	var (
		feasible []*framework.NodeInfo
		statuses *framework.NodeToStatus
	)
	if next == nil {
		feasible, statuses, err = fwk.FilterAllNodes(ctx, state, pod, nodes)
	} else {
		start := 0
		if len(nodes) == len(allNodes) {
			start = *next % max(len(nodes), 1)
		}
		var following int
		feasible, following, statuses, err = fwk.FindFeasibleNodes(ctx, state, pod, nodes, start)
		if err == nil && len(nodes) == len(allNodes) {
			*next = following
		}
	}
	if err != nil {
		return nil, diagnosis, err
	}
	if statuses != nil {
		diagnosis.NodeToStatus = statuses
	}
	beforeExtenders := len(feasible)
	if feasible, err = fwk.RunExtenderFilters(ctx, pod, feasible, diagnosis.NodeToStatus); err != nil {
		return nil, diagnosis, err
	}
	if len(feasible) != beforeExtenders {
		// Extenders register no events; naming them lets any event requeue the pod.
		if diagnosis.UnschedulablePlugins == nil {
			diagnosis.UnschedulablePlugins = sets.New[string]()
		}
		diagnosis.UnschedulablePlugins.Insert(runtime.ExtenderName)
	}
	if len(nodes) < len(allNodes) {
		diagnosis.NodeToStatus.SetAbsentNodesStatus(framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(narrowedBy))))
	}
	diagnosis.NodeToStatus.ForEachExplicitNode(func(_ string, st *framework.Status) {
		diagnosis.AddPluginStatus(st)
	})
	return feasible, diagnosis, nil
}

// FilterNodes runs PreFilter, then Filter over the named nodes only, each
// of them, without extenders: a shadow profile's search over the nodes the
// live cycle searched.
func FilterNodes(ctx context.Context, fwk *runtime.Framework, snap *schedcache.Snapshot, state *framework.CycleState, pod *v1.Pod, names []string) ([]*framework.NodeInfo, framework.Diagnosis, error) {
	preResult, diagnosis, stop, err := preFilter(ctx, fwk, state, pod)
	if stop {
		return nil, diagnosis, err
	}
	nodes := make([]*framework.NodeInfo, 0, len(names))
	for _, name := range names {
		if !preResult.AllNodes() && !preResult.NodeNames.Has(name) {
			continue
		}
		if ni, err := snap.NodeInfos().Get(name); err == nil {
			nodes = append(nodes, ni)
		}
	}
	feasible, statuses, err := fwk.FilterAllNodes(ctx, state, pod, nodes)
	if err != nil {
		return nil, diagnosis, err
	}
	diagnosis.NodeToStatus = statuses
	return feasible, diagnosis, nil
}
