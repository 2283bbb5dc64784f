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
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		pct   *int32
		nodes int32
		want  int32
	}{
		{nil, 10, 10},
		{nil, 99, 99},
		{nil, 100, 100},
		{nil, 1000, 420},  // 50 - 1000/125 = 42%
		{nil, 5000, 500},  // 50 - 40 = 10%
		{nil, 6000, 300},  // 50 - 48 = 2% → floor 5%
		{nil, 10000, 500}, // 5%
		{ptr.To[int32](0), 1000, 420},
		{ptr.To[int32](40), 1000, 400},
		{ptr.To[int32](100), 1000, 1000},
		{ptr.To[int32](1), 1000, 100}, // never under 100
		{ptr.To[int32](50), 50, 50},
	}
	for _, tc := range tests {
		if got := NumFeasibleNodesToFind(tc.pct, tc.nodes); got != tc.want {
			t.Errorf("NumFeasibleNodesToFind(%v, %d) = %d, want %d", ptr.Deref(tc.pct, -1), tc.nodes, got, tc.want)
		}
	}
}

// nodeNames names n nodes n0000, n0001, ...
func nodeNames(n int) []*framework.NodeInfo {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%04d", i)
	}
	return st.NamedNodeInfos(names...)
}

func TestFindFeasibleNodes(t *testing.T) {
	// Odd-numbered nodes fail.
	odd := func(_ *framework.CycleState, ni *framework.NodeInfo) *framework.Status {
		var i int
		if _, err := fmt.Sscanf(ni.Node().Name, "n%d", &i); err != nil {
			return framework.AsStatus(err)
		}
		if i%2 == 1 {
			return framework.NewStatus(framework.Unschedulable, "odd")
		}
		return nil
	}
	pass := func(*framework.CycleState, *framework.NodeInfo) *framework.Status { return nil }
	scorer := scorePlugin{&fake{name: "S"}}
	tests := []struct {
		name         string
		nodes        int
		pct          int32
		filter       func(*framework.CycleState, *framework.NodeInfo) *framework.Status
		noScore      bool
		noFilter     bool
		start        int
		wantFeasible int
		wantRejected int
		wantNext     int
	}{
		{name: "small cluster checks every node", nodes: 50, filter: odd, start: 7, wantFeasible: 25, wantRejected: 25, wantNext: 7},
		{name: "stops once enough passed", nodes: 1000, pct: 10, filter: pass, start: 0, wantFeasible: 100, wantNext: -1},
		{name: "rejections count towards next start", nodes: 1000, pct: 10, filter: odd, start: 990, wantFeasible: 100, wantNext: -1},
		{name: "without scoring one node is enough", nodes: 300, filter: pass, noScore: true, start: 5, wantFeasible: 1, wantNext: -1},
		{name: "without filters take the first nodes", nodes: 1000, pct: 20, noFilter: true, start: 950, wantFeasible: 200, wantNext: 150},
		{name: "start wraps", nodes: 10, filter: pass, start: 23, wantFeasible: 10, wantNext: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var plugins []framework.Plugin
			if !tc.noFilter {
				plugins = append(plugins, filterPlugin{&fake{name: "F", filter: tc.filter}})
			}
			if !tc.noScore {
				plugins = append(plugins, scorer)
			}
			var extra []v1alpha1.Plugin
			for _, p := range plugins {
				extra = append(extra, v1alpha1.Plugin{Name: p.Name()})
			}
			spec := &v1alpha1.SchedulingProfileSpec{}
			if tc.pct != 0 {
				spec.PercentageOfNodesToScore = ptr.To(tc.pct)
			}
			f, err := NewFramework(context.Background(), registryOf(append(basics(), plugins...)...), "prof", spec,
				WithDefaultPlugins(basicsSet(extra...)), WithParallelism(4))
			if err != nil {
				t.Fatal(err)
			}
			nodes := nodeNames(tc.nodes)
			feasible, next, statuses, err := f.FindFeasibleNodes(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nodes, tc.start)
			if err != nil {
				t.Fatal(err)
			}
			if len(feasible) != tc.wantFeasible {
				t.Errorf("feasible = %d, want %d", len(feasible), tc.wantFeasible)
			}
			if tc.wantRejected != 0 && statuses.Len() != tc.wantRejected {
				t.Errorf("rejected = %d, want %d", statuses.Len(), tc.wantRejected)
			}
			statuses.ForEachExplicitNode(func(n string, s *framework.Status) {
				if s.Plugin() != "F" || s.Message() != "odd" {
					t.Errorf("status of %s = %v", n, s)
				}
			})
			seen := map[string]bool{}
			for _, ni := range feasible {
				if ni == nil || seen[ni.Node().Name] || statuses.Get(ni.Node().Name).Code() == framework.Unschedulable {
					t.Fatalf("bad feasible node %v", ni)
				}
				seen[ni.Node().Name] = true
			}
			wantNext := tc.wantNext
			if wantNext < 0 {
				wantNext = (tc.start%tc.nodes + len(feasible) + statuses.Len()) % tc.nodes
			}
			if next != wantNext {
				t.Errorf("next = %d, want %d", next, wantNext)
			}
			if tc.noFilter && feasible[0].Node().Name != nodes[tc.start].Node().Name {
				t.Errorf("first feasible = %s, want the start node", feasible[0].Node().Name)
			}
		})
	}
}

func TestFindFeasibleNodesRotates(t *testing.T) {
	// With 1000 nodes and 10%, consecutive cycles must visit different nodes.
	f := newFw(t, []framework.Plugin{filterPlugin{&fake{name: "F"}}, scorePlugin{&fake{name: "S"}}}, WithParallelism(1))
	f.percentageOfNodesToScore = ptr.To[int32](10)
	nodes := nodeNames(1000)
	start := 0
	visited := map[string]int{}
	for range 10 {
		feasible, next, _, err := f.FindFeasibleNodes(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nodes, start)
		if err != nil {
			t.Fatal(err)
		}
		for _, ni := range feasible {
			visited[ni.Node().Name]++
		}
		start = next
	}
	if len(visited) != 1000 {
		t.Errorf("10 cycles of 100 nodes visited %d distinct nodes, want 1000", len(visited))
	}
}

func TestFindFeasibleNodesError(t *testing.T) {
	var calls atomic.Int32
	boom := filterPlugin{&fake{name: "F", filter: func(*framework.CycleState, *framework.NodeInfo) *framework.Status {
		calls.Add(1)
		return framework.NewStatus(framework.Error, "boom")
	}}}
	f := newFw(t, []framework.Plugin{boom, scorePlugin{&fake{name: "S"}}}, WithParallelism(1))
	_, _, _, err := f.FindFeasibleNodes(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nodeNames(500), 0)
	if err == nil || !strings.Contains(err.Error(), `running Filter plugin "F": boom`) {
		t.Errorf("err = %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("filter ran %d times after an error, want 1 (the search is cancelled)", calls.Load())
	}
}

func TestSelectHost(t *testing.T) {
	if _, err := SelectHost(nil, rand.IntN); err == nil {
		t.Error("no scores: want an error")
	}
	scores := []framework.NodePluginScores{{Name: "a", TotalScore: 5}, {Name: "b", TotalScore: 9}, {Name: "c", TotalScore: 1}}
	for _, rnd := range []func(int) int{nil, rand.IntN} {
		if got, _ := SelectHost(scores, rnd); got != "b" {
			t.Errorf("SelectHost = %s, want b", got)
		}
	}

	// Ties with extenders' scores are broken uniformly: each of four tied
	// nodes wins about a quarter of the time.
	rnd := rand.New(rand.NewPCG(1, 2))
	tied := []framework.NodePluginScores{
		{Name: "low", TotalScore: 3}, {Name: "t1", TotalScore: 10}, {Name: "t2", TotalScore: 10},
		{Name: "mid", TotalScore: 7}, {Name: "t3", TotalScore: 10}, {Name: "t4", TotalScore: 10},
	}
	const rounds = 40000
	wins := map[string]int{}
	for range rounds {
		got, err := SelectHost(tied, rnd.IntN)
		if err != nil {
			t.Fatal(err)
		}
		wins[got]++
	}
	for _, n := range []string{"t1", "t2", "t3", "t4"} {
		if share := float64(wins[n]) / rounds; share < 0.23 || share > 0.27 {
			t.Errorf("%s won %.3f of the ties, want about 0.25 (%v)", n, share, wins)
		}
	}
	if wins["low"]+wins["mid"] != 0 {
		t.Errorf("a lower score won: %v", wins)
	}
}

// TestSelectHostBreaksTiesAsUpstreamsHeap checks the tie-break without
// extenders against container/heap itself, which kube-scheduler pops the
// winner from.
func TestSelectHostBreaksTiesAsUpstreamsHeap(t *testing.T) {
	tests := []struct {
		name   string
		totals []int64
		want   string
	}{
		{name: "all tied: the first", totals: []int64{4, 4, 4, 4}, want: "n0"},
		{name: "ties behind a lower first score", totals: []int64{5, 9, 9}, want: "n1"},
		{name: "the heap's sift-downs decide, not list order", totals: []int64{1, 2, 9, 9, 9}, want: "n3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scores := make([]framework.NodePluginScores, len(tc.totals))
			for i, total := range tc.totals {
				scores[i] = framework.NodePluginScores{Name: fmt.Sprintf("n%d", i), TotalScore: total}
			}
			got, err := SelectHost(scores, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("SelectHost = %s, want %s", got, tc.want)
			}
			if ref := heapPop(scores); got != ref {
				t.Errorf("SelectHost = %s, container/heap pops %s", got, ref)
			}
		})
	}
	// Random lists, checked against container/heap.
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		scores := make([]framework.NodePluginScores, 1+rnd.IntN(40))
		for i := range scores {
			scores[i] = framework.NodePluginScores{Name: fmt.Sprintf("n%d", i), TotalScore: int64(rnd.IntN(4))}
		}
		got, _ := SelectHost(scores, nil)
		if ref := heapPop(scores); got != ref {
			t.Fatalf("SelectHost(%v) = %s, container/heap pops %s", scores, got, ref)
		}
	}
}

// maxHeap orders scores by higher total, as kube-scheduler's heap does
// when no tie-breaker was drawn.
type maxHeap []framework.NodePluginScores

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i].TotalScore > h[j].TotalScore }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(framework.NodePluginScores)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// heapPop is the node kube-scheduler would pick: heap.Init over a copy,
// then heap.Pop.
func heapPop(scores []framework.NodePluginScores) string {
	h := append(maxHeap(nil), scores...)
	heap.Init(&h)
	return heap.Pop(&h).(framework.NodePluginScores).Name
}

func TestParallelizerVisitsEveryPieceOnce(t *testing.T) {
	for _, tc := range []struct{ parallelism, pieces int }{{1, 10}, {4, 1}, {4, 7}, {16, 5000}, {3, 0}} {
		p := NewParallelizer(tc.parallelism)
		withOp := func(ctx context.Context, pieces int, do func(int)) { p.Until(ctx, pieces, do, "test") }
		for name, until := range map[string]func(context.Context, int, func(int)){"Until": withOp, "untilCPU": p.untilCPU} {
			counts := make([]atomic.Int32, tc.pieces)
			until(context.Background(), tc.pieces, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("%s, parallelism %d, pieces %d: piece %d ran %d times", name, tc.parallelism, tc.pieces, i, c)
				}
			}
		}
	}
	if got := chunkSize(5000, 16); got != 70 {
		t.Errorf("chunkSize(5000, 16) = %d, want 70 (sqrt)", got)
	}
	if got := chunkSize(100, 16); got != 7 {
		t.Errorf("chunkSize(100, 16) = %d, want 7 (an even share)", got)
	}
	if got := chunkSize(0, 16); got != 1 {
		t.Errorf("chunkSize(0, 16) = %d, want 1", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int32
	NewParallelizer(4).Until(ctx, 100, func(int) { ran.Add(1) }, "test")
	if ran.Load() != 0 {
		t.Errorf("a cancelled context must stop the work, %d pieces ran", ran.Load())
	}
}
