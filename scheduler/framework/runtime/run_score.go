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
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// RunPreScorePlugins runs every PreScore plugin over the feasible nodes. A
// Skip records the plugin in the state so its Score is not run;
// any other non-success is an Error naming the plugin.
func (f *Framework) RunPreScorePlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (status *framework.Status) {
	start := f.clock.Now()
	// As in RunPreFilterPlugins, the plugins that skip are kept as a mask,
	// and cycles that skip the same ones share one set of their names.
	var skipped pluginMask
	var skippedNames []string
	defer func() {
		state.SetSkipScorePlugins(skipSet(&f.skips.scoreSkips, f.preScore, skipped, skippedNames))
		f.observe("PreScore", status, start)
	}()
	for i, pl := range f.preScore {
		s := pl.PreScore(ctx, state, pod, nodes)
		if s.IsSkip() {
			skipped |= 1 << i
			if len(f.preScore) > maskablePlugins {
				skippedNames = append(skippedNames, pl.Name())
			}
			continue
		}
		if !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running PreScore plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	return nil
}

// firstError keeps the first error reported from parallel work and ends the rest.
type firstError struct {
	mu  sync.Mutex
	err error
	// failed ends the parallel work once an error is set.
	failed atomic.Bool
}

func (e *firstError) set(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
	e.failed.Store(true)
}

// reset forgets the error, for another run.
func (e *firstError) reset() {
	e.err = nil
	e.failed.Store(false)
}

// result returns the first error, or ctx's error if the caller cancelled the work.
func (e *firstError) result(ctx context.Context) error {
	if e.err == nil && ctx.Err() != nil {
		return fmt.Errorf("scoring nodes: %w", ctx.Err())
	}
	return e.err
}

// RunScorePlugins scores every node with every Score plugin not skipped by
// PreScore (in parallel over nodes), lets each plugin normalize its scores,
// checks they are within [MinNodeScore, MaxNodeScore], weights them and sums
// them per node. The result is in the order of nodes. Its memory is
// allocated per plugin, not per node, and reused across cycles: a caller
// done with the result may hand it back with ReleaseScores.
func (f *Framework) RunScorePlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (result []framework.NodePluginScores, status *framework.Status) {
	result, _, status = f.runScorePlugins(ctx, state, pod, nodes, false)
	return result, status
}

// rawScores are the scores of nodes before normalization, node by node:
// values[i*len(plugins)+j] is the score plugins[j] gave node i.
type rawScores struct {
	plugins []string
	values  []int64
}

// runScorePlugins is RunScorePlugins; with keepRaw it also returns the
// scores before normalization, copied.
func (f *Framework) runScorePlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo, keepRaw bool) (result []framework.NodePluginScores, kept *rawScores, status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("Score", status, start) }()

	run := f.parallelizer.borrowScoreRun(len(f.score))
	defer f.parallelizer.releaseScoreRun(run)
	plugins, weights := run.plugins, run.weights
	// names are looked up once here rather than per node below.
	names := run.names
	for i, pl := range f.score {
		if name := pl.Name(); !state.SkipsScore(name) {
			plugins = append(plugins, pl)
			weights = append(weights, f.scoreWeights[i])
			names = append(names, name)
		}
	}
	run.plugins, run.weights, run.names = plugins, weights, names
	if len(plugins) == 0 {
		result = make([]framework.NodePluginScores, len(nodes))
		for i, ni := range nodes {
			result[i].Name = ni.Name()
		}
		if keepRaw {
			kept = &rawScores{}
		}
		return result, kept, nil
	}

	nodeCount, pluginCount := len(nodes), len(plugins)
	// The raw scores live only in this call; their memory is reused.
	rawBuf := f.parallelizer.borrowNodeScores(pluginCount * nodeCount)
	defer f.parallelizer.nodeScores.Put(rawBuf)
	rawBacking := *rawBuf
	raw := run.raw[:pluginCount]
	for j := range raw {
		raw[j] = rawBacking[j*nodeCount : (j+1)*nodeCount : (j+1)*nodeCount]
	}
	// Plugins that can read their state once per cycle do so here; the
	// others (nil scorer) are called through Score for each node.
	scorers := run.scorers[:pluginCount]
	run.raw, run.scorers = raw, scorers
	for j, pl := range plugins {
		if cs, ok := pl.(framework.CycleScorePlugin); ok {
			scorer, s := cs.NodeScorer(ctx, state, pod)
			if !s.IsSuccess() {
				return nil, nil, framework.AsStatus(fmt.Errorf("preparing Score plugin %q: %w", pl.Name(), s.AsError()))
			}
			scorers[j] = scorer
		}
	}
	run.ctx, run.state, run.pod, run.nodes = ctx, state, pod, nodes
	errs := &run.errs
	f.parallelizer.untilCPUOrStop(ctx, nodeCount, &errs.failed, run.scoreNode)
	if err := errs.result(ctx); err != nil {
		return nil, nil, framework.AsStatus(err)
	}
	if keepRaw {
		kept = &rawScores{plugins: slices.Clone(names), values: make([]int64, nodeCount*pluginCount)}
		for i := range nodeCount {
			for j := range pluginCount {
				kept.values[i*pluginCount+j] = raw[j][i].Score
			}
		}
	}

	f.parallelizer.untilCPUOrStop(ctx, pluginCount, &errs.failed, run.normalizePlugin)
	if err := errs.result(ctx); err != nil {
		return nil, nil, framework.AsStatus(err)
	}

	bufs := f.parallelizer.borrowScores(nodeCount, pluginCount)
	run.result, run.weighted = bufs.result, bufs.weighted
	f.parallelizer.untilCPUOrStop(ctx, nodeCount, &errs.failed, run.weighNode)
	if err := errs.result(ctx); err != nil {
		return nil, nil, framework.AsStatus(err)
	}
	return bufs.result, kept, nil
}

// scoreNodeAt runs every Score plugin of the run on its i-th node.
func (r *scoreRun) scoreNodeAt(i int) {
	ni := r.nodes[i]
	name := ni.Name()
	for j, pl := range r.plugins {
		var (
			score int64
			s     *framework.Status
		)
		if r.scorers[j] != nil {
			score, s = r.scorers[j](ni)
		} else {
			score, s = pl.Score(r.ctx, r.state, r.pod, ni)
		}
		if !s.IsSuccess() {
			r.errs.set(fmt.Errorf("running Score plugin %q on node %q: %w", pl.Name(), name, s.AsError()))
			return
		}
		r.raw[j][i] = framework.NodeScore{Name: name, Score: score}
	}
}

// normalizePluginAt lets the run's j-th plugin normalize its scores.
func (r *scoreRun) normalizePluginAt(j int) {
	ext := r.plugins[j].ScoreExtensions()
	if ext == nil {
		return
	}
	if s := ext.NormalizeScore(r.ctx, r.state, r.pod, r.raw[j]); !s.IsSuccess() {
		r.errs.set(fmt.Errorf("running NormalizeScore of plugin %q: %w", r.plugins[j].Name(), s.AsError()))
	}
}

// weighNodeAt checks the normalized scores of the run's i-th node, weights
// them and sums them into its result.
func (r *scoreRun) weighNodeAt(i int) {
	n := len(r.plugins)
	scores := r.weighted[i*n : (i+1)*n : (i+1)*n]
	var total int64
	for j, name := range r.names {
		s := r.raw[j][i].Score
		if s < framework.MinNodeScore || s > framework.MaxNodeScore {
			r.errs.set(fmt.Errorf("plugin %q scored node %q %d after normalization, outside [%d, %d]",
				name, r.raw[j][i].Name, s, framework.MinNodeScore, framework.MaxNodeScore))
			return
		}
		weighted := s * r.weights[j]
		scores[j] = framework.PluginScore{Name: name, Score: weighted}
		total += weighted
	}
	r.result[i] = framework.NodePluginScores{Name: r.raw[0][i].Name, Scores: scores, TotalScore: total}
}

// ReleaseScores hands back the memory of a RunScorePlugins result for a
// later cycle to reuse. The caller must not read result, or any Scores
// slice in it, afterwards. Releasing is optional.
func (f *Framework) ReleaseScores(result []framework.NodePluginScores) {
	f.parallelizer.releaseScores(result)
}

// ReleaseFeasible hands the feasible nodes FindFeasibleNodes returned back
// for a later cycle to reuse; the caller must not use them afterwards.
func (f *Framework) ReleaseFeasible(nodes []*framework.NodeInfo) {
	f.parallelizer.releaseFeasible(nodes)
}

// SelectHost returns the node with the highest total score. Equal best
// scores are broken as kube-scheduler v1.37 breaks them. Without rnd, the
// winner is the node a max-heap built over scores in their order
// (container/heap.Init) leaves at its root, so the search order decides, as
// upstream does when no extender scored. With rnd, as upstream does when
// extenders scored (it draws a random tie-breaker per node then), the tie is
// broken uniformly at random by reservoir sampling: the k-th node seen with
// the best score so far replaces the choice with probability 1/k. rnd(n)
// must return a number in [0, n).
func SelectHost(scores []framework.NodePluginScores, rnd func(n int) int) (string, error) {
	if len(scores) == 0 {
		return "", errors.New("no node was scored")
	}
	best := 0
	ties := 1
	for i := 1; i < len(scores); i++ {
		switch total := scores[i].TotalScore; {
		case total > scores[best].TotalScore:
			best, ties = i, 1
		case total == scores[best].TotalScore:
			ties++
			if rnd != nil && rnd(ties) == 0 {
				best = i
			}
		}
	}
	if ties > 1 && rnd == nil {
		best = heapRoot(scores)
	}
	return scores[best].Name, nil
}

// heapOrder is scratch space for heapRoot.
var heapOrder = sync.Pool{New: func() any { return new([]int32) }}

// heapRoot returns the index of the score that container/heap.Init leaves
// at the root of a heap over scores ordered by higher total score, without
// moving scores: it runs the same sift-downs on a permutation of indices.
func heapRoot(scores []framework.NodePluginScores) int {
	buf := heapOrder.Get().(*[]int32)
	defer heapOrder.Put(buf)
	n := len(scores)
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	perm := (*buf)[:n]
	for i := range perm {
		perm[i] = int32(i)
	}
	higher := func(a, b int) bool { return scores[perm[a]].TotalScore > scores[perm[b]].TotalScore }
	for i := n/2 - 1; i >= 0; i-- {
		for parent := i; ; {
			child := 2*parent + 1
			if child >= n {
				break
			}
			if right := child + 1; right < n && higher(right, child) {
				child = right
			}
			if !higher(child, parent) {
				break
			}
			perm[parent], perm[child] = perm[child], perm[parent]
			parent = child
		}
	}
	return int(perm[0])
}
