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
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/shadow"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

const mostAllocated = `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`

func runtimeRaw(s string) apiruntime.RawExtension { return apiruntime.RawExtension{Raw: []byte(s)} }

// noCounter counts nothing.
type noCounter struct{}

func (noCounter) CountShadowDecision(string, string) {}

// loop is what the scheduling loop gives a runner: a cache, the cycle's
// snapshot, a live framework compiled against it, and the search's start.
type loop struct {
	t     testing.TB
	ctx   context.Context
	cache *schedcache.Cache
	snap  *schedcache.Snapshot
	live  *runtime.Framework
	r     *Runner
	rng   *rand.Rand
	next  int
}

// newLoop compiles the live profile spec over an empty cluster, with a
// runner beside it; workloads are the PodGroups both see.
func newLoop(t testing.TB, seed uint64, live *v1alpha1.SchedulingProfileSpec, workloads framework.WorkloadLister) *loop {
	t.Helper()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	rng := rand.New(rand.NewPCG(seed, seed))
	l := &loop{t: t, ctx: ctx, cache: schedcache.New(ctx), snap: schedcache.NewEmptySnapshot(), rng: rng}
	l.r = New(clock.RealClock{}, rng.IntN, noCounter{}, workloads)
	l.live = l.compile(live, l.snap, workloads)
	return l
}

// compile builds a profile's framework over snap.
func (l *loop) compile(spec *v1alpha1.SchedulingProfileSpec, snap framework.SharedLister, workloads framework.WorkloadLister, opts ...runtime.Option) *runtime.Framework {
	l.t.Helper()
	client := fake.NewClientset()
	fwk, err := runtime.NewFramework(l.ctx, runtime.Registry(plugins.NewInTreeRegistry()), v1.DefaultSchedulerName, spec,
		append([]runtime.Option{
			runtime.WithClientSet(client),
			runtime.WithInformerFactory(informers.NewSharedInformerFactory(client, 0)),
			runtime.WithSnapshotSharedLister(snap),
			runtime.WithWorkloads(workloads),
		}, opts...)...)
	if err != nil {
		l.t.Fatalf("compiling a profile: %v", err)
	}
	return fwk
}

// install compiles spec as the shadow "candidate" of the live profile,
// as the scheduler's CompileShadow does, and installs it.
func (l *loop) install(spec *v1alpha1.SchedulingProfileSpec) {
	l.t.Helper()
	rate := int32(100)
	if spec.ShadowSampleRatePercent != nil {
		rate = *spec.ShadowSampleRatePercent
	}
	p := &Profile{
		Framework: l.compile(spec, l.r.Snapshot(), l.r.Workloads(), runtime.WithParallelism(1)),
		Source:    "candidate", Generation: 1, Of: v1.DefaultSchedulerName, SampleRatePercent: rate,
	}
	l.r.Install(p)
}

// updateSnapshot brings the cycle's snapshot, and the runner's when a job
// is pending, to the cache's generation, as the loop does.
func (l *loop) updateSnapshot() {
	l.t.Helper()
	var err error
	if l.r.Pending() {
		err = l.cache.UpdateSnapshots(logr.Discard(), l.snap, l.r.Snapshot())
	} else {
		err = l.cache.UpdateSnapshot(logr.Discard(), l.snap)
	}
	if err != nil {
		l.t.Fatal(err)
	}
}

// attempt runs one pod's scheduling cycle as the loop does (without
// Reserve, Permit or binding; the pod is added to the cache as bound).
func (l *loop) attempt(pod *v1.Pod) {
	l.t.Helper()
	l.r.Begin(pod, l.live, l.next)
	l.updateSnapshot()
	env := algorithm.Env{Framework: l.live, Snapshot: l.snap, Rand: l.rng.IntN, Next: &l.next}
	if l.r.Pending() {
		env.OnSearch = l.r.NoteSearch
	}
	result, err := algorithm.SchedulePod(l.ctx, env, framework.NewCycleState(), pod)
	l.r.End(result.Host, err)
	if err == nil {
		bound := pod.DeepCopy()
		bound.Spec.NodeName = result.Host
		if err := l.cache.AddPod(logr.Discard(), bound); err != nil {
			l.t.Fatal(err)
		}
	}
}

// cycle runs an attempt and returns the job handed to the worker, if any.
func (l *loop) cycle(pod *v1.Pod) *job {
	l.t.Helper()
	l.attempt(pod)
	select {
	case j := <-l.r.jobs:
		return j
	default:
		return nil
	}
}

// stats returns the candidate's figures.
func (l *loop) stats() shadow.Stats {
	l.t.Helper()
	p, ok := l.r.Profile("candidate")
	if !ok {
		l.t.Fatal("no candidate shadow")
	}
	stats, _ := p.Stats()
	return stats
}

// newShadowLoop is a loop on a random cluster of n nodes with a shadow of
// the default profile.
func newShadowLoop(t *testing.T, seed uint64, nodes int, shadowSpec *v1alpha1.SchedulingProfileSpec) *loop {
	t.Helper()
	l := newLoop(t, seed, &v1alpha1.SchedulingProfileSpec{}, &st.Workloads{})
	l.install(shadowSpec)
	for i := range nodes {
		l.cache.AddNode(logr.Discard(), st.RandomNode(l.rng, i))
	}
	return l
}

// TestIdenticalShadowAgreesOnEveryPod evaluates a shadow identical to the
// live profile on hundreds of random pods, on clusters small enough that
// every node is searched and large enough that the search stops early:
// every evaluation agrees, unschedulable pods included, because the shadow
// sees the cycle's snapshot and starts its search where the cycle did.
func TestIdenticalShadowAgreesOnEveryPod(t *testing.T) {
	for _, tc := range []struct {
		seed  uint64
		nodes int
	}{{1, 30}, {2, 40}, {3, 240}} {
		t.Run(fmt.Sprintf("seed-%d-%d-nodes", tc.seed, tc.nodes), func(t *testing.T) {
			l := newShadowLoop(t, tc.seed, tc.nodes, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
			const pods = 300
			for i := range pods {
				j := l.cycle(st.RandomPod(l.rng, i))
				if j == nil {
					t.Fatalf("pod %d: no shadow job although the worker was free", i)
				}
				l.r.work(l.ctx, j)
			}
			stats := l.stats()
			if stats.Evaluated() != pods || stats.Outcomes[shadow.OutcomeAgreed] != pods {
				t.Errorf("outcomes %v, want all %d agreed; recent disagreements %+v", stats.Outcomes, pods, stats.Recent)
			}
		})
	}
}

// TestMostAllocatedDisagreesOnNodeResourcesFit shadows the default
// (LeastAllocated) profile with MostAllocated: they disagree, and
// NodeResourcesFit decides the disagreements most often.
func TestMostAllocatedDisagreesOnNodeResourcesFit(t *testing.T) {
	l := newShadowLoop(t, 7, 30, &v1alpha1.SchedulingProfileSpec{
		ShadowOf:     v1.DefaultSchedulerName,
		PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: runtimeRaw(mostAllocated)}},
	})
	for i := range 200 {
		if j := l.cycle(st.RandomPod(l.rng, i)); j != nil {
			l.r.work(l.ctx, j)
		}
	}
	stats := l.stats()
	if stats.Outcomes[shadow.OutcomeDisagreed] < 50 {
		t.Fatalf("outcomes %v: want many disagreements", stats.Outcomes)
	}
	if len(stats.Deciding) == 0 || stats.Deciding[0].Plugin != "NodeResourcesFit" {
		t.Errorf("deciding plugins %v: want NodeResourcesFit first", stats.Deciding)
	}
	if len(stats.Recent) != shadow.DefaultRecent {
		t.Errorf("%d recent disagreements, want %d", len(stats.Recent), shadow.DefaultRecent)
	}
	for _, d := range stats.Recent {
		if d.Decision.Outcome == shadow.OutcomeDisagreed && (d.Decision.LiveNode == d.Decision.ShadowNode || d.Decision.ShadowNode == "") {
			t.Errorf("disagreement %+v names no other node", d)
		}
	}
}

// TestShadowNeverHoldsTheLoop: with the worker busy, a sampled attempt is
// dropped and counted at once, and the cycle goes on with its own snapshot only.
func TestShadowNeverHoldsTheLoop(t *testing.T) {
	l := newShadowLoop(t, 4, 10, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	busy := l.cycle(st.RandomPod(l.rng, 0))
	if busy == nil {
		t.Fatal("the first attempt got no job")
	}
	shadowGeneration := l.r.Snapshot().Generation()
	// The worker holds the first job: the next attempts are dropped.
	for i := 1; i <= 5; i++ {
		if j := l.cycle(st.RandomPod(l.rng, i)); j != nil {
			t.Fatalf("attempt %d got a job while the worker was busy", i)
		}
	}
	if got := l.r.Snapshot().Generation(); got != shadowGeneration {
		t.Errorf("the shadows' snapshot moved from generation %d to %d while the worker held it", shadowGeneration, got)
	}
	l.r.work(l.ctx, busy)
	if j := l.cycle(st.RandomPod(l.rng, 6)); j == nil {
		t.Fatal("no job once the worker was free again")
	} else {
		l.r.work(l.ctx, j)
	}
	stats := l.stats()
	if stats.Outcomes[shadow.OutcomeDropped] != 5 || stats.Evaluated() != 2 {
		t.Errorf("outcomes %v: want 5 dropped, 2 evaluated", stats.Outcomes)
	}
}

// TestShadowSamples evaluates about the share of attempts its rate asks for.
func TestShadowSamples(t *testing.T) {
	l := newShadowLoop(t, 5, 10, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName, ShadowSampleRatePercent: ptr.To[int32](20)})
	const pods = 500
	for i := range pods {
		pod := st.RandomPod(l.rng, i)
		// Pods that fit anywhere, so the cluster does not fill up.
		pod.Spec.Containers[0].Resources.Requests = nil
		if j := l.cycle(pod); j != nil {
			l.r.work(l.ctx, j)
		}
	}
	if n := l.stats().Evaluated(); n < pods*20/100/2 || n > pods*20/100*2 {
		t.Errorf("%d of %d attempts evaluated at 20%%", n, pods)
	}
}

// TestRemove stops the evaluations and forgets the figures.
func TestRemove(t *testing.T) {
	l := newShadowLoop(t, 6, 5, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	if !l.r.Remove("candidate") {
		t.Fatal("the installed shadow was not removed")
	}
	if j := l.cycle(st.RandomPod(l.rng, 0)); j != nil {
		t.Error("a removed shadow still evaluates")
	}
	if _, ok := l.r.Profile("candidate"); ok {
		t.Error("a removed shadow is still found")
	}
	if l.r.Remove("candidate") {
		t.Error("a shadow removed twice")
	}
}

// TestWorkerBesideTheLoop runs the worker on its own goroutine while
// cycles go on, as in the scheduler (run it with -race): every attempt is
// either evaluated, and agreed with by an identical shadow, or dropped.
func TestWorkerBesideTheLoop(t *testing.T) {
	l := newShadowLoop(t, 8, 120, &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	ctx, cancel := context.WithCancel(l.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.r.Run(ctx)
	}()
	const pods = 300
	for i := range pods {
		l.attempt(st.RandomPod(l.rng, i))
	}
	// The worker is idle again once it hands its token back.
	<-l.r.idle
	cancel()
	<-done
	stats := l.stats()
	if got := stats.Evaluated() + stats.Outcomes[shadow.OutcomeDropped]; got != pods {
		t.Errorf("%d attempts counted, want %d: %v", got, pods, stats.Outcomes)
	}
	if stats.Evaluated() == 0 || stats.Outcomes[shadow.OutcomeAgreed] != stats.Evaluated() {
		t.Errorf("outcomes %v: want every evaluated attempt agreed, and some evaluated", stats.Outcomes)
	}
	t.Logf("outcomes %v", stats.Outcomes)
}

// TestReusesTheLiveSearch checks that a shadow filtering like the live
// profile takes the live cycle's feasible nodes, and that what it makes of
// them is what its own search would have: the same feasible nodes, the
// same scores, on random pods and clusters where the search stops early
// and where it does not. A pod with a claim is filtered anew.
func TestReusesTheLiveSearch(t *testing.T) {
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
			l := newShadowLoop(t, tc.seed, tc.nodes, &spec)
			p, _ := l.r.Profile("candidate")
			reused := 0
			for i := range 150 {
				pod := st.RandomPod(l.rng, i)
				if i%10 == 0 {
					pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: "data", VolumeSource: v1.VolumeSource{
						PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}})
				}
				j := l.cycle(pod)
				if j == nil {
					t.Fatalf("pod %d: no shadow job although the worker was free", i)
				}
				if j.liveFiltered == (i%10 == 0) {
					t.Fatalf("pod %d: live search kept = %v, want it kept unless the pod has a claim", i, j.liveFiltered)
				}
				if j.liveFiltered {
					reused++
					got, releaseGot, errGot := l.r.reusedEvaluation(l.ctx, p.Framework, j)
					want, releaseWant, errWant := l.r.evaluation(l.ctx, p.Framework, j)
					if (errGot == nil) != (errWant == nil) {
						t.Fatalf("pod %d: errors %v and %v", i, errGot, errWant)
					}
					if diff := cmp.Diff(summarize(want), summarize(got)); diff != "" {
						t.Errorf("pod %d: reusing the live search changed the evaluation (-own search +reused):\n%s", i, diff)
					}
					releaseGot()
					releaseWant()
				}
				l.r.work(l.ctx, j)
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
