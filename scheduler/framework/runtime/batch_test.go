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
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// signing is a plugin with PreFilter, Filter, PreScore and Score that
// signs pods by their app label, and refuses pods labelled nosign.
type signing struct{ filterScorePlugin }

func (signing) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	if _, ok := pod.Labels["nosign"]; ok {
		return nil, framework.NewStatus(framework.Unschedulable, "not signable")
	}
	return []framework.SignFragment{{Key: "app", Value: pod.Labels["app"]}}, nil
}

// batchRig is a profile of one signing plugin over nodes whose scores and
// room the test sets.
type batchRig struct {
	t      *testing.T
	f      *Framework
	b      *Batch
	clock  *clocktesting.FakeClock
	reg    *prometheus.Registry
	lister *st.Lister
	// full nodes reject every pod; broken ones fail Filter with an error.
	full, broken map[string]bool
	// score is each node's raw score, normalized by dividing by the highest.
	score map[string]int64
}

func newBatchRig(t *testing.T, scores map[string]int64, opts ...Option) *batchRig {
	t.Helper()
	r := &batchRig{t: t, clock: clocktesting.NewFakeClock(time.Unix(1000, 0)), reg: prometheus.NewRegistry(),
		full: map[string]bool{}, broken: map[string]bool{}, score: scores}
	names := make([]string, 0, len(scores))
	for n := range scores {
		names = append(names, n)
	}
	slices.Sort(names)
	r.lister = st.NewLister(st.NamedNodeInfos(names...)...)
	m, err := metrics.New(r.reg)
	if err != nil {
		t.Fatal(err)
	}
	fk := &fake{name: "Sign",
		filter: func(_ *framework.CycleState, ni *framework.NodeInfo) *framework.Status {
			switch {
			case r.broken[ni.Name()]:
				return framework.AsStatus(context.DeadlineExceeded)
			case r.full[ni.Name()]:
				return framework.NewStatus(framework.Unschedulable, "full")
			}
			return nil
		},
		score: func(ni *framework.NodeInfo) (int64, *framework.Status) { return r.score[ni.Name()], nil },
		normalize: func(scores framework.NodeScoreList) *framework.Status {
			var top int64
			for _, s := range scores {
				top = max(top, s.Score)
			}
			for i := range scores {
				if top > 0 {
					scores[i].Score = scores[i].Score * framework.MaxNodeScore / top
				}
			}
			return nil
		}}
	pl := signing{filterScorePlugin{filterPlugin{fk}, scorePlugin{fk}}}
	opts = append([]Option{WithClock(r.clock), WithMetrics(m), WithSnapshotSharedLister(r.lister), WithOpportunisticBatching(true)}, opts...)
	r.f = newFw(t, []framework.Plugin{pl}, opts...)
	r.b = r.f.Batch()
	if r.b == nil {
		t.Fatal("a profile whose plugins all sign pods does not batch")
	}
	return r
}

// schedule runs a pod's search as the scheduling loop does with batching:
// the hint first, else every node that fits, scored. It returns the node
// chosen and the hint offered.
func (r *batchRig) schedule(pod *v1.Pod, cycle int64) (chosen, hint string) {
	r.t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	sig := r.b.Sign(ctx, pod, cycle)
	hint = r.b.NodeHint(ctx, r.lister.NodeInfos(), state, pod, sig, cycle)
	if hint != "" {
		ni, _ := r.lister.Get(hint)
		if r.f.RunFilterPlugins(ctx, state, pod, ni).IsSuccess() {
			r.b.Store(ctx, sig, hint, hint, nil, cycle)
			return hint, hint
		}
	}
	var feasible []*framework.NodeInfo
	for _, ni := range r.lister.Nodes {
		if r.f.RunFilterPlugins(ctx, state, pod, ni).IsSuccess() {
			feasible = append(feasible, ni)
		}
	}
	switch len(feasible) {
	case 0:
		return "", hint
	case 1:
		r.b.Store(ctx, sig, hint, feasible[0].Name(), nil, cycle)
		return feasible[0].Name(), hint
	}
	if s := r.f.RunPreScorePlugins(ctx, state, pod, feasible); !s.IsSuccess() {
		r.t.Fatal(s.AsError())
	}
	score := r.f.RunScorePlugins
	if sig != nil {
		score = r.b.Score
	}
	scores, s := score(ctx, state, pod, feasible)
	if !s.IsSuccess() {
		r.t.Fatal(s.AsError())
	}
	host, err := SelectHost(scores, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.b.Store(ctx, sig, hint, host, scores, cycle)
	return host, hint
}

// count reads a batching counter of the profile by its second label.
func (r *batchRig) count(name, label string) float64 {
	r.t.Helper()
	families, err := r.reg.Gather()
	if err != nil {
		r.t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() != "profile" && lp.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func app(name, label string) *v1.Pod { return st.Pod(name).Label("app", label).Obj() }

func TestBatchReuseRules(t *testing.T) {
	scores := map[string]int64{"a": 90, "b": 80, "c": 70, "d": 60}
	tests := []struct {
		name string
		// before runs after the first pod took node a, and before the second pod.
		before     func(r *batchRig)
		second     *v1.Pod
		cycle      int64
		wantHint   string
		wantChosen string
		wantFlush  string
	}{
		{name: "the next best node when the last one is full",
			before: func(r *batchRig) { r.full["a"] = true }, second: app("p2", "web"), cycle: 2,
			wantHint: "b", wantChosen: "b"},
		{name: "the last node again when the pod still fits there and it still scores best",
			second: app("p2", "web"), cycle: 2, wantHint: "a", wantChosen: "a"},
		{name: "the last node rescored below the others",
			before: func(r *batchRig) { r.score["a"] = 10 }, second: app("p2", "web"), cycle: 2,
			wantHint: "b", wantChosen: "b"},
		{name: "a pod of the same PodGroup cycle",
			before: func(r *batchRig) { r.full["a"] = true }, second: app("p2", "web"), cycle: 1,
			wantHint: "b", wantChosen: "b"},
		{name: "another signature searches in full",
			before: func(r *batchRig) { r.full["a"] = true }, second: app("p2", "db"), cycle: 2,
			wantChosen: "b", wantFlush: metrics.BatchFlushPodIncompatible},
		{name: "a pod that cannot be signed searches in full",
			before: func(r *batchRig) { r.full["a"] = true }, second: st.Pod("p2").Label("app", "web").Label("nosign", "").Obj(), cycle: 2,
			wantChosen: "b", wantFlush: metrics.BatchFlushPodIncompatible},
		{name: "a cycle in between drops the nodes kept",
			before: func(r *batchRig) { r.full["a"] = true }, second: app("p2", "web"), cycle: 3,
			wantChosen: "b", wantFlush: metrics.BatchFlushPodSkipped},
		{name: "a nominated pod searches in full",
			before: func(r *batchRig) { r.full["a"] = true }, second: st.Pod("p2").Label("app", "web").Nominated("c").Obj(), cycle: 2,
			wantChosen: "b", wantFlush: metrics.BatchFlushPodNominated},
		{name: "nodes kept longer than the age limit are dropped",
			before: func(r *batchRig) { r.full["a"] = true; r.clock.Step(MaxBatchAge + time.Millisecond) }, second: app("p2", "web"), cycle: 2,
			wantChosen: "b", wantFlush: metrics.BatchFlushExpired},
		{name: "nodes kept up to the age limit serve",
			before: func(r *batchRig) { r.full["a"] = true; r.clock.Step(MaxBatchAge) }, second: app("p2", "web"), cycle: 2,
			wantHint: "b", wantChosen: "b"},
		{name: "the last node gone drops the nodes kept",
			before: func(r *batchRig) { r.lister.Nodes = r.lister.Nodes[1:] }, second: app("p2", "web"), cycle: 2,
			wantChosen: "b", wantFlush: metrics.BatchFlushNodeMissing},
		{name: "a kept node gone drops them when the last node is rescored",
			before: func(r *batchRig) { r.lister.Nodes = slices.Delete(r.lister.Nodes, 2, 3) }, second: app("p2", "web"), cycle: 2,
			wantChosen: "a", wantFlush: metrics.BatchFlushNodeMissing},
		{name: "an error filtering the last node drops the nodes kept",
			before: func(r *batchRig) { r.broken["a"] = true }, second: app("p2", "web"), cycle: 2,
			wantChosen: "b", wantFlush: metrics.BatchFlushFilterError},
		{name: "a hint that no longer fits is searched past",
			before: func(r *batchRig) { r.full["a"], r.full["b"] = true, true }, second: app("p2", "web"), cycle: 2,
			wantHint: "b", wantChosen: "c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newBatchRig(t, cloneScores(scores))
			if chosen, hint := r.schedule(app("p1", "web"), 1); chosen != "a" || hint != "" {
				t.Fatalf("first pod: chosen %q, hint %q; want a and no hint", chosen, hint)
			}
			if tc.before != nil {
				tc.before(r)
			}
			chosen, hint := r.schedule(tc.second, tc.cycle)
			if hint != tc.wantHint || chosen != tc.wantChosen {
				t.Errorf("second pod: hint %q, chosen %q; want hint %q, chosen %q", hint, chosen, tc.wantHint, tc.wantChosen)
			}
			if tc.wantFlush != "" && r.count("scheduler_batch_cache_flushed_total", tc.wantFlush) != 1 {
				t.Errorf("want one flush for %s", tc.wantFlush)
			}
			wantUsed := 0.0
			if tc.wantHint != "" && tc.wantHint == tc.wantChosen {
				wantUsed = 1
			}
			if got := r.count("scheduler_batch_attempts_total", metrics.BatchHintUsed); got != wantUsed {
				t.Errorf("hint_used = %v, want %v", got, wantUsed)
			}
		})
	}
}

func cloneScores(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestBatchRunOfPods places a run of identical pods, one per node: each
// after the first takes the next best node without a search.
func TestBatchRunOfPods(t *testing.T) {
	r := newBatchRig(t, map[string]int64{"a": 50, "b": 90, "c": 70, "d": 80})
	var got []string
	for i := range 4 {
		chosen, _ := r.schedule(app("p", "web"), int64(i+1))
		got = append(got, chosen)
		r.full[chosen] = true
	}
	if want := []string{"b", "d", "c", "a"}; !slices.Equal(got, want) {
		t.Errorf("placed on %v, want %v", got, want)
	}
	if r.b.Batched() != 3 {
		t.Errorf("batched %d pods, want the 3 after the first", r.b.Batched())
	}
	if chosen, _ := r.schedule(app("p", "web"), 5); chosen != "" {
		t.Errorf("a fifth pod went to %q with every node full", chosen)
	}
}

func TestBatchStoreFlushes(t *testing.T) {
	tests := []struct {
		name      string
		scores    map[string]int64
		pod       *v1.Pod
		wantFlush string
	}{
		{name: "one node feasible leaves nothing", scores: map[string]int64{"a": 1}, pod: app("p", "web"),
			wantFlush: metrics.BatchFlushEmptyList},
		{name: "an unsigned pod leaves nothing", scores: map[string]int64{"a": 1, "b": 2},
			pod: st.Pod("p").Label("nosign", "").Obj(), wantFlush: metrics.BatchFlushPodNotBatchable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newBatchRig(t, tc.scores)
			r.schedule(tc.pod, 1)
			if r.count("scheduler_batch_cache_flushed_total", tc.wantFlush) != 1 {
				t.Errorf("want one flush for %s", tc.wantFlush)
			}
			if hint := r.b.NodeHint(context.Background(), r.lister.NodeInfos(), framework.NewCycleState(), app("q", "web"),
				r.b.Sign(context.Background(), app("q", "web"), 2), 2); hint != "" {
				t.Errorf("hint %q after nothing was kept", hint)
			}
		})
	}
}

func TestBatchingSwitch(t *testing.T) {
	enabled, disabled := v1alpha1.BatchingEnabled, v1alpha1.BatchingDisabled
	tests := []struct {
		name        string
		mode        *v1alpha1.BatchingMode
		processWide bool
		want        bool
	}{
		{name: "unset follows the process default, on", processWide: true, want: true},
		{name: "unset follows the process default, off", processWide: false, want: false},
		{name: "Disabled overrides the process default", mode: &disabled, processWide: true, want: false},
		{name: "Enabled overrides the process default", mode: &enabled, processWide: false, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := batches(tc.mode, tc.processWide); got != tc.want {
				t.Errorf("batches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProfileWithAnUnsignedPluginDoesNotBatch(t *testing.T) {
	unsigned := scorePlugin{&fake{name: "Plain"}}
	f := newFw(t, []framework.Plugin{unsigned}, WithOpportunisticBatching(true))
	if f.Batch() != nil {
		t.Error("a profile with a Score plugin that cannot sign batches")
	}
	if ok, names := f.Signs(); ok || !slices.Equal(names, []string{"Plain"}) {
		t.Errorf("Signs() = %v, %v; want false, [Plain]", ok, names)
	}
	if sig := f.SignPod(context.Background(), st.Pod("p").Obj()); sig != nil {
		t.Errorf("signature %s from a profile that cannot sign", sig)
	}
}
