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

package defaultpreemption

import (
	"context"
	"fmt"
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// BenchmarkFindCandidates dry-runs preemption for a pod that needs two of
// the ten low-priority pods gone on each of 1,000 full nodes, with upstream's
// default args (100 candidates).
func BenchmarkFindCandidates(b *testing.B) {
	const numNodes, podsPerNode = 1000, 10
	c := cluster{}
	for i := range numNodes {
		node := fmt.Sprintf("n%04d", i)
		c.nodes = append(c.nodes, makeNode(node, "10"))
		for j := range podsPerNode {
			c.pods = append(c.pods, st.Pod(fmt.Sprintf("%s-p%d", node, j)).Priority(int32(j%3)).Container("cpu", "1").NodeName(node).Obj())
		}
	}
	pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
	c.pods = append(c.pods, pod)
	e := newEnv(b, c)
	p, err := NewWithArgs(DefaultArgs(), e.fwk)
	if err != nil {
		b.Fatal(err)
	}
	state, statuses := e.filter(b, pod)
	lister := e.fwk.SnapshotSharedLister().NodeInfos()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		candidates, _, err := p.findCandidates(ctx, state, pod, statuses, lister)
		if err != nil || len(candidates) != 100 {
			b.Fatalf("%d candidates, err %v", len(candidates), err)
		}
	}
}

// BenchmarkPostFilterNoVictims is the common case of a cluster of equal
// priorities: 1,000 full nodes, nothing to preempt, the whole PostFilter.
func BenchmarkPostFilterNoVictims(b *testing.B) {
	const numNodes = 1000
	c := cluster{}
	for i := range numNodes {
		node := fmt.Sprintf("n%04d", i)
		c.nodes = append(c.nodes, makeNode(node, "4"))
		c.pods = append(c.pods, st.Pod(node+"-p").Priority(0).Container("cpu", "4").NodeName(node).Obj())
	}
	pod := st.Pod("big").Priority(0).Container("cpu", "2").Obj()
	c.pods = append(c.pods, pod)
	e := newEnv(b, c)
	state, statuses := e.filter(b, pod)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, status := e.fwk.RunPostFilterPlugins(ctx, state, pod, statuses); status.Code() != framework.Unschedulable {
			b.Fatalf("status %v", status)
		}
	}
}
