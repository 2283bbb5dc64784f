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

package volumebinding

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func benchNodes(n int) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, n)
	for i := range out {
		out[i] = st.NodeInfo(nodeWith(fmt.Sprintf("n%d", i), "zone", fmt.Sprintf("z%d", i%3)))
	}
	return out
}

// BenchmarkFilterBound filters a pod with two bound claims whose PVs have
// node affinity: the common case, which must not allocate per node.
func BenchmarkFilterBound(b *testing.B) {
	t := &testing.T{}
	e := newEnv(t, makePVC("c1").bound("pv1").obj(), makePVC("c2").bound("pv2").obj(),
		makePV("pv1").affinity("zone", "z0", "z1").obj(), makePV("pv2").affinity("zone", "z0", "z1", "z2").obj())
	pod := st.Pod("p").PVC("c1", "c2").Obj()
	nodes := benchNodes(1000)
	ctx := context.Background()
	cs := framework.NewCycleState()
	if _, status := e.pl.PreFilter(ctx, cs, pod, nil); !status.IsSuccess() {
		b.Fatal(status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.pl.Filter(ctx, cs, pod, nodes[i%len(nodes)])
	}
}

// BenchmarkFilterDelayed filters a pod with a WaitForFirstConsumer claim
// against 200 candidate PVs spread over zones.
func BenchmarkFilterDelayed(b *testing.B) {
	t := &testing.T{}
	objs := []runtime.Object{makeClass("wffc").obj(), makePVC("c1").class("wffc").size("5Gi").obj()}
	for i := 0; i < 200; i++ {
		objs = append(objs, makePV(fmt.Sprintf("pv%d", i)).class("wffc").size(fmt.Sprintf("%dGi", 5+i%20)).
			affinity("zone", fmt.Sprintf("z%d", i%3)).obj())
	}
	e := newEnv(t, objs...)
	pod := st.Pod("p").PVC("c1").Obj()
	nodes := benchNodes(1000)
	ctx := context.Background()
	cs := framework.NewCycleState()
	if _, status := e.pl.PreFilter(ctx, cs, pod, nil); !status.IsSuccess() {
		b.Fatal(status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if status := e.pl.Filter(ctx, cs, pod, nodes[i%len(nodes)]); !status.IsSuccess() {
			b.Fatal(status)
		}
	}
}

// BenchmarkScore scores a node where a claim binds an existing PV.
func BenchmarkScore(b *testing.B) {
	t := &testing.T{}
	e := newEnv(t, makeClass("wffc").obj(), makePVC("c1").class("wffc").size("5Gi").obj(), makePV("pv1").class("wffc").obj())
	pod := st.Pod("p").PVC("c1").Obj()
	node := st.NodeInfo(nodeWith("n1"))
	ctx := context.Background()
	cs := framework.NewCycleState()
	if _, status := e.pl.PreFilter(ctx, cs, pod, nil); !status.IsSuccess() {
		b.Fatal(status)
	}
	if status := e.pl.Filter(ctx, cs, pod, node); !status.IsSuccess() {
		b.Fatal(status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s, _ := e.pl.Score(ctx, cs, pod, node); s != 50 {
			b.Fatal(s)
		}
	}
}
