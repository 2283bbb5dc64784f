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
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestFitScorePlacement(t *testing.T) {
	n4x8 := alloc("cpu", "4", "memory", "8Gi", "pods", "10")
	rack := func(nodes ...*framework.NodeInfo) *framework.Placement {
		return &framework.Placement{Name: "rack", Nodes: nodes}
	}
	members := func(pods ...*v1.Pod) []framework.ProposedAssignment {
		out := make([]framework.ProposedAssignment, len(pods))
		for i, p := range pods {
			out[i] = framework.ProposedAssignment{Pod: p, NodeName: "n"}
		}
		return out
	}
	tests := []struct {
		name      string
		args      string
		placement *framework.Placement
		members   []framework.ProposedAssignment
		want      int64
	}{
		// cpu 2/8 = 25, memory 2Gi/16Gi = 12: (25+12)/2.
		{"members over two empty nodes", "", rack(node(n4x8), node(n4x8)), members(pod("cpu", "1", "memory", "1Gi"), pod("cpu", "1", "memory", "1Gi")), 18},
		// cpu (2+4)/8 = 75, memory (2+2)/16 = 25.
		{"pods already there count", "", rack(node(n4x8, assigned("a", "cpu", "2", "memory", "2Gi")), node(n4x8)),
			members(pod("cpu", "2", "memory", "1Gi"), pod("cpu", "2", "memory", "1Gi")), 50},
		// The node strategy does not matter: placements are MostAllocated.
		{"least-allocated strategy still scores used share", `{"scoringStrategy":{"type":"LeastAllocated"}}`, rack(node(n4x8)),
			members(pod("cpu", "4", "memory", "8Gi")), 100},
		// The strategy's resources and weights do: cpu 50 x 3, memory 25 x 1.
		{"weights of the strategy", `{"scoringStrategy":{"type":"LeastAllocated","resources":[{"name":"cpu","weight":3},{"name":"memory","weight":1}]}}`,
			rack(node(n4x8)), members(pod("cpu", "2", "memory", "2Gi")), 43},
		// Containers without requests count the defaults: cpu 100m/8 = 1, memory 200Mi/16Gi = 1.
		{"zero requests count defaults", "", rack(node(n4x8), node(n4x8)), members(st.Pod("p").Container().Obj()), 1},
		{"overcommitted placement capped", "", rack(node(n4x8, assigned("a", "cpu", "4", "memory", "8Gi"))), members(pod("cpu", "1", "memory", "1Gi")), 100},
		{"no nodes", "", rack(), members(pod("cpu", "1")), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustFit(t, tt.args)
			got, status := pl.ScorePlacement(context.Background(), nil, &framework.PodGroupAssignments{Placement: tt.placement, Assignments: tt.members})
			if !status.IsSuccess() || got != tt.want {
				t.Errorf("ScorePlacement = %d, %v; want %d", got, status, tt.want)
			}
		})
	}
}

func TestFitNormalizePlacementScoresKeepsScores(t *testing.T) {
	scores := []int64{0, 42, 100}
	if st := mustFit(t, "").NormalizePlacementScores(context.Background(), nil, scores); !st.IsSuccess() {
		t.Fatal(st)
	}
	if scores[0] != 0 || scores[1] != 42 || scores[2] != 100 {
		t.Errorf("scores = %v, want them unchanged", scores)
	}
}
