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

package podtopologyspread

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	benchNodes = 5000
	benchZones = 50
	benchPods  = 10000
)

// benchCluster is 5,000 nodes in 50 zones with 10,000 pods, two per node,
// one of each node's two labelled app=web so constraints select half.
func benchCluster(b *testing.B) []*framework.NodeInfo {
	b.Helper()
	nodes := make([]*v1.Node, benchNodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%04d", i)
		nodes[i] = zoned(name, fmt.Sprintf("zone-%02d", i%benchZones))
	}
	nis := make([]*framework.NodeInfo, benchNodes)
	for i, n := range nodes {
		nis[i] = nodeInfos([]*v1.Node{n})[0]
	}
	for i := range benchPods {
		app := "web"
		if (i+i/benchNodes)%2 == 1 {
			app = "other"
		}
		ni := nis[i%benchNodes]
		p := st.Pod(fmt.Sprintf("pod-%05d", i)).Labels("app", app).NodeName(ni.Node().Name).Owner("apps/v1", "ReplicaSet", app)
		ni.AddPodInfo(p.Info())
	}
	return inList(nis)
}

func benchPlugin(b *testing.B, args *Args, nis []*framework.NodeInfo) *PodTopologySpread {
	b.Helper()
	objs := []any{replicaSet("web", "app", "web"), replicaSet("other", "app", "other")}
	for i := range 20 {
		objs = append(objs, service(fmt.Sprintf("svc-%02d", i), "svc", itoa(i)))
	}
	h := newHandle(b, nis, objs...)
	h.Parallel = runtime.NewParallelizer(runtime.DefaultParallelism)
	return newPlugin(b, args, h)
}

func hardPod() *v1.Pod {
	web := match("app", "web")
	return st.Pod("incoming").Labels("app", "web").
		Spread(1, zoneKey, hard, web).Spread(1, hostKey, hard, web).Obj()
}

func BenchmarkPodTopologySpreadPreFilter(b *testing.B) {
	nis := benchCluster(b)
	pl := benchPlugin(b, nil, nis)
	pod := hardPod()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, s := pl.PreFilter(ctx, framework.NewCycleState(), pod, nis); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}

// BenchmarkPodTopologySpreadPreFilterOneChange is PreFilter as the
// scheduler runs it: between two cycles one node got a pod (a fresh NodeInfo
// with a new Generation), so the count cache recounts that node only. With
// a hostname constraint the cache copies its 5,000-domain map once per
// change and looks for its minimum; a zone constraint has 50 domains.
func BenchmarkPodTopologySpreadPreFilterOneChange(b *testing.B) {
	web := match("app", "web")
	for _, bc := range []struct {
		name string
		pod  *v1.Pod
	}{
		{"zone", st.Pod("incoming").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj()},
		{"zone+hostname", hardPod()},
	} {
		b.Run(bc.name, func(b *testing.B) { benchOneChange(b, bc.pod) })
	}
}

func benchOneChange(b *testing.B, pod *v1.Pod) {
	nis := benchCluster(b)
	for i, ni := range nis {
		ni.Generation = int64(i + 1)
	}
	pl := benchPlugin(b, nil, nis)
	ctx := context.Background()
	gen := int64(len(nis))
	b.ReportAllocs()
	for b.Loop() {
		gen++
		n := int(gen) % len(nis)
		changed := nis[n].Clone()
		changed.AddPodInfo(st.Pod(fmt.Sprintf("new-%d", gen)).Labels("app", "web").NodeName(changed.Node().Name).Info())
		changed.Generation = gen
		nis[n] = changed
		if _, s := pl.PreFilter(ctx, framework.NewCycleState(), pod, nis); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}

// BenchmarkPodTopologySpreadPreFilterFullRecount counts every node, as
// PreFilter does for pods the count cache does not take (and did for all
// before it).
func BenchmarkPodTopologySpreadPreFilterFullRecount(b *testing.B) {
	nis := benchCluster(b)
	pl := benchPlugin(b, nil, nis)
	pod := hardPod()
	cs, err := pl.constraintsFor(pod, v1.DoNotSchedule)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		pl.countHard(ctx, pod, cs, nis)
	}
}

func BenchmarkPodTopologySpreadFilter(b *testing.B) {
	nis := benchCluster(b)
	pl := benchPlugin(b, nil, nis)
	pod := hardPod()
	ctx, state := context.Background(), framework.NewCycleState()
	if _, s := pl.PreFilter(ctx, state, pod, nis); !s.IsSuccess() {
		b.Fatal(s)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, ni := range nis {
			if s := pl.Filter(ctx, state, pod, ni); !s.IsSuccess() {
				b.Fatal(s)
			}
		}
	}
}

// BenchmarkPodTopologySpreadFilterCached is Filter on every node with the
// state the scheduler has from the second cycle of a constraint set on: the
// count cache's, whose counts Filter finds by node position. Zone-00's
// nodes hold extra matching pods, so the zone constraint rejects them.
func BenchmarkPodTopologySpreadFilterCached(b *testing.B) {
	nis := benchCluster(b)
	for i := 0; i < len(nis); i += benchZones {
		nis[i].AddPodInfo(st.Pod(fmt.Sprintf("extra-%d", i)).Labels("app", "web").NodeName(nis[i].Node().Name).Info())
	}
	pl := benchPlugin(b, nil, nis)
	web := match("app", "web")
	for _, bc := range []struct {
		name string
		pod  *v1.Pod
	}{
		{"zone", st.Pod("incoming").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj()},
		{"zone+hostname", st.Pod("incoming").Labels("app", "web").Spread(1, zoneKey, hard, web).Spread(200, hostKey, hard, web).Obj()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx, state := context.Background(), framework.NewCycleState()
			for range 2 {
				if _, s := pl.PreFilter(ctx, state, bc.pod, nis); !s.IsSuccess() {
					b.Fatal(s)
				}
			}
			rejected := 0
			b.ReportAllocs()
			for b.Loop() {
				for _, ni := range nis {
					if s := pl.Filter(ctx, state, bc.pod, ni); !s.IsSuccess() {
						rejected++
					}
				}
			}
			if rejected == 0 {
				b.Fatal("no node was rejected")
			}
		})
	}
}

// scoreCycle runs PreScore, Score on every node and NormalizeScore.
func scoreCycle(b *testing.B, pl *PodTopologySpread, pod *v1.Pod, nis []*framework.NodeInfo, scores framework.NodeScoreList) {
	ctx, state := context.Background(), framework.NewCycleState()
	if s := pl.PreScore(ctx, state, pod, nis); !s.IsSuccess() {
		b.Fatal(s)
	}
	for i, ni := range nis {
		n, s := pl.Score(ctx, state, pod, ni)
		if !s.IsSuccess() {
			b.Fatal(s)
		}
		scores[i] = framework.NodeScore{Name: ni.Node().Name, Score: n}
	}
	if s := pl.NormalizeScore(ctx, state, pod, scores); !s.IsSuccess() {
		b.Fatal(s)
	}
}

func BenchmarkPodTopologySpreadPreScoreScore(b *testing.B) {
	nis := benchCluster(b)
	pl := benchPlugin(b, nil, nis)
	web := match("app", "web")
	pod := st.Pod("incoming").Labels("app", "web").
		Spread(1, zoneKey, soft, web).Spread(1, hostKey, soft, web).Obj()
	scores := make(framework.NodeScoreList, len(nis))
	b.ReportAllocs()
	for b.Loop() {
		scoreCycle(b, pl, pod, nis, scores)
	}
}

// BenchmarkPodTopologySpreadSystemDefaulting is a full cycle (PreFilter,
// then PreScore, Score and NormalizeScore) for a ReplicaSet's pod under the
// System defaults, 20 unrelated Services in its namespace.
func BenchmarkPodTopologySpreadSystemDefaulting(b *testing.B) {
	nis := benchCluster(b)
	pl := benchPlugin(b, nil, nis)
	pod := st.Pod("incoming").Labels("app", "web").Owner("apps/v1", "ReplicaSet", "web").Obj()
	scores := make(framework.NodeScoreList, len(nis))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, s := pl.PreFilter(ctx, framework.NewCycleState(), pod, nis); !s.IsSkip() {
			b.Fatal(s)
		}
		scoreCycle(b, pl, pod, nis, scores)
	}
}
