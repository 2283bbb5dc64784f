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

package noderesources

import (
	"context"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const benchNodes = 5000

// benchNodeInfos returns NodeInfos of varied fullness, each with a few pods.
func benchNodeInfos() []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, benchNodes)
	for i := range out {
		n := st.Node("n"+strconv.Itoa(i)).Alloc("cpu", "32", "memory", "128Gi", "pods", "110", "example.com/gpu", "8").Obj()
		ni := st.NodeInfo(n)
		for j := 0; j < i%8; j++ {
			p := st.Pod("p"+strconv.Itoa(i)+"-"+strconv.Itoa(j)).NodeName(n.Name).Container("cpu", "3", "memory", "10Gi").Obj()
			pi, _ := framework.NewPodInfo(p)
			ni.AddPodInfo(pi)
		}
		out[i] = ni
	}
	return out
}

func BenchmarkFitFilter(b *testing.B) {
	nodes := benchNodeInfos()
	pl := mustFit(b, "")
	p := st.Pod("p").Container("cpu", "2", "memory", "4Gi", "example.com/gpu", "1").Obj()
	ctx, state := context.Background(), framework.NewCycleState()
	pl.PreFilter(ctx, state, p, nodes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, ni := range nodes {
			if status := pl.Filter(ctx, state, p, ni); !status.IsSuccess() {
				b.Fatal(status)
			}
		}
	}
}

func BenchmarkFitScore(b *testing.B) {
	nodes := benchNodeInfos()
	p := st.Pod("p").Container("cpu", "2", "memory", "4Gi").Obj()
	for _, bc := range []struct{ name, args string }{
		{"LeastAllocated", ""},
		{"MostAllocated", `{"scoringStrategy":{"type":"MostAllocated"}}`},
		{"RequestedToCapacityRatio", `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchScore(b, mustFit(b, bc.args), p, nodes)
		})
	}
	b.Run("BalancedAllocation3", func(b *testing.B) {
		pl := mustBalanced(b, `{"resources":[{"name":"cpu"},{"name":"memory"},{"name":"example.com/gpu"}]}`)
		benchScore(b, pl, st.Pod("p").Container("cpu", "2", "memory", "4Gi", "example.com/gpu", "1").Obj(), nodes)
	})
}

func benchScore(b *testing.B, pl scorer, p *v1.Pod, nodes []*framework.NodeInfo) {
	ctx, state := context.Background(), framework.NewCycleState()
	if status := pl.PreScore(ctx, state, p, nodes); !status.IsSuccess() {
		b.Fatal(status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, ni := range nodes {
			if _, status := pl.Score(ctx, state, p, ni); !status.IsSuccess() {
				b.Fatal(status)
			}
		}
	}
}
