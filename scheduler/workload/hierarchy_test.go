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

package workload

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// hierarchyRig returns Groups that follow parents, over the given objects.
func hierarchyRig(t *testing.T, composite bool, pgs []*schedulingv1beta1.PodGroup, cpgs []*schedulingv1alpha3.CompositePodGroup) *Groups {
	t.Helper()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	opts := []Option{WithInformerFactory(factory)}
	if composite {
		opts = append(opts, WithCompositeInformerFactory(factory))
	}
	g := New(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{MemberIndex: IndexMembers}), nil, opts...)
	for _, pg := range pgs {
		if err := g.native.GetIndexer().Add(pg); err != nil {
			t.Fatal(err)
		}
	}
	for _, cpg := range cpgs {
		if err := factory.Scheduling().V1alpha3().CompositePodGroups().Informer().GetIndexer().Add(cpg); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// shape renders a tree as kind/name with children in brackets.
func shape(n *framework.GroupNode) string {
	if n.IsLeaf() {
		return n.Key.Name
	}
	var kids []string
	for _, c := range n.Children {
		kids = append(kids, shape(c))
	}
	return n.Key.Name + "[" + strings.Join(kids, " ") + "]"
}

func TestHierarchy(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	pg := func(name string) *st.WorkloadGroupBuilder { return st.WorkloadGroup(name).Created(t0) }
	cpg := func(name string) *st.CompositeGroupBuilder { return st.CompositeGroup(name).Created(t0) }
	chain := func(levels int) []*schedulingv1alpha3.CompositePodGroup {
		var out []*schedulingv1alpha3.CompositePodGroup
		for i := 1; i <= levels; i++ {
			b := cpg(fmt.Sprintf("c%d", i))
			if i < levels {
				b.Parent(fmt.Sprintf("c%d", i+1))
			}
			out = append(out, b.Obj())
		}
		return out
	}
	tests := []struct {
		name      string
		composite bool
		pgs       []*schedulingv1beta1.PodGroup
		cpgs      []*schedulingv1alpha3.CompositePodGroup
		of        string
		want      string
		// wantHierarchyErr is the HierarchyError's reason; "" for none.
		wantHierarchyErr string
		wantOtherErr     bool
		// wantRoot is RootOf's answer for the PodGroup; "" for none.
		wantRoot string
	}{
		{name: "a PodGroup without parent is its own root", composite: true, pgs: []*schedulingv1beta1.PodGroup{pg("a").Obj()}, of: "a", want: "a", wantRoot: "podgroup/default/a"},
		{
			name: "not hierarchical: the parent is ignored",
			pgs:  []*schedulingv1beta1.PodGroup{pg("a").Parent("missing").Obj()},
			of:   "a", want: "a", wantRoot: "podgroup/default/a",
		},
		{
			name:      "children in creation order, then by name, PodGroups and composites alike",
			composite: true,
			pgs: []*schedulingv1beta1.PodGroup{
				pg("b").Parent("root").Obj(),
				pg("a").Parent("root").Created(t0.Add(time.Second)).Obj(),
				pg("x").Parent("mid").Obj(),
				pg("lone").Obj(),
			},
			cpgs: []*schedulingv1alpha3.CompositePodGroup{cpg("root").Obj(), cpg("mid").Parent("root").Obj()},
			of:   "x", want: "root[b mid[x] a]", wantRoot: "compositepodgroup/default/root",
		},
		{
			name:             "a parent that does not exist leaves it unresolved",
			composite:        true,
			pgs:              []*schedulingv1beta1.PodGroup{pg("a").Parent("mid").Obj()},
			cpgs:             []*schedulingv1alpha3.CompositePodGroup{cpg("mid").Parent("root").Obj()},
			of:               "a",
			wantHierarchyErr: "failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/default/root",
		},
		{
			name:             "a cycle leaves it unresolved",
			composite:        true,
			pgs:              []*schedulingv1beta1.PodGroup{pg("a").Parent("x").Obj()},
			cpgs:             []*schedulingv1alpha3.CompositePodGroup{cpg("x").Parent("y").Obj(), cpg("y").Parent("x").Obj()},
			of:               "a",
			wantHierarchyErr: "cycle detected in composite pod group hierarchy: compositepodgroup/default/x",
		},
		{
			name:      "four levels of composites resolve",
			composite: true,
			pgs:       []*schedulingv1beta1.PodGroup{pg("a").Parent("c1").Obj()},
			cpgs:      chain(4),
			of:        "a", want: "c4[c3[c2[c1[a]]]]", wantRoot: "compositepodgroup/default/c4",
		},
		{
			name:      "five levels are more than kube-scheduler follows",
			composite: true,
			pgs:       []*schedulingv1beta1.PodGroup{pg("a").Parent("c1").Obj()},
			cpgs:      chain(5),
			of:        "a", wantRoot: "compositepodgroup/default/c5",
			wantHierarchyErr: "failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/default/c1",
		},
		{name: "an unknown PodGroup is another error", composite: true, of: "nosuch", wantOtherErr: true},
		{
			name:      "other namespaces stay apart",
			composite: true,
			pgs:       []*schedulingv1beta1.PodGroup{pg("a").Parent("root").Obj(), pg("b").Parent("root").Namespace("other").Obj()},
			cpgs:      []*schedulingv1alpha3.CompositePodGroup{cpg("root").Obj()},
			of:        "a", want: "root[a]", wantRoot: "compositepodgroup/default/root",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := hierarchyRig(t, tt.composite, tt.pgs, tt.cpgs)
			if g.Hierarchical() != tt.composite {
				t.Errorf("Hierarchical() = %v, want %v", g.Hierarchical(), tt.composite)
			}
			gotRoot := ""
			if key, ok := g.RootOf(framework.GroupKey{Kind: framework.PodGroupKind, Namespace: "default", Name: tt.of}); ok {
				gotRoot = key.String()
			}
			if gotRoot != tt.wantRoot {
				t.Errorf("RootOf() = %q, want %q", gotRoot, tt.wantRoot)
			}
			root, err := g.Hierarchy(framework.GroupRef{Namespace: "default", Name: tt.of})
			var herr *framework.HierarchyError
			switch {
			case tt.wantHierarchyErr != "":
				if !errors.As(err, &herr) || herr.Reason != tt.wantHierarchyErr {
					t.Fatalf("err = %v, want HierarchyError %q", err, tt.wantHierarchyErr)
				}
				return
			case tt.wantOtherErr:
				if err == nil || errors.As(err, &herr) {
					t.Fatalf("err = %v, want an error that is no HierarchyError", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, shape(root)); diff != "" {
				t.Errorf("tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHierarchyBerthGroupsHaveNoParent(t *testing.T) {
	g := hierarchyRig(t, true, nil, nil)
	if _, err := g.Hierarchy(framework.GroupRef{Namespace: "default", Name: "crew", Berth: true}); err == nil {
		t.Error("a Berth group that is not watched: want an error")
	}
}

func TestCompositeServed(t *testing.T) {
	list := func(gv string, names ...string) *metav1.APIResourceList {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
		}
		return l
	}
	tests := []struct {
		name      string
		resources []*metav1.APIResourceList
		want      bool
	}{
		{name: "served with the gate on", resources: []*metav1.APIResourceList{list("scheduling.k8s.io/v1alpha3", "compositepodgroups", "podgroups")}, want: true},
		{name: "v1alpha3 without CompositePodGroups", resources: []*metav1.APIResourceList{list("scheduling.k8s.io/v1alpha3", "podgroups")}},
		{name: "only v1beta1", resources: []*metav1.APIResourceList{list("scheduling.k8s.io/v1beta1", "podgroups", "workloads")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			client.Resources = tt.resources
			got, err := CompositeServed(client.Discovery())
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("served = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGroupNode(t *testing.T) {
	tests := []struct {
		name         string
		node         *framework.GroupNode
		wantMin      int
		wantKey      string
		wantPriority int32
	}{
		{name: "basic PodGroup", node: framework.PodGroupNode(st.WorkloadGroup("a").Obj()), wantMin: 1},
		{name: "gang PodGroup", node: framework.PodGroupNode(st.WorkloadGroup("a").Gang(3).Topology("rack").Priority(7).Obj()), wantMin: 3, wantKey: "rack", wantPriority: 7},
		{name: "basic composite", node: framework.CompositeNode(st.CompositeGroup("c").Obj(), nil), wantMin: 1},
		{name: "gang composite", node: framework.CompositeNode(st.CompositeGroup("c").Gang(2).Topology("zone").Priority(1000).Obj(), nil), wantMin: 2, wantKey: "zone", wantPriority: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.node.MinCount(); got != tt.wantMin {
				t.Errorf("MinCount() = %d, want %d", got, tt.wantMin)
			}
			if got, _ := tt.node.TopologyKey(); got != tt.wantKey {
				t.Errorf("TopologyKey() = %q, want %q", got, tt.wantKey)
			}
			if got := tt.node.Priority(); got != tt.wantPriority {
				t.Errorf("Priority() = %d, want %d", got, tt.wantPriority)
			}
		})
	}
}

func TestAncestors(t *testing.T) {
	chain := func(levels int) []*schedulingv1alpha3.CompositePodGroup {
		var out []*schedulingv1alpha3.CompositePodGroup
		for i := 1; i <= levels; i++ {
			b := st.CompositeGroup(fmt.Sprintf("c%d", i))
			if i < levels {
				b.Parent(fmt.Sprintf("c%d", i+1))
			}
			out = append(out, b.Obj())
		}
		return out
	}
	tests := []struct {
		name      string
		composite bool
		pg        *schedulingv1beta1.PodGroup
		cpgs      []*schedulingv1alpha3.CompositePodGroup
		want      []string
	}{
		{name: "no parent", composite: true, pg: st.WorkloadGroup("a").Obj(), want: []string{"a"}},
		{name: "not hierarchical", pg: st.WorkloadGroup("a").Parent("c1").Obj(), cpgs: chain(2), want: []string{"a"}},
		{name: "up to the root", composite: true, pg: st.WorkloadGroup("a").Parent("c1").Obj(), cpgs: chain(2), want: []string{"a", "c1", "c2"}},
		{name: "at most four nodes", composite: true, pg: st.WorkloadGroup("a").Parent("c1").Obj(), cpgs: chain(5), want: []string{"a", "c1", "c2", "c3"}},
		{name: "a missing parent ends the walk", composite: true, pg: st.WorkloadGroup("a").Parent("c1").Obj(), cpgs: chain(1)[:0], want: []string{"a"}},
		{
			name: "a cycle ends the walk", composite: true, pg: st.WorkloadGroup("a").Parent("x").Obj(),
			cpgs: []*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("x").Parent("y").Obj(), st.CompositeGroup("y").Parent("x").Obj()},
			want: []string{"a", "x", "y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := hierarchyRig(t, tt.composite, []*schedulingv1beta1.PodGroup{tt.pg}, tt.cpgs)
			var got []string
			for _, n := range g.Ancestors(framework.RefOf(tt.pg)) {
				got = append(got, n.Key.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Ancestors = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnreadVersions(t *testing.T) {
	list := func(gv string, names ...string) *metav1.APIResourceList {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
		}
		return l
	}
	tests := []struct {
		name      string
		resources []*metav1.APIResourceList
		want      []string
	}{
		{name: "PodGroups GA as v1 only", resources: []*metav1.APIResourceList{list("scheduling.k8s.io/v1", "priorityclasses", "podgroups")}, want: []string{"scheduling.k8s.io/v1"}},
		{name: "no PodGroups at all", resources: []*metav1.APIResourceList{list("scheduling.k8s.io/v1", "priorityclasses")}},
		{name: "v1beta1 served too is not counted", resources: []*metav1.APIResourceList{list("scheduling.k8s.io/v1beta1", "podgroups"), list("scheduling.k8s.io/v1", "podgroups")}, want: []string{"scheduling.k8s.io/v1"}},
		{name: "another group's podgroups", resources: []*metav1.APIResourceList{list("scheduling.x-k8s.io/v1alpha1", "podgroups")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			client.Resources = tt.resources
			got, err := UnreadVersions(client.Discovery())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("unread = %v, want %v", got, tt.want)
			}
		})
	}
}
