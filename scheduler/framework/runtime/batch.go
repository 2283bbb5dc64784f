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
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
)

// MaxBatchAge is how long the nodes one pod's search scored may be reused
// by the pods that follow it, as in kube-scheduler.
const MaxBatchAge = 500 * time.Millisecond

// Batch is a profile's opportunistic batching, as kube-scheduler v1.37
// does it (KEP-5598): a pod with the same signature as the pod scheduled
// just before it is offered, as a hint, the best node that pod's search
// scored after the one it took. The hint is filtered like a nominated
// node; when it passes, the pod goes there without a search.
//
// A Batch belongs to one scheduling loop: it is not safe for concurrent
// use, and searches of shadow profiles or berth explain never use it.
type Batch struct {
	f       *Framework
	state   *batchState
	last    batchCycle
	sigs    map[*v1.Pod]framework.PodSignature
	sigsFor int64
	// raw are the raw scores of the search in progress, from Score.
	raw *rawScores
	// infos and list are scratch space for rescore.
	infos []*framework.NodeInfo
	list  framework.NodeScoreList
	// batched counts the pods that took their hint.
	batched int64
}

// batchState is what the last search left for the next pod.
type batchState struct {
	signature framework.PodSignature
	// plugins name the Score plugins the candidates were scored by, in
	// order; norm are the indexes of those that normalize their scores.
	plugins    []string
	norm       []int
	candidates candidateHeap
	created    time.Time
}

// batchCycle is the last cycle that stored results.
type batchCycle struct {
	cycle     int64
	chosen    string
	succeeded bool
}

// candidate is a node the last search scored and did not take.
type candidate struct {
	name  string
	total int64
	// fixed sums the weighted scores of the plugins that do not normalize:
	// they do not change when other nodes join or leave the candidates.
	fixed int64
	// raw are the scores, before normalization, of the plugins that
	// normalize, in the order of batchState.norm.
	raw []int64
}

// candidateHeap orders candidates by total score, highest first, as
// kube-scheduler's sorted scored nodes are ordered when no extender
// scored.
type candidateHeap []candidate

func (h candidateHeap) Len() int           { return len(h) }
func (h candidateHeap) Less(i, j int) bool { return h[i].total > h[j].total }
func (h candidateHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *candidateHeap) Push(x any)        { *h = append(*h, x.(candidate)) }
func (h *candidateHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Batch returns the profile's batching, nil when it does not batch: it was
// built without batching, has extenders, or a PreFilter, Filter, PreScore
// or Score plugin that cannot sign pods.
func (f *Framework) Batch() *Batch { return f.batch }

// Signs reports whether the profile can sign pods, so batch them when
// batching is on; when it cannot, unsigned names the plugins that cannot
// sign (or "extenders").
func (f *Framework) Signs() (ok bool, unsigned []string) {
	return len(f.unsigned) == 0, f.unsigned
}

// computeSigners collects the plugins that sign pods; a plugin at a
// filtering or scoring point that cannot sign, or an extender, leaves
// the profile unable to.
func (f *Framework) computeSigners() {
	seen := map[string]bool{}
	add := func(p framework.Plugin) {
		name := p.Name()
		if seen[name] {
			return
		}
		seen[name] = true
		if s, ok := p.(framework.SignPlugin); ok {
			f.signers = append(f.signers, s)
			return
		}
		f.unsigned = append(f.unsigned, name)
	}
	for _, p := range f.preFilter {
		add(p)
	}
	for _, p := range f.filter {
		add(p)
	}
	for _, p := range f.preScore {
		add(p)
	}
	for _, p := range f.score {
		add(p)
	}
	if len(f.extenders) > 0 {
		f.unsigned = append(f.unsigned, "extenders")
	}
}

// SignPod returns the pod's signature under the profile, nil when the
// profile or one of its plugins cannot sign it. Pods with equal
// signatures are filtered and scored alike on the same nodes.
func (f *Framework) SignPod(ctx context.Context, pod *v1.Pod) framework.PodSignature {
	if len(f.unsigned) > 0 {
		return nil
	}
	sig := map[string]any{framework.SchedulerNameSignKey: pod.Spec.SchedulerName}
	for _, pl := range f.signers {
		fragments, st := pl.SignPod(ctx, pod)
		if !st.IsSuccess() {
			if st.Code() == framework.Error {
				klog.FromContext(ctx).Error(st.AsError(), "Signing the pod failed", "plugin", pl.Name())
			}
			return nil
		}
		for _, fr := range fragments {
			sig[fr.Key] = fr.Value
		}
	}
	b, err := json.Marshal(sig)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Encoding the pod's signature failed")
		return nil
	}
	return b
}

// newBatch returns the profile's batching, or nil when it cannot sign pods.
func newBatch(f *Framework) *Batch {
	if len(f.unsigned) > 0 {
		return nil
	}
	return &Batch{f: f}
}

// Sign returns the pod's signature in cycle, signing each pod once per cycle.
func (b *Batch) Sign(ctx context.Context, pod *v1.Pod, cycle int64) framework.PodSignature {
	if b.sigs == nil || b.sigsFor != cycle {
		b.sigs, b.sigsFor = map[*v1.Pod]framework.PodSignature{}, cycle
	}
	if sig, ok := b.sigs[pod]; ok {
		return sig
	}
	sig := b.f.SignPod(ctx, pod)
	b.sigs[pod] = sig
	return sig
}

// Batched returns how many pods took their hint.
func (b *Batch) Batched() int64 { return b.batched }

// NodeHint returns the node the pod should be filtered on first, "" for
// none: the best node left by the last search when that search was the
// previous cycle's (or this PodGroup cycle's), succeeded, was for a pod
// of the same signature, is at most MaxBatchAge old, and the pod is not
// nominated. The node the last pod took is filtered again first: when the
// pod still fits there, it is scored again and competes with the others.
func (b *Batch) NodeHint(ctx context.Context, nodes framework.NodeInfoLister, state *framework.CycleState, pod *v1.Pod, sig framework.PodSignature, cycle int64) (hint string) {
	start := b.f.clock.Now()
	defer func() {
		hinted := "hint"
		if hint == "" {
			hinted = "no_hint"
			b.f.metrics.CountBatchAttempt(b.f.profileName, metrics.BatchNoHint)
		}
		b.f.metrics.ObserveNodeHint(hinted, b.f.profileName, b.f.clock.Since(start))
	}()
	if !b.usable(ctx, pod, sig, cycle) || !b.refresh(ctx, nodes, state, pod, cycle) {
		return ""
	}
	hint = heap.Pop(&b.state.candidates).(candidate).name
	klog.FromContext(ctx).V(3).Info("Batching offers a node", "profile", b.f.profileName, "cycle", cycle, "hint", hint,
		"remainingNodes", b.state.candidates.Len())
	return hint
}

// usable reports whether the kept state may serve the pod, and drops it
// when it may not.
func (b *Batch) usable(ctx context.Context, pod *v1.Pod, sig framework.PodSignature, cycle int64) bool {
	if b.empty() {
		return false
	}
	reason := ""
	switch {
	case cycle != b.last.cycle+1 && cycle != b.last.cycle:
		// Another profile's pod, or a pod that failed, came in between.
		reason = metrics.BatchFlushPodSkipped
	case !b.last.succeeded:
		reason = metrics.BatchFlushPodFailed
	case pod.Status.NominatedNodeName != "":
		reason = metrics.BatchFlushPodNominated
	case sig == nil || !bytes.Equal(sig, b.state.signature):
		reason = metrics.BatchFlushPodIncompatible
	case b.f.clock.Since(b.state.created) > MaxBatchAge:
		reason = metrics.BatchFlushExpired
	}
	if reason != "" {
		b.flush(ctx, cycle, reason)
		return false
	}
	return true
}

// refresh filters the node the last pod took for this pod; when the pod
// fits there too, the node is scored again and competes with the others.
// It reports whether a hint may still be given.
func (b *Batch) refresh(ctx context.Context, nodes framework.NodeInfoLister, state *framework.CycleState, pod *v1.Pod, cycle int64) bool {
	ni, err := nodes.Get(b.last.chosen)
	if err != nil || ni == nil {
		b.flush(ctx, cycle, metrics.BatchFlushNodeMissing)
		return false
	}
	st := b.f.RunFilterPlugins(ctx, state, pod, ni)
	switch {
	case st.IsSuccess():
		return b.rescore(ctx, nodes, state, pod, ni, cycle)
	case !st.IsRejected():
		b.flush(ctx, cycle, metrics.BatchFlushFilterError)
		return false
	}
	return true
}

// rescore scores the node the last pod took again, on a copy of the
// state, and normalizes every candidate's raw scores again with it.
func (b *Batch) rescore(ctx context.Context, nodes framework.NodeInfoLister, state *framework.CycleState, pod *v1.Pod, last *framework.NodeInfo, cycle int64) bool {
	start := b.f.clock.Now()
	defer func() { b.f.metrics.ObserveBatchRescore(b.f.profileName, b.f.clock.Since(start)) }()
	b.f.metrics.CountBatchRescore(b.f.profileName)

	cands := b.state.candidates
	infos := b.infos[:0]
	for _, c := range cands {
		ni, err := nodes.Get(c.name)
		if err != nil || ni == nil {
			b.flush(ctx, cycle, metrics.BatchFlushNodeMissing)
			return false
		}
		infos = append(infos, ni)
	}
	infos = append(infos, last)
	b.infos = infos
	defer clear(b.infos)
	rs := state.Clone()
	if st := b.f.RunPreScorePlugins(ctx, rs, pod, infos); !st.IsSuccess() {
		b.flush(ctx, cycle, metrics.BatchFlushPreScoreError)
		return false
	}
	plugins, weights := b.f.activeScorePlugins(rs)
	if !slices.Equal(plugins, b.state.plugins) {
		// The candidates were scored by other plugins; they cannot be compared.
		b.flush(ctx, cycle, metrics.BatchFlushRescoreError)
		return false
	}
	fresh, err := b.f.rawScoresOf(ctx, rs, pod, last, plugins)
	if err != nil {
		b.flush(ctx, cycle, metrics.BatchFlushRescoreError)
		return false
	}
	c, err := candidateOf(last.Name(), fresh, plugins, weights, b.state.norm, nil)
	if err != nil {
		b.flush(ctx, cycle, metrics.BatchFlushNormalizeError)
		return false
	}
	cands = append(cands, c)
	if err := b.normalize(ctx, rs, pod, weights, cands); err != nil {
		b.flush(ctx, cycle, metrics.BatchFlushNormalizeError)
		return false
	}
	heap.Init(&cands)
	b.state.candidates = cands
	return true
}

// Store records a search's outcome: the pod's signature, the node hinted
// ("" for none), the node chosen, and the scores of the nodes searched
// (nil when one node was feasible), which Score must have computed. A pod
// that took its hint leaves the kept nodes as they are; otherwise the
// nodes it did not take are kept for the next pod, when it was signed.
func (b *Batch) Store(ctx context.Context, sig framework.PodSignature, hinted, chosen string, scores []framework.NodePluginScores, cycle int64) {
	raw := b.raw
	b.raw = nil
	start := b.f.clock.Now()
	defer func() { b.f.metrics.ObserveStoreResults(b.f.profileName, b.f.clock.Since(start)) }()
	logger := klog.FromContext(ctx)
	b.last = batchCycle{cycle: cycle, chosen: chosen, succeeded: true}
	if hinted != "" && hinted == chosen {
		b.f.metrics.CountBatchAttempt(b.f.profileName, metrics.BatchHintUsed)
		b.batched++
		return
	}
	if hinted != "" {
		b.f.metrics.CountBatchAttempt(b.f.profileName, metrics.BatchHintNotUsed)
		logger.V(4).Info("Batching hint not taken", "profile", b.f.profileName, "hint", hinted, "chosen", chosen)
	}
	switch {
	case len(scores) < 2:
		b.flush(ctx, cycle, metrics.BatchFlushEmptyList)
		return
	case sig == nil || raw == nil:
		b.flush(ctx, cycle, metrics.BatchFlushPodNotBatchable)
		return
	}
	weights := b.f.weightsOf(raw.plugins)
	norm := b.f.normalizing(raw.plugins)
	cands, err := candidatesOf(scores, raw, weights, norm)
	if err != nil {
		b.flush(ctx, cycle, metrics.BatchFlushNormalizeError)
		return
	}
	heap.Init(&cands)
	if top := heap.Pop(&cands).(candidate); top.name != chosen {
		// The search did not take its best node (a preference, an
		// extender's tie-break): the order kept would not be the search's.
		b.flush(ctx, cycle, metrics.BatchFlushPodNotBatchable)
		return
	}
	b.state = &batchState{signature: sig, plugins: raw.plugins, norm: norm, candidates: cands, created: b.f.clock.Now()}
	logger.V(4).Info("Batching keeps the nodes scored", "profile", b.f.profileName, "nodes", cands.Len(), "cycle", cycle)
}

// candidatesOf turns each scored node into a candidate, with the totals
// the search computed.
func candidatesOf(scores []framework.NodePluginScores, raw *rawScores, weights []int64, norm []int) (candidateHeap, error) {
	n := len(raw.plugins)
	backing := make([]int64, len(scores)*len(norm))
	out := make(candidateHeap, len(scores))
	for i, s := range scores {
		c, err := candidateOf(s.Name, raw.values[i*n:(i+1)*n], raw.plugins, weights, norm, backing[i*len(norm):(i+1)*len(norm):(i+1)*len(norm)])
		if err != nil {
			return nil, err
		}
		c.total = s.TotalScore
		out[i] = c
	}
	return out, nil
}

// candidateOf is a node scored raw by plugins (weighted by weights, the
// indexes norm normalizing); keep, when not nil, holds the raw scores of
// the normalizing plugins.
func candidateOf(name string, raw []int64, plugins []string, weights []int64, norm []int, keep []int64) (candidate, error) {
	if keep == nil {
		keep = make([]int64, len(norm))
	}
	c := candidate{name: name, raw: keep}
	k := 0
	for j, score := range raw {
		if k < len(norm) && norm[k] == j {
			keep[k] = score
			k++
			continue
		}
		if score < framework.MinNodeScore || score > framework.MaxNodeScore {
			return candidate{}, fmt.Errorf("plugin %q scored node %q %d, outside [%d, %d]",
				plugins[j], name, score, framework.MinNodeScore, framework.MaxNodeScore)
		}
		c.fixed += score * weights[j]
	}
	return c, nil
}

// flush drops the kept state, counting why.
func (b *Batch) flush(ctx context.Context, cycle int64, reason string) {
	b.f.metrics.CountBatchFlush(b.f.profileName, reason)
	if l := klog.FromContext(ctx).V(4); l.Enabled() {
		l.Info("Batching drops the nodes kept", "profile", b.f.profileName, "cycle", cycle, "reason", reason)
	}
	b.state = nil
}

// empty reports whether nothing is kept.
func (b *Batch) empty() bool { return b.state == nil || b.state.candidates.Len() == 0 }

// activeScorePlugins returns the Score plugins PreScore did not skip in
// state, with their weights.
func (f *Framework) activeScorePlugins(state *framework.CycleState) ([]string, []int64) {
	names := make([]string, 0, len(f.score))
	weights := make([]int64, 0, len(f.score))
	for i, pl := range f.score {
		if name := pl.Name(); !state.SkipsScore(name) {
			names = append(names, name)
			weights = append(weights, f.scoreWeights[i])
		}
	}
	return names, weights
}

// scorePlugin returns the Score plugin named name.
func (f *Framework) scorePlugin(name string) framework.ScorePlugin {
	for _, pl := range f.score {
		if pl.Name() == name {
			return pl
		}
	}
	return nil
}

// rawScoresOf scores one node with the named plugins, before normalization.
func (f *Framework) rawScoresOf(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo, plugins []string) ([]int64, error) {
	out := make([]int64, len(plugins))
	for j, name := range plugins {
		pl := f.scorePlugin(name)
		var (
			score int64
			st    *framework.Status
		)
		if cs, ok := pl.(framework.CycleScorePlugin); ok {
			scorer, s := cs.NodeScorer(ctx, state, pod)
			if !s.IsSuccess() {
				return nil, fmt.Errorf("preparing Score plugin %q: %w", name, s.AsError())
			}
			score, st = scorer(ni)
		} else {
			score, st = pl.Score(ctx, state, pod, ni)
		}
		if !st.IsSuccess() {
			return nil, fmt.Errorf("running Score plugin %q on node %q: %w", name, ni.Name(), st.AsError())
		}
		out[j] = score
	}
	return out, nil
}

// weightsOf returns the weights of the named Score plugins.
func (f *Framework) weightsOf(plugins []string) []int64 {
	out := make([]int64, len(plugins))
	for j, name := range plugins {
		for i, pl := range f.score {
			if pl.Name() == name {
				out[j] = f.scoreWeights[i]
			}
		}
	}
	return out
}

// normalizing returns the indexes of the named Score plugins that
// normalize their scores.
func (f *Framework) normalizing(plugins []string) []int {
	var out []int
	for j, name := range plugins {
		if f.scorePlugin(name).ScoreExtensions() != nil {
			out = append(out, j)
		}
	}
	return out
}

// normalize normalizes the candidates' raw scores of the plugins that
// normalize across all of them, plugin by plugin, and sets each
// candidate's total: its fixed part and the weighted normalized scores.
func (b *Batch) normalize(ctx context.Context, state *framework.CycleState, pod *v1.Pod, weights []int64, cands []candidate) error {
	for i := range cands {
		cands[i].total = cands[i].fixed
	}
	if cap(b.list) < len(cands) {
		b.list = make(framework.NodeScoreList, len(cands))
	}
	list := b.list[:len(cands)]
	defer clear(list)
	for k, j := range b.state.norm {
		name := b.state.plugins[j]
		for i, c := range cands {
			list[i] = framework.NodeScore{Name: c.name, Score: c.raw[k]}
		}
		if st := b.f.scorePlugin(name).ScoreExtensions().NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
			return fmt.Errorf("running NormalizeScore of plugin %q: %w", name, st.AsError())
		}
		for i := range cands {
			s := list[i].Score
			if s < framework.MinNodeScore || s > framework.MaxNodeScore {
				return fmt.Errorf("plugin %q scored node %q %d after normalization, outside [%d, %d]",
					name, list[i].Name, s, framework.MinNodeScore, framework.MaxNodeScore)
			}
			cands[i].total += s * weights[j]
		}
	}
	return nil
}

// Score is Framework.RunScorePlugins for a search whose scores the batch
// may keep: the raw scores are kept until the search's Store.
func (b *Batch) Score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) ([]framework.NodePluginScores, *framework.Status) {
	result, raw, st := b.f.runScorePlugins(ctx, state, pod, nodes, true)
	b.raw = raw
	return result, st
}
