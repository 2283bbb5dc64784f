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
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/shadow"
)

const mostAllocated = `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`

// shadowHarness is a scheduler with a live default profile and a shadow of
// it, on a random cluster, whose cycles are driven by the test.
type shadowHarness struct {
	t   *testing.T
	ctx context.Context
	s   *Scheduler
	rng *rand.Rand
}

func newShadowHarness(t *testing.T, seed uint64, nodes int, shadowSpec *v1alpha1.SchedulingProfileSpec) *shadowHarness {
	t.Helper()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	s, err := New(ctx, fake.NewClientset(), WithSeed(seed), inTree())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 1, &v1alpha1.SchedulingProfileSpec{}); err != nil {
		t.Fatal(err)
	}
	fwk, err := s.CompileShadow(ctx, "candidate", shadowSpec)
	if err != nil {
		t.Fatal(err)
	}
	rate := int32(100)
	if shadowSpec.ShadowSampleRatePercent != nil {
		rate = *shadowSpec.ShadowSampleRatePercent
	}
	s.InstallShadow(ctx, &ShadowProfile{Framework: fwk, Source: "candidate", Generation: 1, Of: v1.DefaultSchedulerName, SampleRatePercent: rate})
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := range nodes {
		s.cache.AddNode(logr.Discard(), randomNode(rng, i))
	}
	return &shadowHarness{t: t, ctx: ctx, s: s, rng: rng}
}

// cycle runs one pod's scheduling cycle as scheduleOne does (without
// Reserve, Permit or binding; the pod is added to the cache as bound) and
// returns the shadow's job, if one was handed to the worker.
func (h *shadowHarness) cycle(pod *v1.Pod) *shadowJob {
	h.t.Helper()
	s := h.s
	fwk := s.profiles.Get(v1.DefaultSchedulerName).Framework
	s.beginShadow(pod, fwk)
	result, err := s.schedulePod(h.ctx, fwk, framework.NewCycleState(), pod, false)
	var failure *schedulingFailure
	if err != nil {
		failure = &schedulingFailure{err: err}
	}
	s.endShadow(result.Host, failure)
	if err == nil {
		bound := pod.DeepCopy()
		bound.Spec.NodeName = result.Host
		if err := s.cache.AddPod(logr.Discard(), bound); err != nil {
			h.t.Fatal(err)
		}
	}
	select {
	case job := <-s.shadows.jobs:
		return job
	default:
		return nil
	}
}

// work runs a job as the worker does and frees the worker.
func (h *shadowHarness) work(job *shadowJob) {
	for _, p := range job.profiles {
		h.s.evaluateShadow(h.ctx, p, job)
	}
	h.s.shadows.idle <- struct{}{}
}

func (h *shadowHarness) stats() ShadowStats {
	h.t.Helper()
	st, ok := h.s.ShadowStats("candidate")
	if !ok {
		h.t.Fatal("no stats for the shadow")
	}
	return st
}

// TestShadowIdenticalToLiveAgreesOnEveryPod evaluates a shadow identical
// to the live profile on hundreds of random pods, on clusters small enough
// that every node is searched and large enough that the search stops
// early: every evaluation agrees, unschedulable pods included, because the
// shadow sees the cycle's snapshot and starts its search where the cycle did.
func TestShadowIdenticalToLiveAgreesOnEveryPod(t *testing.T) {
	for _, tc := range []struct {
		seed  uint64
		nodes int
	}{{1, 30}, {2, 40}, {3, 240}} {
		t.Run(fmt.Sprintf("seed-%d-%d-nodes", tc.seed, tc.nodes), func(t *testing.T) {
			h := newShadowHarness(t, tc.seed, tc.nodes, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
			const pods = 300
			for i := range pods {
				job := h.cycle(randomPod(h.rng, i))
				if job == nil {
					t.Fatalf("pod %d: no shadow job although the worker was free", i)
				}
				h.work(job)
			}
			st := h.stats()
			if st.Evaluated() != pods || st.Outcomes[shadow.OutcomeAgreed] != pods {
				t.Errorf("outcomes %v, want all %d agreed; recent disagreements %+v", st.Outcomes, pods, st.Recent)
			}
		})
	}
}

// TestShadowMostAllocatedDisagreesOnNodeResourcesFit shadows the default
// (LeastAllocated) profile with MostAllocated: they disagree, and
// NodeResourcesFit decides the disagreements most often.
func TestShadowMostAllocatedDisagreesOnNodeResourcesFit(t *testing.T) {
	h := newShadowHarness(t, 7, 30, &v1alpha1.SchedulingProfileSpec{
		ShadowOf:     v1.DefaultSchedulerName,
		PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: runtimeRaw(mostAllocated)}},
	})
	for i := range 200 {
		if job := h.cycle(randomPod(h.rng, i)); job != nil {
			h.work(job)
		}
	}
	st := h.stats()
	if st.Outcomes[shadow.OutcomeDisagreed] < 50 {
		t.Fatalf("outcomes %v: want many disagreements", st.Outcomes)
	}
	if len(st.Deciding) == 0 || st.Deciding[0].Plugin != "NodeResourcesFit" {
		t.Errorf("deciding plugins %v: want NodeResourcesFit first", st.Deciding)
	}
	if len(st.Recent) != shadow.DefaultRecent {
		t.Errorf("%d recent disagreements, want %d", len(st.Recent), shadow.DefaultRecent)
	}
	for _, d := range st.Recent {
		if d.Decision.Outcome == shadow.OutcomeDisagreed && (d.Decision.LiveNode == d.Decision.ShadowNode || d.Decision.ShadowNode == "") {
			t.Errorf("disagreement %+v names no other node", d)
		}
	}
}

// TestShadowNeverHoldsTheLoop: with the worker busy, a sampled attempt is
// dropped and counted at once, and the cycle goes on with its own snapshot only.
func TestShadowNeverHoldsTheLoop(t *testing.T) {
	h := newShadowHarness(t, 4, 10, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	busy := h.cycle(randomPod(h.rng, 0))
	if busy == nil {
		t.Fatal("the first attempt got no job")
	}
	shadowGeneration := h.s.shadows.snapshot.Generation()
	// The worker holds the first job: the next attempts are dropped.
	for i := 1; i <= 5; i++ {
		if job := h.cycle(randomPod(h.rng, i)); job != nil {
			t.Fatalf("attempt %d got a job while the worker was busy", i)
		}
	}
	if got := h.s.shadows.snapshot.Generation(); got != shadowGeneration {
		t.Errorf("the shadows' snapshot moved from generation %d to %d while the worker held it", shadowGeneration, got)
	}
	h.work(busy)
	if job := h.cycle(randomPod(h.rng, 6)); job == nil {
		t.Fatal("no job once the worker was free again")
	} else {
		h.work(job)
	}
	st := h.stats()
	if st.Outcomes[shadow.OutcomeDropped] != 5 || st.Evaluated() != 2 {
		t.Errorf("outcomes %v: want 5 dropped, 2 evaluated", st.Outcomes)
	}
}

// TestShadowSamples evaluates about the share of attempts its rate asks for.
func TestShadowSamples(t *testing.T) {
	h := newShadowHarness(t, 5, 10, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName, ShadowSampleRatePercent: ptr.To[int32](20)})
	const pods = 500
	for i := range pods {
		pod := randomPod(h.rng, i)
		// Pods that fit anywhere, so the cluster does not fill up.
		pod.Spec.Containers[0].Resources.Requests = nil
		if job := h.cycle(pod); job != nil {
			h.work(job)
		}
	}
	if n := h.stats().Evaluated(); n < pods*20/100/2 || n > pods*20/100*2 {
		t.Errorf("%d of %d attempts evaluated at 20%%", n, pods)
	}
}

// TestRemoveShadow stops the evaluations and forgets the figures.
func TestRemoveShadow(t *testing.T) {
	h := newShadowHarness(t, 6, 5, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	h.s.RemoveShadow(h.ctx, "candidate")
	if job := h.cycle(randomPod(h.rng, 0)); job != nil {
		t.Error("a removed shadow still evaluates")
	}
	if _, ok := h.s.ShadowStats("candidate"); ok {
		t.Error("a removed shadow still has figures")
	}
}

// TestShadowWorkerBesideTheLoop runs the worker on its own goroutine while
// cycles go on, as in the scheduler (run it with -race): every attempt is
// either evaluated, and agreed with by an identical shadow, or dropped.
func TestShadowWorkerBesideTheLoop(t *testing.T) {
	h := newShadowHarness(t, 8, 120, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.s.runShadows(ctx)
	}()
	const pods = 300
	fwk := h.s.profiles.Get(v1.DefaultSchedulerName).Framework
	for i := range pods {
		pod := randomPod(h.rng, i)
		h.s.beginShadow(pod, fwk)
		result, err := h.s.schedulePod(h.ctx, fwk, framework.NewCycleState(), pod, false)
		var failure *schedulingFailure
		if err != nil {
			failure = &schedulingFailure{err: err}
		}
		h.s.endShadow(result.Host, failure)
		if err == nil {
			bound := pod.DeepCopy()
			bound.Spec.NodeName = result.Host
			if err := h.s.cache.AddPod(logr.Discard(), bound); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The worker is idle again once it hands its token back.
	<-h.s.shadows.idle
	cancel()
	<-done
	st := h.stats()
	if got := st.Evaluated() + st.Outcomes[shadow.OutcomeDropped]; got != pods {
		t.Errorf("%d attempts counted, want %d: %v", got, pods, st.Outcomes)
	}
	if st.Evaluated() == 0 || st.Outcomes[shadow.OutcomeAgreed] != st.Evaluated() {
		t.Errorf("outcomes %v: want every evaluated attempt agreed, and some evaluated", st.Outcomes)
	}
	t.Logf("outcomes %v", st.Outcomes)
}

// TestFiltersLike checks which profile changes leave a shadow's search for
// feasible nodes the live profile's, so that it may take the live cycle's.
func TestFiltersLike(t *testing.T) {
	fit := func(args string) v1alpha1.PluginConfig {
		return v1alpha1.PluginConfig{Name: "NodeResourcesFit", Args: runtimeRaw(args)}
	}
	tests := []struct {
		name string
		spec v1alpha1.SchedulingProfileSpec
		want bool
	}{
		{name: "the same profile", want: true},
		{name: "other score weights", want: true, spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NodeResourcesFit", Weight: ptr.To[int32](9)}}}}}},
		{name: "a scorer disabled", want: true, spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "ImageLocality"}}}}}},
		{name: "another scoring strategy: Fit filters alike", want: true, spec: v1alpha1.SchedulingProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{fit(mostAllocated)}}},
		{name: "resources Fit ignores", want: false, spec: v1alpha1.SchedulingProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{fit(`{"ignoredResources":["example.com/foo"]}`)}}},
		{name: "a filter disabled", want: false, spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Filter: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "TaintToleration"}}}}}},
		{name: "another share of nodes to find", want: false, spec: v1alpha1.SchedulingProfileSpec{PercentageOfNodesToScore: ptr.To[int32](100)}},
		{name: "filter args", want: false, spec: v1alpha1.SchedulingProfileSpec{PluginConfig: []v1alpha1.PluginConfig{
			{Name: "PodTopologySpread", Args: runtimeRaw(`{"defaultingType":"List"}`)}}}},
	}
	ctx := klog.NewContext(context.Background(), logr.Discard())
	s, err := New(ctx, fake.NewClientset(), inTree())
	if err != nil {
		t.Fatal(err)
	}
	live, err := s.CompileProfile(ctx, "live", &v1alpha1.SchedulingProfileSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.ShadowOf = "live"
			candidate, err := s.CompileShadow(ctx, "candidate", &spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := candidate.FiltersLike(live); got != tt.want {
				t.Errorf("FiltersLike = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestShadowReusesTheLiveSearch checks that a shadow filtering like the
// live profile takes the live cycle's feasible nodes, and that what it
// makes of them is what its own search would have: the same feasible
// nodes, the same scores, on random pods and clusters where the search
// stops early and where it does not. A pod with a claim is filtered anew.
func TestShadowReusesTheLiveSearch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seed  uint64
		nodes int
		spec  v1alpha1.SchedulingProfileSpec
	}{
		{name: "identical, every node searched", seed: 11, nodes: 40},
		{name: "identical, the search stops early", seed: 12, nodes: 240},
		{name: "MostAllocated", seed: 13, nodes: 60, spec: v1alpha1.SchedulingProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: runtimeRaw(mostAllocated)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.ShadowOf = v1.DefaultSchedulerName
			h := newShadowHarness(t, tc.seed, tc.nodes, &spec)
			p := (*h.s.shadows.byOf.Load())[v1.DefaultSchedulerName][0]
			reused := 0
			for i := range 150 {
				pod := randomPod(h.rng, i)
				if i%10 == 0 {
					pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: "data", VolumeSource: v1.VolumeSource{
						PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}})
				}
				job := h.cycle(pod)
				if job == nil {
					t.Fatalf("pod %d: no shadow job although the worker was free", i)
				}
				if job.liveFiltered == (i%10 == 0) {
					t.Fatalf("pod %d: live search kept = %v, want it kept unless the pod has a claim", i, job.liveFiltered)
				}
				if job.liveFiltered {
					reused++
					got, releaseGot, errGot := h.s.reusedEvaluation(h.ctx, p.Framework, job)
					want, releaseWant, errWant := h.s.shadowEvaluation(h.ctx, p.Framework, job)
					if (errGot == nil) != (errWant == nil) {
						t.Fatalf("pod %d: errors %v and %v", i, errGot, errWant)
					}
					if diff := cmp.Diff(summarize(want), summarize(got)); diff != "" {
						t.Errorf("pod %d: reusing the live search changed the evaluation (-own search +reused):\n%s", i, diff)
					}
					releaseGot()
					releaseWant()
				}
				h.work(job)
			}
			if reused == 0 {
				t.Fatal("no evaluation reused the live search")
			}
		})
	}
}

// summarize keeps what a comparison reads of an evaluation: the feasible
// nodes, the rejecting plugins and each node's scores, in node order.
func summarize(e shadow.Evaluation) map[string]any {
	feasible := slices.Clone(e.Feasible)
	slices.Sort(feasible)
	scores := map[string]framework.NodePluginScores{}
	for _, s := range e.Scores {
		scores[s.Name] = s
	}
	return map[string]any{"feasible": feasible, "rejecting": e.Rejecting, "scores": scores}
}
