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

package podgrouppodscount

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestScoreAndNormalize(t *testing.T) {
	group := st.WorkloadGroup("crew").Gang(2).Obj()
	placedPod := st.Pod("m0").SchedulingGroup("crew").NodeName("n1").Obj()
	assign := func(n int) *framework.PodGroupAssignments {
		a := &framework.PodGroupAssignments{}
		for range n {
			a.Assignments = append(a.Assignments, framework.ProposedAssignment{NodeName: "n"})
		}
		return a
	}
	tests := []struct {
		name    string
		placed  []*v1.Pod
		counts  []int
		want    []int64
		wantErr bool
	}{
		{name: "scaled to the largest", counts: []int{4, 2, 1}, want: []int64{100, 50, 25}},
		{name: "placed members count in every placement", placed: []*v1.Pod{placedPod}, counts: []int{1, 3}, want: []int64{50, 100}},
		{name: "no member anywhere is an error", counts: []int{0, 0}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &st.Handle{Native: &st.Workloads{Groups: []*schedulingv1beta1.PodGroup{group}, Pods: tc.placed}}
			p, err := New(context.Background(), nil, h)
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*PodGroupPodsCount)
			scores := make([]int64, len(tc.counts))
			for i, n := range tc.counts {
				s, st := pl.ScorePlacement(context.Background(), framework.PodGroupNode(group), assign(n))
				if !st.IsSuccess() {
					t.Fatalf("ScorePlacement: %v", st)
				}
				scores[i] = s
			}
			st := pl.NormalizePlacementScores(context.Background(), framework.PodGroupNode(group), scores)
			if tc.wantErr {
				if st.IsSuccess() {
					t.Fatal("NormalizePlacementScores succeeded, want an error")
				}
				return
			}
			if diff := cmp.Diff(tc.want, scores); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}
