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

package explain_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/scheduler"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestExplainGroup(t *testing.T) {
	const rack = "topology.example.com/rack"
	nodes := []*v1.Node{
		readyNode("a-1", 4, 16).Label(rack, "a").Obj(), readyNode("a-2", 4, 16).Label(rack, "a").Obj(),
		readyNode("b-1", 4, 16).Label(rack, "b").Obj(),
	}
	member := func(name string) *v1.Pod {
		return pendingPod("ml", name, 3000, 512).SchedulingGroup("crew").Obj()
	}
	crew := st.WorkloadGroup("crew").Namespace("ml").Gang(3).Topology(rack).Obj()
	tests := []struct {
		name      string
		groups    []*schedulingv1beta1.PodGroup
		pods      []*v1.Pod
		want      explain.GroupReport
		wantTable []string
	}{
		{
			name:   "a gang too big for every rack: each rack says how far it got",
			groups: []*schedulingv1beta1.PodGroup{crew},
			pods:   []*v1.Pod{member("w-1"), member("w-2"), member("w-3")},
			want: explain.GroupReport{
				Group: "ml/crew", Profile: "default", Policy: "gang", MinCount: 3, TopologyKey: rack, Members: 3,
				Placements: []explain.GroupPlacement{
					{Name: "a", Nodes: 2, Placed: 2, Status: "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"},
					{Name: "b", Nodes: 1, Placed: 1, Status: "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"},
				},
				Status: "pod group is unschedulable, 0/2 placements are available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining",
			},
			wantTable: []string{
				"It belongs to PodGroup ml/crew (gang, minCount 3, in one topology.example.com/rack): 3 pods, 0 placed.",
				"The group fits nowhere: pod group is unschedulable, 0/2 placements",
			},
		},
		{
			name: "a gang whose PodGroup does not exist waits before any cycle",
			pods: []*v1.Pod{member("w-1")},
			want: explain.GroupReport{
				Group: "ml/crew", Profile: "default",
				Waiting: `waiting for pods's pod group "crew" to appear in scheduling queue`,
			},
			wantTable: []string{`It names PodGroup ml/crew, which the scheduler does not know; its members wait before any cycle: waiting for pods's pod group "crew" to appear in scheduling queue.`},
		},
		{
			name:   "a gang with fewer pods than minCount waits before any cycle",
			groups: []*schedulingv1beta1.PodGroup{crew},
			pods:   []*v1.Pod{member("w-1"), member("w-2")},
			want: explain.GroupReport{
				Group: "ml/crew", Profile: "default", Policy: "gang", MinCount: 3, TopologyKey: rack, Members: 2,
				Waiting: "waiting for minCount pods from a gang to appear in scheduling queue",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster{nodes: nodes, pods: tc.pods, profiles: []*v1alpha1.SchedulingProfile{defaultProfile}}
			e, kube := c.explainer(t)
			for _, pg := range tc.groups {
				if err := kube.Tracker().Add(pg); err != nil {
					t.Fatal(err)
				}
			}
			kube.Resources = []*metav1.APIResourceList{{
				GroupVersion: "scheduling.k8s.io/v1beta1", APIResources: []metav1.APIResource{{Name: "podgroups", Namespaced: true, Kind: "PodGroup"}},
			}}
			r, err := e.Explain(testContext(t), explain.Request{Namespace: "ml", Name: tc.pods[0].Name})
			if err != nil {
				t.Fatal(err)
			}
			if r.Group == nil {
				t.Fatal("no group in the report")
			}
			if got := *r.Group; !equalGroup(got, tc.want) {
				t.Errorf("group\n got %+v\nwant %+v", got, tc.want)
			}
			var b bytes.Buffer
			if err := r.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			for _, line := range tc.wantTable {
				if !strings.Contains(b.String(), line) {
					t.Errorf("the table lacks %q:\n%s", line, b.String())
				}
			}
		})
	}
}

// TestExplainGroupInAHierarchy checks that the report of a PodGroup under a
// CompositePodGroup names the hierarchy's root, which it does not explain.
func TestExplainGroupInAHierarchy(t *testing.T) {
	pod := pendingPod("ml", "w-1", 1000, 512).SchedulingGroup("crew").Obj()
	c := cluster{nodes: []*v1.Node{readyNode("n1", 4, 16).Obj()}, pods: []*v1.Pod{pod}, profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		opts: []explain.Option{explain.WithSchedulerOptions(scheduler.WithCompositePodGroups(true))}}
	e, kube := c.explainer(t)
	crew := st.WorkloadGroup("crew").Namespace("ml").Parent("training").Obj()
	training := st.CompositeGroup("training").Obj()
	training.Namespace = "ml"
	for _, o := range []apiruntime.Object{crew, training} {
		if err := kube.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	kube.Resources = []*metav1.APIResourceList{{
		GroupVersion: "scheduling.k8s.io/v1beta1", APIResources: []metav1.APIResource{{Name: "podgroups", Namespaced: true, Kind: "PodGroup"}},
	}, {
		GroupVersion: "scheduling.k8s.io/v1alpha3", APIResources: []metav1.APIResource{{Name: "compositepodgroups", Namespaced: true, Kind: "CompositePodGroup"}},
	}}
	r, err := e.Explain(testContext(t), explain.Request{Namespace: "ml", Name: pod.Name})
	if err != nil {
		t.Fatal(err)
	}
	if r.Group == nil || r.Group.CompositeRoot != "ml/training" {
		t.Fatalf("group %+v, want the root ml/training named", r.Group)
	}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if want := "It is part of the hierarchy of CompositePodGroup ml/training"; !strings.Contains(b.String(), want) {
		t.Errorf("the table lacks %q:\n%s", want, b.String())
	}
}

func equalGroup(a, b explain.GroupReport) bool {
	return reflect.DeepEqual(a, b)
}
