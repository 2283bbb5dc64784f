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
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestFromBerth(t *testing.T) {
	gang := func(n int32) schedulingv1beta1.PodGroupSchedulingPolicy {
		return schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: n}}
	}
	tests := []struct {
		name string
		in   *v1alpha1.PodGroup
		want schedulingv1beta1.PodGroupSpec
	}{
		{name: "gang", in: st.PodGroup("g", 4).Obj(), want: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: gang(4)}},
		{
			name: "basic",
			in:   st.PodGroup("g", 4).Basic().Obj(),
			want: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}},
		},
		{name: "the deprecated minMember is a gang's minCount", in: st.PodGroup("g", 0).MinMember(3).Obj(), want: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: gang(3)}},
		{
			name: "topology and disruption mode",
			in:   st.PodGroup("g", 2).Topology("rack").DisruptAll().Obj(),
			want: schedulingv1beta1.PodGroupSpec{
				SchedulingPolicy:      gang(2),
				SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "rack"}}},
				DisruptionMode:        &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromBerth(tt.in)
			if diff := cmp.Diff(tt.want, got.Spec); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if ref := framework.RefOf(got); !ref.Berth || ref.Name != tt.in.Name || ref.Namespace != tt.in.Namespace {
				t.Errorf("RefOf(FromBerth()) = %+v, want Berth's %s/%s", ref, tt.in.Namespace, tt.in.Name)
			}
			if got.UID != tt.in.UID || got.Generation != tt.in.Generation {
				t.Errorf("uid, generation = %s, %d; want %s, %d", got.UID, got.Generation, tt.in.UID, tt.in.Generation)
			}
		})
	}
}

func TestFromBerthObjectKeepsTheTimeout(t *testing.T) {
	pg := st.PodGroup("g", 2).ScheduleTimeout(45).Obj()
	out, err := fromBerthObject(pg)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*schedulingv1beta1.PodGroup).Annotations[framework.PermitTimeoutAnnotation]; got != "45" {
		t.Errorf("timeout annotation = %q, want 45", got)
	}
}

// TestGroupsKeepsTheKindsApart checks that members and groups of the two
// kinds with one name stay apart.
func TestGroupsKeepsTheKindsApart(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{MemberIndex: IndexMembers})
	native := st.Pod("native").SchedulingGroup("crew").Obj()
	labelled := st.Pod("labelled").Group("crew").Obj()
	both := st.Pod("both").SchedulingGroup("crew").Group("crew").Obj()
	done := st.Pod("done").Group("crew").Phase(v1.PodSucceeded).Obj()
	for _, p := range []*v1.Pod{native, labelled, both, done, st.Pod("solo").Obj()} {
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	g := New(pods, func(*v1.Pod) string { return "" })
	names := func(ps []*v1.Pod) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	nativeRef := framework.GroupRef{Namespace: "default", Name: "crew"}
	berthRef := framework.GroupRef{Namespace: "default", Name: "crew", Berth: true}
	if diff := cmp.Diff([]string{"both", "native"}, slices.Sorted(slices.Values(names(g.Members(nativeRef))))); diff != "" {
		t.Errorf("native members (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"labelled"}, names(g.Members(berthRef))); diff != "" {
		t.Errorf("Berth members (-want +got):\n%s", diff)
	}
	if g.Serves(nativeRef) || g.Serves(berthRef) {
		t.Error("Groups without sources serve nothing")
	}
	if _, err := g.PodGroup(berthRef); err == nil {
		t.Error("PodGroup of an unwatched kind: want an error")
	}
}

// TestBerthGroupPriority checks that one of Berth's PodGroups gets the
// priority admission would give a native one.
func TestBerthGroupPriority(t *testing.T) {
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	dflt := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Value: 10, GlobalDefault: true}
	tests := []struct {
		name    string
		classes []*schedulingv1.PriorityClass
		class   string
		want    int32
	}{
		{name: "its class's value", classes: []*schedulingv1.PriorityClass{high, dflt}, class: "high", want: 1000},
		{name: "no class: the global default's", classes: []*schedulingv1.PriorityClass{high, dflt}, want: 10},
		{name: "no class and no global default: 0", classes: []*schedulingv1.PriorityClass{high}, want: 0},
		{name: "a class that does not exist: 0", classes: []*schedulingv1.PriorityClass{dflt}, class: "missing", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			factory := informers.NewSharedInformerFactory(client, 0)
			store := factory.Scheduling().V1().PriorityClasses().Informer().GetStore()
			for _, pc := range tt.classes {
				if err := store.Add(pc); err != nil {
					t.Fatal(err)
				}
			}
			g := New(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{MemberIndex: IndexMembers}), nil, WithPriorityClasses(factory))
			pg := st.PodGroup("crew", 2).Obj()
			pg.Spec.PriorityClassName = tt.class
			stored := FromBerth(pg)
			got := g.withPriority(stored)
			if got.Spec.Priority == nil || *got.Spec.Priority != tt.want {
				t.Errorf("priority = %v, want %d", got.Spec.Priority, tt.want)
			}
			if stored.Spec.Priority != nil {
				t.Error("the stored PodGroup was changed")
			}
		})
	}
}
