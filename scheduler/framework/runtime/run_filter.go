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

package runtime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// Bounds of the adaptive number of feasible nodes to find, as upstream.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// RunPreFilterPlugins runs every PreFilter plugin over the snapshot's nodes.
// A Skip records the plugin in the state so its Filter is not
// run. UnschedulableAndUnresolvable stops at once; Unschedulable lets the
// other plugins run (preemption needs their state) and is returned at the
// end; anything else is an Error. The results are intersected; when the
// intersection is empty the pod is UnschedulableAndUnresolvable. The third
// result names the plugins that narrowed the nodes, nil when none did. The
// set of skipped plugins stored in the state may be shared with other cycles.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod) (result *framework.PreFilterResult, status *framework.Status, narrowedBy sets.Set[string]) {
	start := f.clock.Now()
	// The plugins that skip, as a mask (and as names only when there are
	// too many plugins for one): most cycles skip the same ones and share
	// one set of their names.
	var skipped pluginMask
	var skippedNames []string
	defer func() {
		state.SetSkipFilterPlugins(skipSet(&f.skips.filterSkips, f.preFilter, skipped, skippedNames))
		f.observe("PreFilter", status, start)
	}()
	var nodes []*framework.NodeInfo
	if f.snapshot != nil {
		var err error
		if nodes, err = f.snapshot.NodeInfos().List(); err != nil {
			return nil, framework.AsStatus(fmt.Errorf("listing the snapshot's nodes: %w", err)), nil
		}
	}
	var rejection *framework.Status
	for i, pl := range f.preFilter {
		r, s := pl.PreFilter(ctx, state, pod, nodes)
		switch {
		case s.IsSkip():
			skipped |= 1 << i
			if len(f.preFilter) > maskablePlugins {
				skippedNames = append(skippedNames, pl.Name())
			}
			continue
		case s.Code() == framework.UnschedulableAndUnresolvable:
			return nil, s.WithPlugin(pl.Name()), nil
		case s.Code() == framework.Unschedulable:
			rejection = s.WithPlugin(pl.Name())
			continue
		case !s.IsSuccess():
			return nil, framework.AsStatus(fmt.Errorf("running PreFilter plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name()), nil
		}
		if !r.AllNodes() {
			if narrowedBy == nil {
				narrowedBy = sets.New[string]()
			}
			narrowedBy.Insert(pl.Name())
		}
		result = result.Merge(r)
		if !result.AllNodes() && len(result.NodeNames) == 0 {
			msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", sets.List(narrowedBy))
			if len(narrowedBy) == 1 {
				msg = fmt.Sprintf("node(s) didn't satisfy plugin %v", sets.List(narrowedBy)[0])
			}
			return result, framework.NewStatus(framework.UnschedulableAndUnresolvable, msg), narrowedBy
		}
	}
	return result, rejection, narrowedBy
}

// RunPreFilterExtensionAddPod tells each PreFilter plugin with extensions
// (and not skipped this cycle) that podToAdd now runs on nodeInfo.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilter {
		ext := pl.PreFilterExtensions()
		if ext == nil || state.SkipsFilter(pl.Name()) {
			continue
		}
		if s := ext.AddPod(ctx, state, podToSchedule, podInfoToAdd, nodeInfo); !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running AddPod of PreFilter plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod tells each PreFilter plugin with extensions
// (and not skipped this cycle) that podInfoToRemove no longer runs on nodeInfo.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilter {
		ext := pl.PreFilterExtensions()
		if ext == nil || state.SkipsFilter(pl.Name()) {
			continue
		}
		if s := ext.RemovePod(ctx, state, podToSchedule, podInfoToRemove, nodeInfo); !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running RemovePod of PreFilter plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunFilterPlugins runs the Filter plugins on one node and stops at the
// first that does not pass. A rejection keeps its code; any other status is
// turned into an Error. Either way the status names the plugin.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	for _, pl := range f.filter {
		if state.SkipsFilter(pl.Name()) {
			continue
		}
		if s := runFilter(ctx, pl, state, pod, nodeInfo); s != nil {
			return s
		}
	}
	return nil
}

// runFilter runs one Filter plugin and returns nil when the node passes,
// otherwise the status RunFilterPlugins returns for it.
func runFilter(ctx context.Context, pl framework.FilterPlugin, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s := pl.Filter(ctx, state, pod, nodeInfo)
	if s.IsSuccess() {
		return nil
	}
	if !s.IsRejected() {
		s = framework.AsStatus(fmt.Errorf("running Filter plugin %q: %w", pl.Name(), s.AsError()))
	}
	return s.WithPlugin(pl.Name())
}

// activeFilters returns the Filter plugins that PreFilter did not skip in
// this cycle, in order, so the search over nodes does not look each plugin
// up in the state's skipped plugins once per node. The list is shared with other
// cycles that skip the same plugins and must not be changed.
func (f *Framework) activeFilters(state *framework.CycleState) []framework.FilterPlugin {
	if !state.SkipsAnyFilter() {
		return f.filter
	}
	if len(f.filter) > maskablePlugins {
		return filtersOutside(f.filter, func(i int, pl framework.FilterPlugin) bool { return state.SkipsFilter(pl.Name()) })
	}
	var skipped pluginMask
	for i, pl := range f.filter {
		if state.SkipsFilter(pl.Name()) {
			skipped |= 1 << i
		}
	}
	if skipped == 0 {
		return f.filter
	}
	return f.skips.activeFilters.get(skipped, func(skipped pluginMask) []framework.FilterPlugin {
		return filtersOutside(f.filter, func(i int, _ framework.FilterPlugin) bool { return skipped&(1<<i) != 0 })
	})
}

// filtersOutside returns a new list of the plugins of all, in order, for
// which skip is false.
func filtersOutside(all []framework.FilterPlugin, skip func(i int, pl framework.FilterPlugin) bool) []framework.FilterPlugin {
	active := make([]framework.FilterPlugin, 0, len(all))
	for i, pl := range all {
		if !skip(i, pl) {
			active = append(active, pl)
		}
	}
	return active
}

// nominationChecker is implemented by nominators that can say cheaply
// whether any pod is nominated anywhere (the scheduling queue can).
type nominationChecker interface {
	HasNominatedPods() bool
}

// mayHaveNominatedPods is false when the nominator says no pod is
// nominated to any node, so no node needs the nominated-pods pass.
func (f *Framework) mayHaveNominatedPods() bool {
	if f.nominator == nil {
		return false
	}
	if c, ok := f.nominator.(nominationChecker); ok {
		return c.HasNominatedPods()
	}
	return true
}

// RunFilterPluginsWithNominatedPods filters a node as if the pods nominated
// to it with a priority at least the pod's were already running there, and,
// if that passes, once more without them: the pod must fit either way,
// because affinity-like filters may need the nominated pods absent while
// resource-like ones need them present.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	withNominated, stateWith, infoWith, err := f.addNominatedPods(ctx, state, pod, nodeInfo)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !withNominated {
		return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
	}
	if s := f.RunFilterPlugins(ctx, stateWith, pod, infoWith); !s.IsSuccess() {
		return s
	}
	return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
}

// addNominatedPods returns copies of state and nodeInfo with the pods
// nominated to the node that the pod must yield to, and whether there were any.
func (f *Framework) addNominatedPods(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (bool, *framework.CycleState, *framework.NodeInfo, error) {
	if f.nominator == nil || nodeInfo.Node() == nil {
		return false, state, nodeInfo, nil
	}
	nominated := f.nominator.NominatedPodsForNode(nodeInfo.Name())
	if len(nominated) == 0 {
		return false, state, nodeInfo, nil
	}
	priority := corev1helpers.PodPriority(pod)
	var stateOut *framework.CycleState
	var infoOut *framework.NodeInfo
	for _, pi := range nominated {
		if pi.Pod.UID == pod.UID || corev1helpers.PodPriority(pi.Pod) < priority {
			continue
		}
		if infoOut == nil {
			stateOut, infoOut = state.Clone(), nodeInfo.Clone()
		}
		infoOut.AddPodInfo(pi)
		if s := f.RunPreFilterExtensionAddPod(ctx, stateOut, pod, pi, infoOut); !s.IsSuccess() {
			return false, state, nodeInfo, fmt.Errorf("adding nominated pod %s to node %s: %w", framework.PodKey(pi.Pod), nodeInfo.Name(), s.AsError())
		}
	}
	if infoOut == nil {
		return false, state, nodeInfo, nil
	}
	return true, stateOut, infoOut, nil
}

// NumFeasibleNodesToFind returns how many feasible nodes end the search: all
// of them below 100 nodes; otherwise the percentage (when 0 or nil, an
// adaptive 50% minus 1% per 125 nodes, at least 5%), but never under 100.
func NumFeasibleNodesToFind(percentageOfNodesToScore *int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	var pct int32
	if percentageOfNodesToScore != nil {
		pct = *percentageOfNodesToScore
	}
	if pct <= 0 {
		pct = max(50-numAllNodes/125, minFeasibleNodesPercentageToFind)
	}
	return max(numAllNodes*pct/100, minFeasibleNodesToFind)
}

// FindFeasibleNodes filters nodes in parallel, starting at index start and
// wrapping around, until NumFeasibleNodesToFind nodes passed (one when the
// profile does not score) or all were checked. It returns the feasible
// nodes, the index the next cycle should start at (so every node gets its
// turn), and the status of each rejected node. A Filter Error cancels the
// search and is returned. The caller may hand the feasible slice back with
// ReleaseFeasible once it is done with it.
func (f *Framework) FindFeasibleNodes(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo, start int) (feasible []*framework.NodeInfo, next int, statuses *framework.NodeToStatus, err error) {
	want := int(NumFeasibleNodesToFind(f.percentageOfNodesToScore, int32(len(nodes))))
	if !f.HasScorePlugins() {
		want = 1
	}
	return f.findFeasible(ctx, state, pod, nodes, start, want)
}

// FilterAllNodes filters every node as FindFeasibleNodes does, but does not
// stop once enough nodes passed, so that each node gets its verdict (berth
// explain). It returns the feasible nodes in the order of nodes and the
// status of each rejected node.
func (f *Framework) FilterAllNodes(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (feasible []*framework.NodeInfo, statuses *framework.NodeToStatus, err error) {
	feasible, _, statuses, err = f.findFeasible(ctx, state, pod, nodes, 0, len(nodes))
	if err != nil {
		return nil, statuses, err
	}
	// The parallel search appends in the order nodes pass; sort them back.
	order := make(map[*framework.NodeInfo]int, len(nodes))
	for i, ni := range nodes {
		order[ni] = i
	}
	slices.SortFunc(feasible, func(a, b *framework.NodeInfo) int { return order[a] - order[b] })
	return feasible, statuses, nil
}

// findFeasible is FindFeasibleNodes with the number of feasible nodes that
// ends the search given.
func (f *Framework) findFeasible(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo, start, want int) (feasible []*framework.NodeInfo, next int, statuses *framework.NodeToStatus, err error) {
	statuses = framework.NewNodeToStatus()
	n := len(nodes)
	if n == 0 {
		return nil, 0, statuses, nil
	}
	start = ((start % n) + n) % n
	if !f.HasFilterPlugins() {
		feasible = make([]*framework.NodeInfo, want)
		for i := range feasible {
			feasible[i] = nodes[(start+i)%n]
		}
		return feasible, (start + want) % n, statuses, nil
	}

	began := f.clock.Now()
	feasible = f.parallelizer.borrowFeasible(want)
	// One allocation holds everything the parallel checks share.
	search := &feasibleSearch{
		f: f, ctx: ctx, state: state, pod: pod,
		nodes: nodes, start: start, want: want, feasible: feasible, statuses: statuses,
		filters:       f.activeFilters(state),
		withNominated: f.mayHaveNominatedPods(),
	}
	f.parallelizer.untilCPUOrStop(ctx, n, &search.stopped, search.check)

	feasible = feasible[:search.found.Load()]
	next = (start + len(feasible) + statuses.Len()) % n
	firstErr := search.firstErr
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("filtering nodes: %w", ctx.Err())
	}
	code := framework.Success
	if firstErr != nil {
		code = framework.Error
		klog.FromContext(ctx).V(4).Info("Filter failed", "pod", klog.KObj(pod), "err", firstErr)
	}
	if f.metrics != nil {
		f.metrics.ObserveExtensionPoint("Filter", code.String(), f.profileName, f.clock.Since(began))
	}
	return feasible, next, statuses, firstErr
}

// feasibleSearch is the state FindFeasibleNodes' parallel checks share.
//
// Rejections are recorded as they happen, under a lock, rather than in a
// slot per node: most nodes usually pass, and a cycle over thousands of
// nodes then allocates nothing per node. Each node is checked once, so
// Record appends to a list and the map by name is only built if the pod
// fails and someone asks.
type feasibleSearch struct {
	f        *Framework
	ctx      context.Context
	state    *framework.CycleState
	pod      *v1.Pod
	nodes    []*framework.NodeInfo
	start    int
	want     int
	feasible []*framework.NodeInfo
	statuses *framework.NodeToStatus
	// filters are the Filter plugins PreFilter did not skip.
	filters []framework.FilterPlugin
	// withNominated looks nominations up per node, needed only when some
	// pod holds one; otherwise every node runs the filters directly.
	withNominated bool

	found atomic.Int32
	// stopped ends the search: enough nodes passed, or a Filter failed.
	stopped    atomic.Bool
	rejectedMu sync.Mutex
	errOnce    sync.Once
	firstErr   error
}

// check filters the i-th node from the search's start.
func (fs *feasibleSearch) check(i int) {
	ni := fs.nodes[(fs.start+i)%len(fs.nodes)]
	var s *framework.Status
	if fs.withNominated {
		s = fs.f.RunFilterPluginsWithNominatedPods(fs.ctx, fs.state, fs.pod, ni)
	} else {
		for _, pl := range fs.filters {
			if s = runFilter(fs.ctx, pl, fs.state, fs.pod, ni); s != nil {
				break
			}
		}
	}
	switch {
	case s.IsSuccess():
		k := int(fs.found.Add(1))
		if k > fs.want {
			fs.found.Add(-1)
			fs.stopped.Store(true)
			return
		}
		fs.feasible[k-1] = ni
	case s.Code() == framework.Error:
		fs.errOnce.Do(func() { fs.firstErr = s.AsError() })
		fs.stopped.Store(true)
	default:
		fs.rejectedMu.Lock()
		fs.statuses.Record(ni.Name(), s)
		fs.rejectedMu.Unlock()
	}
}

// RunPostFilterPlugins runs the PostFilter plugins until one succeeds or
// ends the search (UnschedulableAndUnresolvable or Error). Otherwise it
// returns Unschedulable with every plugin's reasons, naming the first
// plugin, and the last result that nominates a node.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, statuses framework.NodeToStatusReader) (result *framework.PostFilterResult, status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("PostFilter", status, start) }()
	var reasons []string
	var first string
	for _, pl := range f.postFilter {
		r, s := pl.PostFilter(ctx, state, pod, statuses)
		switch {
		case s.IsSuccess():
			return r, s
		case s.Code() == framework.UnschedulableAndUnresolvable:
			return r, s.WithPlugin(pl.Name())
		case !s.IsRejected():
			return nil, framework.AsStatus(s.AsError()).WithPlugin(pl.Name())
		}
		if r != nil && r.Mode() != framework.ModeNoop {
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
		if first == "" {
			first = pl.Name()
		}
	}
	return result, framework.NewStatus(framework.Unschedulable, reasons...).WithPlugin(first)
}
