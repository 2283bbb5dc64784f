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

package topologyplacement

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const rack = "topology.example.com/rack"

func TestGeneratePlacements(t *testing.T) {
	nodes := []*v1.Node{
		st.Node("a1").Label(rack, "a").Obj(), st.Node("b1").Label(rack, "b").Obj(),
		st.Node("a2").Label(rack, "a").Obj(), st.Node("bare").Obj(),
	}
	infos := st.NodeInfos(nodes)
	parent := &framework.Placement{Nodes: infos}
	inRack := st.WorkloadGroup("crew").Gang(2).Topology(rack).Obj()
	tests := []struct {
		name    string
		group   *schedulingv1beta1.PodGroup
		pods    []*v1.Pod
		assumed map[string]string
		want    map[string][]string // placement name → node names
		wantErr string
	}{
		{name: "no constraint: the parent placement", group: st.WorkloadGroup("crew").Gang(2).Obj(), want: map[string][]string{"": {"a1", "b1", "a2", "bare"}}},
		{name: "one placement per domain; unlabelled nodes in none", group: inRack, want: map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}}},
		{
			name: "a bound member fixes the domain", group: inRack,
			pods: []*v1.Pod{st.Pod("m0").SchedulingGroup("crew").NodeName("b1").Obj()},
			want: map[string][]string{"b": {"b1"}},
		},
		{
			name: "an assumed member fixes the domain", group: inRack,
			pods: []*v1.Pod{st.Pod("m0").SchedulingGroup("crew").Obj()}, assumed: map[string]string{"m0": "a2"},
			want: map[string][]string{"a": {"a1", "a2"}},
		},
		{
			name: "members in two domains are an error", group: inRack,
			pods:    []*v1.Pod{st.Pod("m0").SchedulingGroup("crew").NodeName("a1").Obj(), st.Pod("m1").SchedulingGroup("crew").NodeName("b1").Obj()},
			wantErr: "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: a, b",
		},
		{
			name: "a member on a node without the label is an error", group: inRack,
			pods:    []*v1.Pod{st.Pod("m0").SchedulingGroup("crew").NodeName("bare").Obj()},
			wantErr: "cannot determine domain for already scheduled pods: no topology domain found for pod default/m0",
		},
		{name: "a key no node carries: no placement", group: st.WorkloadGroup("crew").Topology("example.com/none").Obj(), want: map[string][]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &st.Handle{Snapshot: st.NewLister(infos...), Native: &st.Workloads{Groups: []*schedulingv1beta1.PodGroup{tc.group}, Pods: tc.pods, Assumed: tc.assumed}}
			p, err := New(context.Background(), nil, h)
			if err != nil {
				t.Fatal(err)
			}
			placements, status := p.(*TopologyPlacement).GeneratePlacements(context.Background(), framework.PodGroupNode(tc.group), parent)
			if tc.wantErr != "" {
				if status.Code() != framework.Error || status.Message() != tc.wantErr {
					t.Fatalf("status = %v, want Error %q", status, tc.wantErr)
				}
				return
			}
			if !status.IsSuccess() {
				t.Fatalf("status = %v", status)
			}
			got := map[string][]string{}
			for _, pl := range placements {
				got[pl.Name] = nil
				for _, ni := range pl.Nodes {
					got[pl.Name] = append(got[pl.Name], ni.Node().Name)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
