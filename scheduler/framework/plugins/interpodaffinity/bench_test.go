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

package interpodaffinity

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	benchNodes = 5000
	benchZones = 50
	benchPods  = 10000
	benchApps  = 100
)

// pool runs pieces on GOMAXPROCS goroutines, as the scheduler's parallelizer does.
type pool struct{}

func (pool) Until(_ context.Context, pieces int, do func(int), _ string) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), pieces) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < pieces; i = int(next.Add(1) - 1) {
				do(i)
			}
		})
	}
	wg.Wait()
}

// benchCluster spreads benchPods pods over benchNodes nodes in benchZones
// zones; every tenth pod has required anti-affinity and every tenth (other)
// pod preferred affinity.
func benchCluster(b *testing.B) []*framework.NodeInfo {
	b.Helper()
	nodes := make([]*v1.Node, benchNodes)
	for i := range nodes {
		nodes[i] = node("n"+strconv.Itoa(i), zoneKey, "z"+strconv.Itoa(i%benchZones))
	}
	pods := make([]*v1.Pod, benchPods)
	for i := range pods {
		app := "a" + strconv.Itoa(i%benchApps)
		pb := st.Pod("e"+strconv.Itoa(i)).Labels("app", app).NodeName(nodes[i%benchNodes].Name)
		switch i % 10 {
		case 3:
			pb.PodAntiAffinity(st.Term(hostKey, "app", "a"+strconv.Itoa((i+1)%benchApps)))
		case 7:
			pb.PreferPodAffinity(10, st.Term(zoneKey, "app", "a"+strconv.Itoa((i+2)%benchApps)))
		}
		pods[i] = pb.Obj()
	}
	return st.NodeInfos(nodes, pods...)
}

// benchPod has required affinity by zone, required anti-affinity by host,
// and preferred terms both ways.
func benchPod() *v1.Pod {
	return st.Pod("p").Labels("app", "a4").
		PodAffinity(st.Term(zoneKey, "app", "a1")).
		PodAntiAffinity(st.Term(hostKey, "app", "a2")).
		PreferPodAffinity(5, st.Term(zoneKey, "app", "a5")).
		PreferPodAntiAffinity(3, st.Term(hostKey, "app", "a6")).Obj()
}

func BenchmarkInterPodAffinityPreFilter(b *testing.B) {
	nodes := benchCluster(b)
	pl := newPlugin(b, "", newHandle(b, pool{}, nodes, namespace("default")))
	pod, ctx := benchPod(), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, status := pl.PreFilter(ctx, framework.NewCycleState(), pod, nodes); !status.IsSuccess() {
			b.Fatal(status)
		}
	}
}

// BenchmarkInterPodAffinityPreFilterOneChange is PreFilter as the scheduler
// runs it: between two cycles one node got a pod (a fresh NodeInfo with a
// new Generation), so the count cache recounts that node only.
func BenchmarkInterPodAffinityPreFilterOneChange(b *testing.B) {
	nodes := benchCluster(b)
	for i, ni := range nodes {
		ni.Generation = int64(i + 1)
	}
	benchPreFilterOneChange(b, nodes, benchPod(), func(name string) *st.PodBuilder {
		return st.Pod(name).Labels("app", "a2").PodAntiAffinity(st.Term(hostKey, "app", "a4"))
	})
}

// benchPreFilterOneChange runs PreFilter of pod over nodes, each cycle
// after one more node (in turn) got a pod from arriving.
func benchPreFilterOneChange(b *testing.B, nodes []*framework.NodeInfo, pod *v1.Pod, arriving func(name string) *st.PodBuilder) {
	pl := newPlugin(b, "", newHandle(b, pool{}, nodes, namespace("default")))
	ctx := context.Background()
	gen := int64(len(nodes))
	b.ReportAllocs()
	for b.Loop() {
		gen++
		n := int(gen) % len(nodes)
		changed := nodes[n].Clone()
		changed.AddPodInfo(info(arriving("new" + strconv.FormatInt(gen, 10)).NodeName(changed.Node().Name).Obj()))
		changed.Generation = gen
		nodes[n] = changed
		if _, status := pl.PreFilter(ctx, framework.NewCycleState(), pod, nodes); !status.IsSuccess() {
			b.Fatal(status)
		}
	}
}

// BenchmarkInterPodAffinityPreFilterFullRecount counts every node, as
// PreFilter did before the count cache.
func BenchmarkInterPodAffinityPreFilterFullRecount(b *testing.B) {
	nodes := benchCluster(b)
	pl := newPlugin(b, "", newHandle(b, pool{}, nodes, namespace("default")))
	pl.counts = nil
	pod, ctx := benchPod(), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, status := pl.PreFilter(ctx, framework.NewCycleState(), pod, nodes); !status.IsSuccess() {
			b.Fatal(status)
		}
	}
}

// BenchmarkInterPodAffinityFilter filters all nodes per op. In "Mixed" some
// nodes are rejected, and each rejection allocates its Status (the runtime
// annotates it, so it cannot be shared); in "Feasible" every node passes the
// same lookups and nothing is allocated.
func BenchmarkInterPodAffinityFilter(b *testing.B) {
	nodes := benchCluster(b)
	for _, bc := range []struct {
		name     string
		pod      *v1.Pod
		feasible func(n int) bool
	}{
		{"Mixed", benchPod(), func(n int) bool { return n > 0 && n < len(nodes) }},
		// The first pod of its group: no pod matches its terms and no pod's anti-affinity selects it.
		{"Feasible", st.Pod("p").Labels("app", "new").PodAffinity(st.Term(zoneKey, "app", "new")).PodAntiAffinity(st.Term(hostKey, "app", "b0")).Obj(),
			func(n int) bool { return n == len(nodes) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pl := newPlugin(b, "", newHandle(b, pool{}, nodes, namespace("default")))
			ctx, state := context.Background(), framework.NewCycleState()
			if _, status := pl.PreFilter(ctx, state, bc.pod, nodes); !status.IsSuccess() {
				b.Fatal(status)
			}
			feasible := 0
			for _, ni := range nodes {
				if pl.Filter(ctx, state, bc.pod, ni).IsSuccess() {
					feasible++
				}
			}
			if !bc.feasible(feasible) {
				b.Fatalf("%d of %d nodes feasible", feasible, len(nodes))
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, ni := range nodes {
					pl.Filter(ctx, state, bc.pod, ni)
				}
			}
		})
	}
}

func BenchmarkInterPodAffinityPreScoreScore(b *testing.B) {
	nodes := benchCluster(b)
	for _, bc := range []struct {
		name string
		pod  *v1.Pod
	}{
		{"PodWithPreferredTerms", benchPod()},
		{"ExistingPodsTermsOnly", st.Pod("p").Labels("app", "a9").Obj()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pl := newPlugin(b, "", newHandle(b, pool{}, nodes, namespace("default")))
			ctx := context.Background()
			scores := make(framework.NodeScoreList, len(nodes))
			b.ReportAllocs()
			for b.Loop() {
				state := framework.NewCycleState()
				if status := pl.PreScore(ctx, state, bc.pod, nodes); !status.IsSuccess() {
					b.Fatal(status)
				}
				for i, ni := range nodes {
					s, status := pl.Score(ctx, state, bc.pod, ni)
					if !status.IsSuccess() {
						b.Fatal(status)
					}
					scores[i] = framework.NodeScore{Name: ni.Node().Name, Score: s}
				}
				if status := pl.NormalizeScore(ctx, state, bc.pod, scores); !status.IsSuccess() {
					b.Fatal(status)
				}
			}
		})
	}
}

// TestFilterAndScoreDoNotAllocate checks that Filter of a feasible node and
// Score allocate nothing, with every count map in use.
func TestFilterAndScoreDoNotAllocate(t *testing.T) {
	nodes := st.NodeInfos([]*v1.Node{node("n1", zoneKey, "z1"), node("n2", zoneKey, "z1"), node("n3", zoneKey, "z2")},
		st.Pod("e1").Labels("app", "a1").NodeName("n1").Obj(),
		st.Pod("e2").Labels("app", "a2").NodeName("n3").Obj(),
		st.Pod("e3").Labels("app", "a5").NodeName("n3").PodAntiAffinity(st.Term(zoneKey, "app", "a4")).Obj())
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, nodes, namespace("default")))
	pod, ctx := benchPod(), context.Background()
	state := framework.NewCycleState()
	if _, status := pl.PreFilter(ctx, state, pod, nodes); !status.IsSuccess() {
		t.Fatal(status)
	}
	if status := pl.PreScore(ctx, state, pod, nodes); !status.IsSuccess() {
		t.Fatal(status)
	}
	if status := pl.Filter(ctx, state, pod, nodes[2]); status.IsSuccess() {
		t.Fatal("n3: want a rejection")
	}
	feasible := nodes[:2]
	allocs := testing.AllocsPerRun(100, func() {
		for _, ni := range feasible {
			if status := pl.Filter(ctx, state, pod, ni); status != nil {
				t.Fatal(status)
			}
			if _, status := pl.Score(ctx, state, pod, ni); status != nil {
				t.Fatal(status)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

// antiCluster is the bench's PodAntiAffinity workload after it placed
// antiPods pods: each on its own node, with required hostname anti-affinity
// to its own color.
func antiCluster(b *testing.B, antiPods int) ([]*framework.NodeInfo, *v1.Pod) {
	b.Helper()
	nodes := make([]*v1.Node, benchNodes)
	for i := range nodes {
		nodes[i] = node("n"+strconv.Itoa(i), zoneKey, "z"+strconv.Itoa(i%benchZones))
	}
	anti := func(name string) *st.PodBuilder {
		return st.Pod(name).Labels("color", "green").PodAntiAffinity(st.Term(hostKey, "color", "green"))
	}
	pods := make([]*v1.Pod, antiPods)
	for i := range pods {
		pods[i] = anti("e" + strconv.Itoa(i)).NodeName(nodes[i*benchNodes/antiPods].Name).Obj()
	}
	infos := st.NodeInfos(nodes, pods...)
	for i, ni := range infos {
		ni.Generation = int64(i + 1)
	}
	return infos, anti("p").Obj()
}

// BenchmarkInterPodAffinityAntiFilter is Filter in the PodAntiAffinity
// workload with 2,000 of 5,000 nodes taken, over the 3,000 free nodes
// (which all pass: a rejection allocates its Status).
func BenchmarkInterPodAffinityAntiFilter(b *testing.B) {
	nodes, pod := antiCluster(b, 2000)
	pl := newPlugin(b, "", newHandle(b, pool{}, nodes, namespace("default")))
	ctx, state := context.Background(), framework.NewCycleState()
	if _, status := pl.PreFilter(ctx, state, pod, nodes); !status.IsSuccess() {
		b.Fatal(status)
	}
	var free []*framework.NodeInfo
	for _, ni := range nodes {
		if pl.Filter(ctx, state, pod, ni).IsSuccess() {
			free = append(free, ni)
		}
	}
	if len(free) != benchNodes-2000 {
		b.Fatalf("%d of %d nodes feasible", len(free), len(nodes))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, ni := range free {
			pl.Filter(ctx, state, pod, ni)
		}
	}
}

// BenchmarkInterPodAffinityAntiPreFilterOneChange is PreFilter in the
// PodAntiAffinity workload: between two cycles the previous pod was placed
// on a free node (which grows the hostname counts), with the count cache.
func BenchmarkInterPodAffinityAntiPreFilterOneChange(b *testing.B) {
	nodes, pod := antiCluster(b, 2000)
	benchPreFilterOneChange(b, nodes, pod, func(name string) *st.PodBuilder {
		return st.Pod(name).Labels("color", "green").PodAntiAffinity(st.Term(hostKey, "color", "green"))
	})
}
