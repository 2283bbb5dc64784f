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

package scheduler

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestGangOfAHierarchy checks what the rebalancer learns of a member of a
// PodGroup under CompositePodGroups: the CompositePodGroups above it when
// one keeps its subtree whole, and nothing for a basic PodGroup under
// basic ones.
func TestGangOfAHierarchy(t *testing.T) {
	bound := func(pods []*v1.Pod) []*v1.Pod {
		for _, p := range pods {
			p.Spec.NodeName = "n0"
		}
		return pods
	}
	// wantComposite is a CompositePodGroup expected above b.
	type wantComposite struct {
		name          string
		minGroupCount int
		whole         bool
		children      int
	}
	tests := []struct {
		name string
		cpgs []*schedulingv1alpha3.CompositePodGroup
		// b is the PodGroup asked about, basic; a, its sibling, a gang of 2.
		parentOfB string
		wantGang  bool
		// wantAbove are the CompositePodGroups above b, nearest first, with
		// their minGroupCount and whether they go whole.
		wantAbove []wantComposite
	}{
		{
			name:      "a basic PodGroup under a basic CompositePodGroup is no gang",
			cpgs:      []*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj()},
			parentOfB: "root",
		},
		{
			name:      "a basic PodGroup under a gang of PodGroups is in a gang",
			cpgs:      []*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Gang(2).Obj()},
			parentOfB: "root", wantGang: true,
			wantAbove: []wantComposite{{"compositepodgroup.scheduling.k8s.io/default/root", 2, false, 2}},
		},
		{
			name: "a PodGroup under a basic CompositePodGroup under one whose disruption mode is All",
			cpgs: []*schedulingv1alpha3.CompositePodGroup{
				st.CompositeGroup("root").DisruptAll().Obj(), st.CompositeGroup("mid").Parent("root").Obj(),
			},
			parentOfB: "mid", wantGang: true,
			wantAbove: []wantComposite{
				{"compositepodgroup.scheduling.k8s.io/default/mid", 0, false, 1},
				{"compositepodgroup.scheduling.k8s.io/default/root", 0, true, 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHierarchyHarness(t, slots(4))
			a, b := bound(members("a", 2, "1")), bound(members("b", 1, "1"))
			h.add(tt.cpgs, []*schedulingv1beta1.PodGroup{child("a", "root", 2), child("b", tt.parentOfB, 0)}, concat(a, b))
			gang, ok := h.s.GangOf(b[0])
			if ok != tt.wantGang {
				t.Fatalf("GangOf(b-0) in a gang = %v, want %v", ok, tt.wantGang)
			}
			if !ok {
				return
			}
			if gang.Name != "podgroup.scheduling.k8s.io/default/b" || len(gang.Bound) != 1 || gang.MinCount != 1 {
				t.Errorf("gang %s with %d bound, minCount %d; want b with 1 bound, minCount 1", gang.Name, len(gang.Bound), gang.MinCount)
			}
			c := gang.Parent
			for _, want := range tt.wantAbove {
				if c == nil {
					t.Fatalf("no CompositePodGroup above where %s should be", want.name)
				}
				if c.Name != want.name || c.MinGroupCount != want.minGroupCount || c.Whole != want.whole || len(c.Children) != want.children {
					t.Errorf("above: %s minGroupCount %d whole %v with %d children; want %+v", c.Name, c.MinGroupCount, c.Whole, len(c.Children), want)
				}
				c = c.Parent
			}
			if c != nil {
				t.Errorf("%s above the last one expected", c.Name)
			}
		})
	}
}
