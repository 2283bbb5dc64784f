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
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// switchNominator is a nominator that says whether anything is nominated
// regardless of what it holds, to show when the per-node lookup is skipped.
type switchNominator struct {
	fakeNominator
	any bool
}

func (n switchNominator) HasNominatedPods() bool { return n.any }

func TestFindFeasibleNodesNominationsAndSkips(t *testing.T) {
	// The filter rejects a node holding any pod, so a nominated pod the
	// incoming pod yields to makes "n" infeasible when it is looked up.
	full := func(_ *framework.CycleState, ni *framework.NodeInfo) *framework.Status {
		if len(ni.Pods) > 0 {
			return framework.NewStatus(framework.Unschedulable, "taken")
		}
		return nil
	}
	nominated := fakeNominator{"n": {st.Pod("nominated").Priority(10).Info()}}
	tests := []struct {
		name         string
		nominator    framework.PodNominator
		skip         sets.Set[string]
		wantFeasible int
	}{
		{name: "no nominator", wantFeasible: 1},
		{name: "a nominator that cannot tell is asked per node", nominator: nominated, wantFeasible: 0},
		{name: "a nominator holding nominations is asked per node", nominator: switchNominator{nominated, true}, wantFeasible: 0},
		{name: "a nominator holding none is not asked", nominator: switchNominator{nominated, false}, wantFeasible: 1},
		{name: "a filter skipped at PreFilter does not run", nominator: nominated, skip: sets.New("Fits"), wantFeasible: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.nominator != nil {
				opts = append(opts, WithPodNominator(tc.nominator))
			}
			f := newFw(t, []framework.Plugin{filterPlugin{&fake{name: "Fits", filter: full}}}, opts...)
			state := framework.NewCycleState()
			state.SetSkipFilterPlugins(tc.skip)
			feasible, _, statuses, err := f.FindFeasibleNodes(context.Background(), state, st.Pod("p").Obj(), st.NamedNodeInfos("n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(feasible) != tc.wantFeasible || len(feasible)+statuses.Len() != 1 {
				t.Errorf("feasible %d, rejected %d; want %d feasible", len(feasible), statuses.Len(), tc.wantFeasible)
			}
		})
	}
}

func TestRunScorePluginsReusesReleasedResults(t *testing.T) {
	byName := func(ni *framework.NodeInfo) (int64, *framework.Status) {
		return int64(len(ni.Node().Name)), nil
	}
	f := newFw(t, []framework.Plugin{scorePlugin{&fake{name: "Len", score: byName}}})
	score := func(nodes []*framework.NodeInfo) []framework.NodePluginScores {
		t.Helper()
		got, s := f.RunScorePlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nodes)
		if !s.IsSuccess() {
			t.Fatal(s)
		}
		return got
	}
	check := func(got []framework.NodePluginScores, names ...string) {
		t.Helper()
		if len(got) != len(names) {
			t.Fatalf("%d results, want %d", len(got), len(names))
		}
		for i, n := range names {
			if got[i].Name != n || got[i].TotalScore != int64(len(n)) || len(got[i].Scores) != 1 || got[i].Scores[0].Score != int64(len(n)) {
				t.Errorf("result %d = %+v, want %s scored %d", i, got[i], n, len(n))
			}
		}
	}

	first := score(st.NamedNodeInfos("a", "bb", "ccc"))
	check(first, "a", "bb", "ccc")
	// Unreleased, the first result is not touched by the next cycle.
	second := score(st.NamedNodeInfos("dddd", "e"))
	check(first, "a", "bb", "ccc")
	check(second, "dddd", "e")

	// Released, the next cycle reuses its memory and fills it afresh.
	f.ReleaseScores(second)
	third := score(st.NamedNodeInfos("ff", "ggg"))
	if &third[0] != &second[0] {
		t.Error("the released result's memory was not reused")
	}
	check(third, "ff", "ggg")
	// Releasing a result twice, or one that is not the last lent, is a no-op.
	f.ReleaseScores(third)
	f.ReleaseScores(third)
	f.ReleaseScores(first)
	fourth := score(st.NamedNodeInfos("hhhh"))
	fifth := score(st.NamedNodeInfos("i"))
	if &fourth[0] == &fifth[0] {
		t.Error("one result's memory was lent twice")
	}
	check(fourth, "hhhh")
	check(fifth, "i")
}

func TestFindFeasibleNodesReusesReleasedLists(t *testing.T) {
	f := newFw(t, []framework.Plugin{filterPlugin{&fake{name: "Fits"}}, scorePlugin{&fake{name: "Score"}}})
	find := func(names ...string) []*framework.NodeInfo {
		t.Helper()
		feasible, _, _, err := f.FindFeasibleNodes(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), st.NamedNodeInfos(names...), 0)
		if err != nil {
			t.Fatal(err)
		}
		return feasible
	}
	names := func(nodes []*framework.NodeInfo) []string {
		var out []string
		for _, ni := range nodes {
			out = append(out, ni.Node().Name)
		}
		return out
	}

	first := find("a", "b", "c")
	// Unreleased, the first list is not touched by the next cycle.
	second := find("d", "e")
	if got := names(first); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("first list = %v after another cycle", got)
	}
	f.ReleaseFeasible(second)
	third := find("f")
	if &third[0] != &second[0] {
		t.Error("the released list's memory was not reused")
	}
	if got := names(third); !slices.Equal(got, []string{"f"}) {
		t.Errorf("third list = %v, want [f]", got)
	}
	if second[1] != nil {
		t.Error("a released list still points at its NodeInfos")
	}
	// Releasing twice, or a list that is not the last lent, is a no-op.
	f.ReleaseFeasible(third)
	f.ReleaseFeasible(third)
	f.ReleaseFeasible(first)
	fourth, fifth := find("g"), find("h")
	if &fourth[0] == &fifth[0] {
		t.Error("one list's memory was lent twice")
	}
}
