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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// placementPlugin generates, judges and scores placements as told.
type placementPlugin struct {
	name      string
	generate  func(parent *framework.Placement) ([]*framework.Placement, *framework.Status)
	feasible  func(p framework.PlacementProgress) *framework.Status
	score     func(a *framework.PodGroupAssignments) int64
	normalize func(scores []int64) *framework.Status
}

func (p *placementPlugin) Name() string { return p.name }

// The fakes keep the interfaces' signatures: a fake that lost one would
// be registered as a bare plugin and never run.
var (
	_ framework.PlacementGeneratePlugin  = generator{}
	_ framework.PlacementFeasiblePlugin  = feasibility{}
	_ framework.PlacementScorePlugin     = scorer{}
	_ framework.PodGroupPostFilterPlugin = groupPostFilter{}
)

type generator struct{ *placementPlugin }

func (g generator) GeneratePlacements(_ context.Context, _ *framework.GroupNode, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	return g.generate(parent)
}

type feasibility struct{ *placementPlugin }

func (f feasibility) PlacementFeasible(_ context.Context, _ *framework.GroupNode, p framework.PlacementProgress) *framework.Status {
	return f.feasible(p)
}

// feasibility plugins must be enabled somewhere to count: give them a Permit.
func (feasibility) Permit(context.Context, *framework.CycleState, *v1.Pod, string) (*framework.Status, time.Duration) {
	return nil, 0
}

type scorer struct{ *placementPlugin }

func (s scorer) ScorePlacement(_ context.Context, _ *framework.GroupNode, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	return s.score(a), nil
}

func (s scorer) NormalizePlacementScores(_ context.Context, _ *framework.GroupNode, scores []int64) *framework.Status {
	if s.normalize == nil {
		return nil
	}
	return s.normalize(scores)
}

func TestRunPlacementGeneratePlugins(t *testing.T) {
	nodes := st.NamedNodeInfos("n1", "n2")
	split := generator{&placementPlugin{name: "Split", generate: func(parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
		var out []*framework.Placement
		for _, ni := range parent.Nodes {
			out = append(out, &framework.Placement{Name: ni.Node().Name, Nodes: []*framework.NodeInfo{ni}})
		}
		return out, nil
	}}}
	none := generator{&placementPlugin{name: "None", generate: func(*framework.Placement) ([]*framework.Placement, *framework.Status) { return nil, nil }}}
	tests := []struct {
		name     string
		plugins  []framework.Plugin
		want     []string
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "without a generator every node is one placement", want: []string{""}},
		{name: "the generator's placements", plugins: []framework.Plugin{split}, want: []string{"n1", "n2"}},
		{name: "no placement at all", plugins: []framework.Plugin{none}, wantCode: framework.Unschedulable, wantMsg: "no feasible placements found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFw(t, tc.plugins)
			got, s := f.RunPlacementGeneratePlugins(context.Background(), framework.PodGroupNode(st.WorkloadGroup("g").Obj()), &framework.Placement{Nodes: nodes})
			if s.Code() != tc.wantCode || s.Message() != tc.wantMsg {
				t.Fatalf("status = %v, want %v %q", s, tc.wantCode, tc.wantMsg)
			}
			var names []string
			for _, p := range got {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("placements = %v, want %v", names, tc.want)
			}
		})
	}
}

func TestRunPlacementFeasiblePlugins(t *testing.T) {
	returning := func(name string, c framework.Code) framework.Plugin {
		return feasibility{&placementPlugin{name: name, feasible: func(framework.PlacementProgress) *framework.Status {
			if c == framework.Success {
				return nil
			}
			return framework.NewStatus(c, name+" says "+c.String())
		}}}
	}
	tests := []struct {
		name     string
		plugins  []framework.Plugin
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "without plugins the group is admitted", wantCode: framework.Success},
		{name: "a wait is kept while the others admit", plugins: []framework.Plugin{returning("A", framework.Wait), returning("B", framework.Success)}, wantCode: framework.Wait, wantMsg: "A says Wait"},
		{name: "unschedulable wins at once", plugins: []framework.Plugin{returning("A", framework.Wait), returning("B", framework.Unschedulable)}, wantCode: framework.Unschedulable, wantMsg: "B says Unschedulable"},
		{name: "another code is an error", plugins: []framework.Plugin{returning("A", framework.UnschedulableAndUnresolvable)}, wantCode: framework.Error, wantMsg: "unexpected status from PlacementFeasible plugin: UnschedulableAndUnresolvable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFw(t, tc.plugins)
			s := f.RunPlacementFeasiblePlugins(context.Background(), framework.PodGroupNode(st.WorkloadGroup("g").Obj()), framework.PlacementProgress{})
			if s.Code() != tc.wantCode || s.Message() != tc.wantMsg {
				t.Errorf("status = %v, want %v %q", s, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

func TestRunPlacementScorePlugins(t *testing.T) {
	count := func(a *framework.PodGroupAssignments) int64 { return int64(len(a.Assignments)) }
	toHundred := func(scores []int64) *framework.Status {
		top := slices.Max(scores)
		for i := range scores {
			scores[i] = scores[i] * 100 / top
		}
		return nil
	}
	assignments := func(counts ...int) []*framework.PodGroupAssignments {
		var out []*framework.PodGroupAssignments
		for i, n := range counts {
			p := &framework.Placement{Name: fmt.Sprintf("rack-%d", i)}
			out = append(out, &framework.PodGroupAssignments{Placement: p, Assignments: make([]framework.ProposedAssignment, n)})
		}
		return out
	}
	tests := []struct {
		name    string
		plugins []framework.Plugin
		weights map[string]int32
		counts  []int
		want    []int64
		// wantScores are ScorePlacements' answer, when checked.
		wantScores []framework.NodePluginScores
		wantErr    string
	}{
		{
			name:    "normalized, weighted and summed",
			plugins: []framework.Plugin{scorer{&placementPlugin{name: "Count", score: count, normalize: toHundred}}, scorer{&placementPlugin{name: "Flat", score: func(*framework.PodGroupAssignments) int64 { return 10 }}}},
			weights: map[string]int32{"Count": 2},
			counts:  []int{2, 4}, want: []int64{50*2 + 10, 100*2 + 10},
			wantScores: []framework.NodePluginScores{
				{Name: "rack-0", TotalScore: 110, Scores: []framework.PluginScore{{Name: "Count", Score: 100}, {Name: "Flat", Score: 10}}},
				{Name: "rack-1", TotalScore: 210, Scores: []framework.PluginScore{{Name: "Count", Score: 200}, {Name: "Flat", Score: 10}}},
			},
		},
		{
			name:    "a score outside the range fails",
			plugins: []framework.Plugin{scorer{&placementPlugin{name: "Count", score: count}}},
			counts:  []int{101}, wantErr: `plugin "Count" returns an invalid placement score 101`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var extra []v1alpha1.Plugin
			for _, p := range tc.plugins {
				pl := v1alpha1.Plugin{Name: p.Name()}
				if w, ok := tc.weights[p.Name()]; ok {
					pl = weighted(p.Name(), w)
				}
				extra = append(extra, pl)
			}
			f, err := NewFramework(context.Background(), registryOf(append(basics(), tc.plugins...)...), "prof", nil, WithDefaultPlugins(basicsSet(extra...)))
			if err != nil {
				t.Fatal(err)
			}
			got, s := f.RunPlacementScorePlugins(context.Background(), framework.PodGroupNode(st.WorkloadGroup("g").Obj()), assignments(tc.counts...))
			if tc.wantErr != "" {
				if s.Code() != framework.Error || !strings.Contains(s.Message(), tc.wantErr) {
					t.Errorf("status = %v, want an error containing %q", s, tc.wantErr)
				}
				return
			}
			if !s.IsSuccess() || !slices.Equal(got, tc.want) {
				t.Errorf("scores = %v, %v; want %v", got, s, tc.want)
			}
			if tc.wantScores != nil {
				scores, s := f.ScorePlacements(context.Background(), framework.PodGroupNode(st.WorkloadGroup("g").Obj()), assignments(tc.counts...))
				if !s.IsSuccess() {
					t.Fatalf("ScorePlacements: %v", s)
				}
				if diff := cmp.Diff(tc.wantScores, scores); diff != "" {
					t.Errorf("ScorePlacements (-want +got):\n%s", diff)
				}
			}
		})
	}
}

type groupPostFilter struct {
	name   string
	status *framework.Status
}

func (p groupPostFilter) Name() string { return p.name }

func (p groupPostFilter) PodGroupPostFilter(context.Context, *framework.GroupNode, []*v1.Pod, framework.PodGroupSimulation) (*framework.PodGroupPostFilterResult, *framework.Status) {
	return nil, p.status
}

func TestRunPodGroupPostFilterPlugins(t *testing.T) {
	tests := []struct {
		name     string
		plugins  []framework.Plugin
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "none: unschedulable without a reason", wantCode: framework.Unschedulable},
		{
			name: "reasons of unschedulable plugins add up",
			plugins: []framework.Plugin{
				groupPostFilter{"A", framework.NewStatus(framework.Unschedulable, "a")},
				groupPostFilter{"B", framework.NewStatus(framework.Unschedulable, "b")},
			},
			wantCode: framework.Unschedulable, wantMsg: "a, b",
		},
		{
			name: "unresolvable ends the run",
			plugins: []framework.Plugin{
				groupPostFilter{"A", framework.NewStatus(framework.UnschedulableAndUnresolvable, "a")},
				groupPostFilter{"B", framework.NewStatus(framework.Unschedulable, "b")},
			},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "a",
		},
		{
			name:     "another code is an error",
			plugins:  []framework.Plugin{groupPostFilter{"A", framework.NewStatus(framework.Wait, "w")}},
			wantCode: framework.Error, wantMsg: `error in "A" PodGroupPostFilter plugins: w`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFw(t, tc.plugins)
			_, s := f.RunPodGroupPostFilterPlugins(context.Background(), framework.PodGroupNode(st.WorkloadGroup("g").Obj()), nil, nil)
			if s.Code() != tc.wantCode || s.Message() != tc.wantMsg {
				t.Errorf("status = %v, want %v %q", s, tc.wantCode, tc.wantMsg)
			}
		})
	}
}
