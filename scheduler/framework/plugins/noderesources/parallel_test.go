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
	"sync"
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
)

// TestParallelFilterAndScore runs Filter and Score over nodes from several
// goroutines sharing one CycleState, as the runtime does; run with -race.
func TestParallelFilterAndScore(t *testing.T) {
	fit, bal := mustFit(t, ""), mustBalanced(t, "")
	p := pod("cpu", "1", "memory", "1Gi")
	nodes := make([]*framework.NodeInfo, 64)
	for i := range nodes {
		nodes[i] = node(alloc("cpu", "4", "memory", "8Gi", "pods", "10"), assigned("a", "cpu", "1"))
	}
	ctx, state := context.Background(), framework.NewCycleState()
	fit.PreFilter(ctx, state, p, nodes)
	fit.PreScore(ctx, state, p, nodes)
	bal.PreScore(ctx, state, p, nodes)
	var wg sync.WaitGroup
	results := make([]int64, len(nodes))
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st := fit.Filter(ctx, state, p, nodes[i]); !st.IsSuccess() {
				t.Error(st)
			}
			a, _ := fit.Score(ctx, state, p, nodes[i])
			b, _ := bal.Score(ctx, state, p, nodes[i])
			results[i] = a + b
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r != results[0] {
			t.Fatalf("node %d scored %d, node 0 scored %d", i, r, results[0])
		}
	}
}
