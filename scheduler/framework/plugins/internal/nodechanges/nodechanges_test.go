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

package nodechanges

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// info returns a NodeInfo of node name at generation gen.
func info(name string, gen int64) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	ni.Generation = gen
	return ni
}

// copyOf returns a copy of ni, as the snapshot's re-lay makes.
func copyOf(ni *framework.NodeInfo) *framework.NodeInfo {
	c := *ni
	return &c
}

func TestTracker(t *testing.T) {
	a, b, c := info("a", 1), info("b", 2), info("c", 3)
	tests := []struct {
		name string
		next func() []*framework.NodeInfo
		want []int
	}{
		{name: "the same NodeInfos", next: func() []*framework.NodeInfo { return []*framework.NodeInfo{a, b, c} }},
		{name: "a copy of the same version", next: func() []*framework.NodeInfo { return []*framework.NodeInfo{copyOf(a), b, c} }},
		{name: "a new version", next: func() []*framework.NodeInfo { return []*framework.NodeInfo{a, info("b", 4), c} }, want: []int{1}},
		{name: "another node with the same generation", next: func() []*framework.NodeInfo { return []*framework.NodeInfo{a, b, info("x", 3)} }, want: []int{2}},
		{name: "a copy without a generation", next: func() []*framework.NodeInfo {
			z := copyOf(a)
			z.Generation = 0
			return []*framework.NodeInfo{z, b, c}
		}, want: []int{0}},
		{name: "a position emptied", next: func() []*framework.NodeInfo { return []*framework.NodeInfo{a, nil, c} }, want: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			tr.Reset(3)
			first := []*framework.NodeInfo{a, b, c}
			if got := tr.Changed(first); !slices.Equal(got, []int{0, 1, 2}) {
				t.Fatalf("a fresh tracker: changed %v, want every position", got)
			}
			for n, ni := range first {
				tr.Record(n, ni)
			}
			if got := tr.Changed(tt.next()); !slices.Equal(got, tt.want) {
				t.Errorf("changed %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTrackerKeepsACopy(t *testing.T) {
	a := info("a", 1)
	var tr Tracker
	tr.Reset(1)
	tr.Record(0, a)
	c := copyOf(a)
	tr.Changed([]*framework.NodeInfo{c})
	if tr.nodes[0] != c {
		t.Error("the copy was not kept: the next cycle would compare generations again")
	}
	if tr.Len() != 1 {
		t.Errorf("Len = %d", tr.Len())
	}
}

func TestTrackerPosition(t *testing.T) {
	a, b := info("a", 1), info("b", 2)
	a2, bCopy := info("a", 3), copyOf(b)
	// Where a snapshot's list holds them: a and then a2 at 0, b and its
	// copy at 1.
	for ni, p := range map[*framework.NodeInfo]int{a: 0, b: 1, a2: 0, bCopy: 1} {
		ni.SetSnapshotIndex(p)
	}
	stale := info("c", 4)
	stale.SetSnapshotIndex(1)
	unplaced := info("d", 5)
	steps := []struct {
		name string
		do   func(tr *Tracker)
		want map[*framework.NodeInfo]int
	}{
		{name: "recorded", do: func(tr *Tracker) { tr.Record(0, a); tr.Record(1, b) }, want: map[*framework.NodeInfo]int{a: 0, b: 1, a2: -1, bCopy: -1}},
		{name: "a change is found once recorded", do: func(tr *Tracker) {
			tr.Changed([]*framework.NodeInfo{a2, bCopy})
		}, want: map[*framework.NodeInfo]int{a: 0, a2: -1, b: -1, bCopy: 1}},
		{name: "the old NodeInfo is gone", do: func(tr *Tracker) { tr.Record(0, a2) }, want: map[*framework.NodeInfo]int{a: -1, a2: 0, bCopy: 1}},
		{name: "placed where another is held, or placed nowhere", do: func(*Tracker) {}, want: map[*framework.NodeInfo]int{stale: -1, unplaced: -1}},
		{name: "an emptied position", do: func(tr *Tracker) { tr.Record(1, nil) }, want: map[*framework.NodeInfo]int{a2: 0, bCopy: -1, b: -1}},
		{name: "reset", do: func(tr *Tracker) { tr.Reset(2) }, want: map[*framework.NodeInfo]int{a2: -1}},
	}
	var tr Tracker
	tr.Reset(2)
	for _, st := range steps {
		st.do(&tr)
		for ni, want := range st.want {
			if got := tr.Position(ni); got != want {
				t.Errorf("%s: Position(%s gen %d) = %d, want %d", st.name, ni.Node().Name, ni.Generation, got, want)
			}
		}
	}
	if got := tr.Position(nil); got != -1 {
		t.Errorf("Position(nil) = %d, want -1", got)
	}
}

// countingParallelizer runs Until's pieces in order and counts its calls.
type countingParallelizer struct{ calls int }

func (p *countingParallelizer) Until(_ context.Context, pieces int, do func(int), _ string) {
	p.calls++
	for i := range pieces {
		do(i)
	}
}

func TestRecount(t *testing.T) {
	for _, tc := range []struct {
		n            int
		wantParallel bool
	}{{n: 0}, {n: 1}, {n: parallelFrom - 1}, {n: parallelFrom, wantParallel: true}, {n: 3 * parallelFrom, wantParallel: true}} {
		par := &countingParallelizer{}
		seen := make([]int, tc.n)
		Recount(context.Background(), par, "test", tc.n, func(j int) { seen[j]++ })
		for j, c := range seen {
			if c != 1 {
				t.Errorf("n=%d: index %d counted %d times", tc.n, j, c)
			}
		}
		if (par.calls > 0) != tc.wantParallel {
			t.Errorf("n=%d: parallelizer used %d times, want parallel %v", tc.n, par.calls, tc.wantParallel)
		}
	}
}
