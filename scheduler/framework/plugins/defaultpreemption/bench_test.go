package defaultpreemption

import (
	"context"
	"fmt"
	"testing"
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
			c.pods = append(c.pods, makePod(fmt.Sprintf("%s-p%d", node, j)).priority(int32(j%3)).cpu("1").on(node).obj())
		}
	}
	pod := makePod("big").priority(100).cpu("2").obj()
	c.pods = append(c.pods, pod)
	e := newEnv(b, c)
	p, err := NewWithArgs(&DefaultPreemptionArgs{}, e.fwk)
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
