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
	"context"
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// skipping returns a PreFilter/Filter plugin whose PreFilter skips while
// *skip is true.
func skipping(name string, skip *bool) filterPlugin {
	skipStatus := framework.NewStatus(framework.Skip)
	return filterPlugin{&fake{name: name, preFilter: func() (*framework.PreFilterResult, *framework.Status) {
		if *skip {
			return nil, skipStatus
		}
		return nil, nil
	}}}
}

func filterNames(list []framework.FilterPlugin) []string {
	out := make([]string, 0, len(list))
	for _, pl := range list {
		out = append(out, pl.Name())
	}
	return out
}

func TestRunPreFilterPluginsSharesSkipSets(t *testing.T) {
	var skipA, skipC bool
	f := newFw(t, []framework.Plugin{skipping("A", &skipA), skipping("B", new(bool)), skipping("C", &skipC)})
	cycles := []struct {
		skipA, skipC bool
		want         []string
		wantActive   []string
		// memoSets is how many skip sets the framework holds after the
		// cycle: one per combination of skipped plugins, shared by the
		// cycles that skip the same plugins.
		memoSets int
	}{
		{skipA: true, want: []string{"A"}, wantActive: []string{"B", "C"}, memoSets: 1},
		{skipA: true, want: []string{"A"}, wantActive: []string{"B", "C"}, memoSets: 1},
		{skipA: true, skipC: true, want: []string{"A", "C"}, wantActive: []string{"B"}, memoSets: 2},
		{want: []string{}, wantActive: []string{"A", "B", "C"}, memoSets: 3},
		{skipA: true, want: []string{"A"}, wantActive: []string{"B", "C"}, memoSets: 3},
		{skipC: true, want: []string{"C"}, wantActive: []string{"A", "B"}, memoSets: 4},
	}
	for i, c := range cycles {
		skipA, skipC = c.skipA, c.skipC
		state := framework.NewCycleState()
		_, s, narrowedBy := f.RunPreFilterPlugins(context.Background(), state, st.Pod("p").Obj())
		if !s.IsSuccess() {
			t.Fatalf("cycle %d: %v", i, s)
		}
		if narrowedBy != nil {
			t.Errorf("cycle %d: narrowedBy = %v, want nil when no plugin narrowed", i, narrowedBy)
		}
		if got := state.SkippedFilters(); !slices.Equal(got, c.want) {
			t.Errorf("cycle %d: skipped %v, want %v", i, got, c.want)
		}
		if n := lenOf(f.skips.filterSkips.entries.Load()); n != c.memoSets {
			t.Errorf("cycle %d: the framework holds %d skip sets, want %d", i, n, c.memoSets)
		}
		if active := filterNames(f.activeFilters(state)); !slices.Equal(active, c.wantActive) {
			t.Errorf("cycle %d: active filters %v, want %v", i, active, c.wantActive)
		}
	}
}

func TestRunPreFilterPluginsNarrowedBy(t *testing.T) {
	narrowing := filterPlugin{&fake{name: "N", preFilter: func() (*framework.PreFilterResult, *framework.Status) {
		return &framework.PreFilterResult{NodeNames: sets.New("a")}, nil
	}}}
	f := newFw(t, []framework.Plugin{narrowing, skipping("S", new(bool))}, WithSnapshotSharedLister(st.NewLister(st.NamedNodeInfos("a", "b")...)))
	for i := range 2 {
		_, s, narrowedBy := f.RunPreFilterPlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj())
		if !s.IsSuccess() || !narrowedBy.Equal(sets.New("N")) {
			t.Fatalf("cycle %d: status %v, narrowedBy %v; want success narrowed by N", i, s, narrowedBy)
		}
		// The caller owns narrowedBy: changing it must not reach later cycles.
		narrowedBy.Insert("Extender")
	}
}

func TestActiveFiltersFollowAnyGivenSkipSet(t *testing.T) {
	f := newFw(t, []framework.Plugin{skipping("A", new(bool)), skipping("B", new(bool)), skipping("C", new(bool))})
	tests := []struct {
		skip sets.Set[string]
		want []string
	}{
		{skip: nil, want: []string{"A", "B", "C"}},
		{skip: sets.New[string](), want: []string{"A", "B", "C"}},
		{skip: sets.New("Unknown"), want: []string{"A", "B", "C"}},
		{skip: sets.New("B"), want: []string{"A", "C"}},
		{skip: sets.New("A", "C", "Unknown"), want: []string{"B"}},
		{skip: sets.New("A", "B", "C"), want: []string{}},
	}
	for _, tc := range tests {
		state := framework.NewCycleState()
		state.SetSkipFilterPlugins(tc.skip)
		for range 2 { // the second time from the memo
			if got := filterNames(f.activeFilters(state)); !slices.Equal(got, tc.want) {
				t.Errorf("skip %v: active %v, want %v", sets.List(tc.skip), got, tc.want)
			}
		}
	}
}

func TestSkipMemosAllocateNothingOnceWarm(t *testing.T) {
	skip := true
	f := newFw(t, []framework.Plugin{skipping("A", &skip), skipping("B", new(bool))})
	state := framework.NewCycleState()
	state.SetSkipFilterPlugins(sets.New("A"))
	f.activeFilters(state)
	if n := testing.AllocsPerRun(20, func() { f.activeFilters(state) }); n != 0 {
		t.Errorf("activeFilters allocates %v times per call once warm, want 0", n)
	}
	var m memo[sets.Set[string]]
	skipSet(&m, f.preFilter, 1, nil)
	if n := testing.AllocsPerRun(20, func() { skipSet(&m, f.preFilter, 1, nil) }); n != 0 {
		t.Errorf("skipSet allocates %v times per call once warm, want 0", n)
	}
}

func TestMemoIsBoundedAndSafeForConcurrentUse(t *testing.T) {
	var m memo[int]
	builds := make([]int, 2*maxMemoEntries)
	var mu sync.Mutex
	build := func(mask pluginMask) int {
		mu.Lock()
		builds[mask]++
		mu.Unlock()
		return int(mask) * 10
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2 * maxMemoEntries {
				mask := pluginMask((i + g) % (2 * maxMemoEntries))
				if got := m.get(mask, build); got != int(mask)*10 {
					t.Errorf("get(%d) = %d, want %d", mask, got, int(mask)*10)
				}
			}
		}()
	}
	wg.Wait()
	if n := len(*m.entries.Load()); n != maxMemoEntries {
		t.Errorf("memo keeps %d entries, want its bound %d", n, maxMemoEntries)
	}
	for mask, n := range builds {
		if n == 0 {
			t.Errorf("mask %d never built", mask)
		}
		if _, kept := (*m.entries.Load())[pluginMask(mask)]; kept && n != 1 {
			t.Errorf("kept mask %d built %d times, want once", mask, n)
		}
	}
}

func TestSkipSetBeyondAMask(t *testing.T) {
	list := make([]framework.FilterPlugin, maskablePlugins+1)
	for i := range list {
		list[i] = filterPlugin{&fake{name: "P" + string(rune('a'+i%26)) + string(rune('a'+i/26))}}
	}
	var m memo[sets.Set[string]]
	got := skipSet(&m, list, 0, []string{"Pzz", "Paa"})
	if !got.Equal(sets.New("Pzz", "Paa")) {
		t.Errorf("skipSet over %d plugins = %v, want the names given", len(list), got)
	}
	if m.entries.Load() != nil {
		t.Error("a list too long for a mask was memoized")
	}
}

// preScoreSkipping returns a Score plugin whose PreScore skips while *skip
// is true.
func preScoreSkipping(name string, skip *bool) scorePlugin {
	skipStatus := framework.NewStatus(framework.Skip)
	return scorePlugin{&fake{name: name, preScore: func() *framework.Status {
		if *skip {
			return skipStatus
		}
		return nil
	}}}
}

func TestRunPreScorePluginsSharesSkipSets(t *testing.T) {
	var skipA, skipC bool
	f := newFw(t, []framework.Plugin{preScoreSkipping("A", &skipA), preScoreSkipping("B", new(bool)), preScoreSkipping("C", &skipC)})
	cycles := []struct {
		skipA, skipC bool
		want         []string
		// memoSets is how many skip sets the framework holds after the
		// cycle, one per combination of skipped plugins.
		memoSets int
	}{
		{skipA: true, want: []string{"A"}, memoSets: 1},
		{skipA: true, want: []string{"A"}, memoSets: 1},
		{skipA: true, skipC: true, want: []string{"A", "C"}, memoSets: 2},
		{want: nil, memoSets: 3},
		{skipC: true, want: []string{"C"}, memoSets: 4},
	}
	var first sets.Set[string]
	for i, c := range cycles {
		skipA, skipC = c.skipA, c.skipC
		state := framework.NewCycleState()
		if s := f.RunPreScorePlugins(context.Background(), state, st.Pod("p").Obj(), nil); !s.IsSuccess() {
			t.Fatalf("cycle %d: %v", i, s)
		}
		for _, name := range []string{"A", "B", "C"} {
			if got, want := state.SkipsScore(name), slices.Contains(c.want, name); got != want {
				t.Errorf("cycle %d: SkipsScore(%s) = %v, want %v", i, name, got, want)
			}
		}
		if n := lenOf(f.skips.scoreSkips.entries.Load()); n != c.memoSets {
			t.Errorf("cycle %d: the framework holds %d PreScore skip sets, want %d", i, n, c.memoSets)
		}
		if i == 0 {
			first = f.skips.scoreSkips.get(1, nil)
		}
	}
	if !first.Equal(sets.New("A")) {
		t.Errorf("the shared set of the first cycle became %v, want [A]", sets.List(first))
	}
}
