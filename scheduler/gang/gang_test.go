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

package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// idleLW is a ListerWatcher that is never run: the tests fill the store.
type idleLW struct{}

func (idleLW) List(metav1.ListOptions) (runtime.Object, error)   { return &v1alpha1.PodGroupList{}, nil }
func (idleLW) Watch(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil }

// newGroups returns Groups over the pods and PodGroups; assumed lists the
// UIDs the scheduler holds as assumed.
func newGroups(t *testing.T, pods []*v1.Pod, groups []*v1alpha1.PodGroup, assumed ...string) *Groups {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{MemberIndex: IndexMembers})
	for _, p := range pods {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	isAssumed := func(p *v1.Pod) bool {
		for _, uid := range assumed {
			if string(p.UID) == uid {
				return true
			}
		}
		return false
	}
	g := New(idx, isAssumed, WithSource(idleLW{}))
	for _, pg := range groups {
		if err := g.Informer().GetStore().Add(pg); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestMembers(t *testing.T) {
	pods := []*v1.Pod{
		st.Pod("a").Group("g").Obj(),
		st.Pod("b").Group("g").NodeName("n1").Obj(),
		st.Pod("gone").Group("g").Terminating(t0).Obj(),
		st.Pod("done").Group("g").Phase(v1.PodSucceeded).Obj(),
		st.Pod("failed").Group("g").Phase(v1.PodFailed).Obj(),
		st.Pod("elsewhere").Group("g").Namespace("other").Obj(),
		st.Pod("other-group").Group("h").Obj(),
		st.Pod("solo").Obj(),
	}
	g := newGroups(t, pods, nil, "a-uid")
	var names []string
	for _, p := range g.Members("default", "g") {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "a,b" && got != "b,a" {
		t.Errorf("Members = %v, want a and b", names)
	}
	for name, want := range map[string]bool{"a": true, "b": true, "other-group": false} {
		for _, p := range pods {
			if p.Name == name && g.IsPlaced(p) != want {
				t.Errorf("IsPlaced(%s) = %v, want %v", name, !want, want)
			}
		}
	}
}

func TestPodGroup(t *testing.T) {
	g := newGroups(t, nil, []*v1alpha1.PodGroup{st.PodGroup("g", 0).Created(t0).Obj()})
	if pg, err := g.PodGroup("default", "g"); err != nil || pg.Name != "g" {
		t.Errorf("PodGroup(g) = %v, %v", pg, err)
	}
	if _, err := g.PodGroup("default", "missing"); err == nil || err.Error() != "PodGroup default/missing does not exist" {
		t.Errorf("PodGroup(missing) error = %v", err)
	}
	unwatched := New(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{MemberIndex: IndexMembers}), func(*v1.Pod) bool { return false })
	if _, err := unwatched.PodGroup("default", "g"); err == nil || !strings.Contains(err.Error(), "does not watch PodGroups") {
		t.Errorf("PodGroup without a source: error = %v", err)
	}
}

func TestLess(t *testing.T) {
	g := newGroups(t, nil, []*v1alpha1.PodGroup{st.PodGroup("early", 0).Created(t0).Obj(), st.PodGroup("late", 0).Created(t0.Add(time.Hour)).Obj()})
	byTimestamp := func(a, b *framework.QueuedPodInfo) bool { return a.Timestamp.Before(b.Timestamp) }
	less := g.Less(byTimestamp)
	tests := []struct {
		name string
		a, b *framework.QueuedPodInfo
		want bool
	}{
		{name: "priority first", a: st.Pod("a").Priority(10).Group("late").Queued(t0.Add(2 * time.Hour)), b: st.Pod("b").Priority(1).Queued(t0), want: true},
		{name: "plain pods by queue time", a: st.Pod("a").Queued(t0), b: st.Pod("b").Queued(t0.Add(time.Second)), want: true},
		{name: "a member takes its group's creation time", a: st.Pod("a").Group("early").Queued(t0.Add(2 * time.Hour)), b: st.Pod("b").Queued(t0.Add(time.Minute)), want: true},
		{name: "an older group's members go first", a: st.Pod("a").Group("late").Queued(t0), b: st.Pod("b").Group("early").Queued(t0.Add(3 * time.Hour)), want: false},
		{name: "an unknown group sorts like a plain pod", a: st.Pod("a").Group("ghost").Queued(t0.Add(time.Minute)), b: st.Pod("b").Queued(t0), want: false},
		{name: "members of one group tie-break by the base order", a: st.Pod("a").Group("early").Queued(t0.Add(time.Second)), b: st.Pod("b").Group("early").Queued(t0), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := less(tt.a, tt.b); got != tt.want {
				t.Errorf("Less = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIndexMembers(t *testing.T) {
	tests := []struct {
		obj  any
		want []string
	}{
		{obj: st.Pod("a").Group("g").Obj(), want: []string{"default/g"}},
		{obj: st.Pod("a").Group("").Obj()},
		{obj: st.Pod("a").Obj()},
		{obj: st.PodGroup("g", 0).Created(t0).Obj()},
	}
	for _, tt := range tests {
		got, err := IndexMembers(tt.obj)
		if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("IndexMembers(%T) = %v, %v; want %v", tt.obj, got, err, tt.want)
		}
	}
}
