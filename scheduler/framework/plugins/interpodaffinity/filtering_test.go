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

package interpodaffinity

import (
	"context"
	"slices"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// standardNodes: n1 and n2 share zone z1, n3 is alone in z2, n4 has no zone.
func standardNodes() []*v1.Node {
	return []*v1.Node{node("n1", zoneKey, "z1"), node("n2", zoneKey, "z1"), node("n3", zoneKey, "z2"), node("n4")}
}

var (
	affinityFail = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	antiFail     = framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	existingFail = framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
)

// filterAll runs Filter over every node and returns the non-success statuses by node name.
func filterAll(t *testing.T, pl *InterPodAffinity, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) map[string]*framework.Status {
	t.Helper()
	got := map[string]*framework.Status{}
	for _, ni := range nodes {
		if st := pl.Filter(context.Background(), state, pod, ni); !st.IsSuccess() {
			got[ni.Node().Name] = st
		}
	}
	return got
}

func assertStatuses(t *testing.T, got, want map[string]*framework.Status) {
	t.Helper()
	for name, w := range want {
		if g := got[name]; g.Code() != w.Code() || !slices.Equal(g.Reasons(), w.Reasons()) {
			t.Errorf("node %s: got %v %q, want %v %q", name, g.Code(), g.Reasons(), w.Code(), w.Reasons())
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("node %s: got %v %q, want Success", name, g.Code(), g.Reasons())
		}
	}
}

func TestFilter(t *testing.T) {
	nss := []*v1.Namespace{namespace("default"), namespace("other"), namespace("team-a", "team", "a"),
		namespace("team-b", "team", "b"), namespace("prod", "env", "prod")}
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing []*v1.Pod
		nodes    []*v1.Node // standardNodes when nil
		skip     bool
		want     map[string]*framework.Status
	}{
		{
			name:     "no terms and no existing anti-affinity: skip",
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e", "app", "web").on("n1").obj()},
			skip:     true,
		},
		{
			name: "existing anti-affinity that does not select the pod: skip",
			pod:  makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{
				makePod("e").on("n1").anti(sel(zoneKey, "app", "db")).obj(),
			},
			skip: true,
		},
		{
			name:     "affinity satisfied in the matching pod's zone only",
			pod:      makePod("p").affinity(sel(zoneKey, "app", "web")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "web").on("n1").obj()},
			want:     map[string]*framework.Status{"n3": affinityFail, "n4": affinityFail},
		},
		{
			name:     "affinity nowhere satisfied and the pod does not match itself",
			pod:      makePod("p").affinity(sel(zoneKey, "app", "web")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "db").on("n1").obj()},
			want:     map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "first pod of a self-affine group goes to any node with the topology key",
			pod:  makePod("p", "app", "web").affinity(sel(zoneKey, "app", "web")).obj(),
			want: map[string]*framework.Status{"n4": affinityFail},
		},
		{
			name:     "self-affine pod must join the existing group's zone",
			pod:      makePod("p", "app", "web").affinity(sel(zoneKey, "app", "web")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "web").on("n3").obj()},
			want:     map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
		},
		{
			name: "all affinity terms must be met by one pod",
			pod:  makePod("p").affinity(sel(zoneKey, "app", "web")).affinity(sel(hostKey, "tier", "fe")).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web", "tier", "fe").on("n1").obj(),
				makePod("e2", "tier", "fe").on("n3").obj(),
			},
			want: map[string]*framework.Status{"n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "no single pod meets all terms",
			pod:  makePod("p").affinity(sel(zoneKey, "app", "web")).affinity(sel(hostKey, "tier", "fe")).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web").on("n1").obj(),
				makePod("e2", "tier", "fe").on("n1").obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name:     "anti-affinity by hostname rejects only the node with the pod",
			pod:      makePod("p").anti(sel(hostKey, "app", "db")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "db").on("n1").obj()},
			want:     map[string]*framework.Status{"n1": antiFail},
		},
		{
			name:     "anti-affinity by zone rejects the zone; a node without the key is fine",
			pod:      makePod("p").anti(sel(zoneKey, "app", "db")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "db").on("n1").obj()},
			want:     map[string]*framework.Status{"n1": antiFail, "n2": antiFail},
		},
		{
			name:     "existing pod's anti-affinity rejects the pod in its zone",
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e").on("n3").anti(sel(zoneKey, "app", "web")).obj()},
			want:     map[string]*framework.Status{"n3": existingFail},
		},
		{
			name:     "existing pod's anti-affinity on a key the node lacks",
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e").on("n4").anti(sel(zoneKey, "app", "web")).obj()},
			skip:     true,
		},
		{
			name: "affinity is checked before anti-affinity",
			pod:  makePod("p").affinity(sel(zoneKey, "app", "web")).anti(sel(hostKey, "app", "web")).obj(),
			existing: []*v1.Pod{
				makePod("e", "app", "web").on("n1").obj(),
			},
			want: map[string]*framework.Status{"n1": antiFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "terms select pods in the pod's namespace by default",
			pod:  makePod("p").affinity(sel(zoneKey, "app", "web")).obj(),
			existing: []*v1.Pod{
				makePod("e", "app", "web").ns("other").on("n1").obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "terms with namespaces select pods there only",
			pod:  makePod("p").affinity(sel(zoneKey, "app", "web").in("other")).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web").on("n1").obj(),
				makePod("e2", "app", "web").ns("other").on("n3").obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
		},
		{
			name: "namespace selector picks namespaces by label",
			pod:  makePod("p").anti(sel(zoneKey, "app", "web").nsSel("team", "a")).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web").ns("team-b").on("n1").obj(),
				makePod("e2", "app", "web").ns("team-a").on("n3").obj(),
			},
			want: map[string]*framework.Status{"n3": antiFail},
		},
		{
			name: "empty namespace selector picks every namespace",
			pod:  makePod("p").anti(sel(zoneKey, "app", "web").nsSel()).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web").ns("team-b").on("n1").obj(),
				makePod("e2", "app", "web").ns("other").on("n3").obj(),
			},
			want: map[string]*framework.Status{"n1": antiFail, "n2": antiFail, "n3": antiFail},
		},
		{
			name: "existing pod's anti-affinity selects the pod's namespace by its labels",
			pod:  makePod("p", "app", "web").ns("prod").obj(),
			existing: []*v1.Pod{
				makePod("e").on("n1").anti(sel(hostKey, "app", "web").nsSel("env", "prod")).obj(),
			},
			want: map[string]*framework.Status{"n1": existingFail},
		},
		{
			name: "existing pod's namespace selector does not match the pod's namespace",
			pod:  makePod("p", "app", "web").ns("other").obj(),
			existing: []*v1.Pod{
				makePod("e").on("n1").anti(sel(hostKey, "app", "web").nsSel("env", "prod")).obj(),
			},
			skip: true,
		},
		{
			name: "matchLabelKeys narrows the selector to the pod's own label value",
			pod:  makePod("p", "ver", "v2").affinity(sel(zoneKey, "app", "web").matchKeys("ver")).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web", "ver", "v1").on("n1").obj(),
				makePod("e2", "app", "web", "ver", "v2").on("n3").obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
		},
		{
			name:  "node without any labels",
			pod:   makePod("p", "app", "web").affinity(sel(hostKey, "app", "web")).anti(sel(zoneKey, "app", "db")).obj(),
			nodes: []*v1.Node{bareNode("bare"), node("n1", zoneKey, "z1")},
			want:  map[string]*framework.Status{"bare": affinityFail},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = standardNodes()
			}
			infos := cluster(nodes, tt.existing...)
			pl := newPlugin(t, "", newHandle(t, serial{}, infos, nss...))
			state := framework.NewCycleState()
			_, st := pl.PreFilter(context.Background(), state, tt.pod, infos)
			if tt.skip {
				if !st.IsSkip() {
					t.Fatalf("PreFilter: got %v, want Skip", st)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			assertStatuses(t, filterAll(t, pl, state, tt.pod, infos), tt.want)
		})
	}
}

func TestFilterWithoutPreFilterState(t *testing.T) {
	infos := cluster(standardNodes())
	pl := newPlugin(t, "", newHandle(t, serial{}, infos))
	st := pl.Filter(context.Background(), framework.NewCycleState(), makePod("p").obj(), infos[0])
	if st.Code() != framework.Error {
		t.Fatalf("got %v, want Error", st)
	}
}

func TestPreFilterInvalidSelector(t *testing.T) {
	infos := cluster(standardNodes())
	pl := newPlugin(t, "", newHandle(t, serial{}, infos))
	bad := sel(zoneKey)
	bad.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}
	_, st := pl.PreFilter(context.Background(), framework.NewCycleState(), makePod("p").affinity(bad).obj(), infos)
	if st.Code() != framework.UnschedulableAndUnresolvable {
		t.Fatalf("got %v, want UnschedulableAndUnresolvable", st)
	}
}

func TestAddRemovePod(t *testing.T) {
	type step struct {
		add  bool
		pod  *v1.Pod
		node string
		want map[string]*framework.Status
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing []*v1.Pod
		initial  map[string]*framework.Status
		steps    []step
	}{
		{
			name:    "a nominated pod the anti-affinity selects",
			pod:     makePod("p").anti(sel(hostKey, "app", "db")).obj(),
			initial: map[string]*framework.Status{},
			steps: []step{
				{add: true, pod: makePod("db", "app", "db").obj(), node: "n1", want: map[string]*framework.Status{"n1": antiFail}},
				{add: false, pod: makePod("db", "app", "db").obj(), node: "n1", want: map[string]*framework.Status{}},
			},
		},
		{
			name:     "removing the only matching pod lets a self-affine pod start anywhere",
			pod:      makePod("p", "app", "web").affinity(sel(zoneKey, "app", "web")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "web").on("n3").obj()},
			initial:  map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
			steps: []step{
				{pod: makePod("e", "app", "web").obj(), node: "n3", want: map[string]*framework.Status{"n4": affinityFail}},
				{add: true, pod: makePod("f", "app", "web").obj(), node: "n1", want: map[string]*framework.Status{"n3": affinityFail, "n4": affinityFail}},
			},
		},
		{
			name:    "an added pod with anti-affinity to the pod",
			pod:     makePod("p", "app", "web").anti(sel(hostKey, "app", "none")).obj(),
			initial: map[string]*framework.Status{},
			steps: []step{
				{add: true, pod: makePod("x").anti(sel(zoneKey, "app", "web")).obj(), node: "n2", want: map[string]*framework.Status{"n1": existingFail, "n2": existingFail}},
				{pod: makePod("x").anti(sel(zoneKey, "app", "web")).obj(), node: "n2", want: map[string]*framework.Status{}},
			},
		},
		{
			name:    "an added pod whose anti-affinity selects the pod's namespace by label",
			pod:     makePod("p", "app", "web").ns("prod").anti(sel(hostKey, "app", "none")).obj(),
			initial: map[string]*framework.Status{},
			steps: []step{
				{add: true, pod: makePod("x").anti(sel(hostKey, "app", "web").nsSel("env", "prod")).obj(), node: "n3", want: map[string]*framework.Status{"n3": existingFail}},
				{add: true, pod: makePod("y").anti(sel(hostKey, "app", "web").nsSel("env", "dev")).obj(), node: "n1", want: map[string]*framework.Status{"n3": existingFail}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			infos := cluster(standardNodes(), tt.existing...)
			h := newHandle(t, serial{}, infos, namespace("default"), namespace("prod", "env", "prod"))
			pl := newPlugin(t, "", h)
			state := framework.NewCycleState()
			if _, st := pl.PreFilter(context.Background(), state, tt.pod, infos); !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			assertStatuses(t, filterAll(t, pl, state, tt.pod, infos), tt.initial)
			for i, s := range tt.steps {
				before := state.Clone()
				ni := h.snapshot.node(s.node)
				var st *framework.Status
				if s.add {
					st = pl.AddPod(context.Background(), state, tt.pod, info(s.pod), ni)
				} else {
					st = pl.RemovePod(context.Background(), state, tt.pod, info(s.pod), ni)
				}
				if !st.IsSuccess() {
					t.Fatalf("step %d: %v", i, st)
				}
				assertStatuses(t, filterAll(t, pl, state, tt.pod, infos), s.want)
				// The clone taken before the step is unaffected by it.
				if i == 0 {
					assertStatuses(t, filterAll(t, pl, before, tt.pod, infos), tt.initial)
				}
			}
		})
	}
}

func TestAddPodWithoutState(t *testing.T) {
	infos := cluster(standardNodes())
	pl := newPlugin(t, "", newHandle(t, serial{}, infos))
	st := pl.AddPod(context.Background(), framework.NewCycleState(), makePod("p").obj(), info(makePod("q").obj()), infos[0])
	if st.Code() != framework.Error {
		t.Fatalf("got %v, want Error", st)
	}
}

// TestPreFilterParallel checks that a concurrent scan counts as a serial one does.
func TestPreFilterParallel(t *testing.T) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 200 {
		name := "n" + itoa(i)
		nodes = append(nodes, node(name, zoneKey, "z"+itoa(i%7)))
		for j := range 3 {
			b := makePod(name+"-"+itoa(j), "app", "a"+itoa((i+j)%5)).on(name)
			if j == 0 && i%4 == 0 {
				b.anti(sel(zoneKey, "app", "a1"))
			}
			pods = append(pods, b.obj())
		}
	}
	infos := cluster(nodes, pods...)
	pod := makePod("p", "app", "a1").affinity(sel(zoneKey, "app", "a2")).anti(sel(hostKey, "app", "a3")).obj()
	var states [2]*filterState
	for i, par := range []framework.Parallelizer{serial{}, concurrent{}} {
		pl := newPlugin(t, "", newHandle(t, par, infos, namespace("default")))
		cs := framework.NewCycleState()
		if _, st := pl.PreFilter(context.Background(), cs, pod, infos); !st.IsSuccess() {
			t.Fatal(st)
		}
		s, err := framework.ReadState[*filterState](cs, preFilterKey)
		if err != nil {
			t.Fatal(err)
		}
		states[i] = s
	}
	for _, pair := range [][2]*domainCounts{
		{states[0].existingAnti, states[1].existingAnti},
		{states[0].affinity, states[1].affinity},
		{states[0].antiAffinity, states[1].antiAffinity},
	} {
		if len(pair[0].asMap()) == 0 || !mapsEqual(pair[0].asMap(), pair[1].asMap()) {
			t.Errorf("serial %v, concurrent %v", pair[0].asMap(), pair[1].asMap())
		}
	}
}

func mapsEqual(a, b map[domain]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func itoa(i int) string { return strconv.Itoa(i) }
