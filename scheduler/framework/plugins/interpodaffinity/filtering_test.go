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
	st "github.com/berth-io/berth/scheduler/schedtest"
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
		if status := pl.Filter(context.Background(), state, pod, ni); !status.IsSuccess() {
			got[ni.Node().Name] = status
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
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web").NodeName("n1").Obj()},
			skip:     true,
		},
		{
			name: "existing anti-affinity that does not select the pod: skip",
			pod:  st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{
				st.Pod("e").NodeName("n1").PodAntiAffinity(st.Term(zoneKey, "app", "db")).Obj(),
			},
			skip: true,
		},
		{
			name:     "affinity satisfied in the matching pod's zone only",
			pod:      st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web").NodeName("n1").Obj()},
			want:     map[string]*framework.Status{"n3": affinityFail, "n4": affinityFail},
		},
		{
			name:     "affinity nowhere satisfied and the pod does not match itself",
			pod:      st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "db").NodeName("n1").Obj()},
			want:     map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "first pod of a self-affine group goes to any node with the topology key",
			pod:  st.Pod("p").Labels("app", "web").PodAffinity(st.Term(zoneKey, "app", "web")).Obj(),
			want: map[string]*framework.Status{"n4": affinityFail},
		},
		{
			name:     "self-affine pod must join the existing group's zone",
			pod:      st.Pod("p").Labels("app", "web").PodAffinity(st.Term(zoneKey, "app", "web")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web").NodeName("n3").Obj()},
			want:     map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
		},
		{
			name: "all affinity terms must be met by one pod",
			pod:  st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).PodAffinity(st.Term(hostKey, "tier", "fe")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web", "tier", "fe").NodeName("n1").Obj(),
				st.Pod("e2").Labels("tier", "fe").NodeName("n3").Obj(),
			},
			want: map[string]*framework.Status{"n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "no single pod meets all terms",
			pod:  st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).PodAffinity(st.Term(hostKey, "tier", "fe")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web").NodeName("n1").Obj(),
				st.Pod("e2").Labels("tier", "fe").NodeName("n1").Obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name:     "anti-affinity by hostname rejects only the node with the pod",
			pod:      st.Pod("p").PodAntiAffinity(st.Term(hostKey, "app", "db")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "db").NodeName("n1").Obj()},
			want:     map[string]*framework.Status{"n1": antiFail},
		},
		{
			name:     "anti-affinity by zone rejects the zone; a node without the key is fine",
			pod:      st.Pod("p").PodAntiAffinity(st.Term(zoneKey, "app", "db")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "db").NodeName("n1").Obj()},
			want:     map[string]*framework.Status{"n1": antiFail, "n2": antiFail},
		},
		{
			name:     "existing pod's anti-affinity rejects the pod in its zone",
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n3").PodAntiAffinity(st.Term(zoneKey, "app", "web")).Obj()},
			want:     map[string]*framework.Status{"n3": existingFail},
		},
		{
			name:     "existing pod's anti-affinity on a key the node lacks",
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n4").PodAntiAffinity(st.Term(zoneKey, "app", "web")).Obj()},
			skip:     true,
		},
		{
			name: "affinity is checked before anti-affinity",
			pod:  st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).PodAntiAffinity(st.Term(hostKey, "app", "web")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e").Labels("app", "web").NodeName("n1").Obj(),
			},
			want: map[string]*framework.Status{"n1": antiFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "terms select pods in the pod's namespace by default",
			pod:  st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e").Labels("app", "web").Namespace("other").NodeName("n1").Obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "terms with namespaces select pods there only",
			pod:  st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web").Namespaces("other")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web").NodeName("n1").Obj(),
				st.Pod("e2").Labels("app", "web").Namespace("other").NodeName("n3").Obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
		},
		{
			name: "namespace selector picks namespaces by label",
			pod:  st.Pod("p").PodAntiAffinity(st.Term(zoneKey, "app", "web").NamespaceSelector("team", "a")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web").Namespace("team-b").NodeName("n1").Obj(),
				st.Pod("e2").Labels("app", "web").Namespace("team-a").NodeName("n3").Obj(),
			},
			want: map[string]*framework.Status{"n3": antiFail},
		},
		{
			name: "empty namespace selector picks every namespace",
			pod:  st.Pod("p").PodAntiAffinity(st.Term(zoneKey, "app", "web").NamespaceSelector()).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web").Namespace("team-b").NodeName("n1").Obj(),
				st.Pod("e2").Labels("app", "web").Namespace("other").NodeName("n3").Obj(),
			},
			want: map[string]*framework.Status{"n1": antiFail, "n2": antiFail, "n3": antiFail},
		},
		{
			name: "existing pod's anti-affinity selects the pod's namespace by its labels",
			pod:  st.Pod("p").Labels("app", "web").Namespace("prod").Obj(),
			existing: []*v1.Pod{
				st.Pod("e").NodeName("n1").PodAntiAffinity(st.Term(hostKey, "app", "web").NamespaceSelector("env", "prod")).Obj(),
			},
			want: map[string]*framework.Status{"n1": existingFail},
		},
		{
			name: "existing pod's namespace selector does not match the pod's namespace",
			pod:  st.Pod("p").Labels("app", "web").Namespace("other").Obj(),
			existing: []*v1.Pod{
				st.Pod("e").NodeName("n1").PodAntiAffinity(st.Term(hostKey, "app", "web").NamespaceSelector("env", "prod")).Obj(),
			},
			skip: true,
		},
		{
			name: "matchLabelKeys narrows the selector to the pod's own label value",
			pod:  st.Pod("p").Labels("ver", "v2").PodAffinity(st.Term(zoneKey, "app", "web").MatchLabelKeys("ver")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web", "ver", "v1").NodeName("n1").Obj(),
				st.Pod("e2").Labels("app", "web", "ver", "v2").NodeName("n3").Obj(),
			},
			want: map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
		},
		{
			name:  "node without any labels",
			pod:   st.Pod("p").Labels("app", "web").PodAffinity(st.Term(hostKey, "app", "web")).PodAntiAffinity(st.Term(zoneKey, "app", "db")).Obj(),
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
			infos := st.NodeInfos(nodes, tt.existing...)
			pl := newPlugin(t, "", newHandle(t, st.Serial{}, infos, nss...))
			state := framework.NewCycleState()
			_, status := pl.PreFilter(context.Background(), state, tt.pod, infos)
			if tt.skip {
				if !status.IsSkip() {
					t.Fatalf("PreFilter: got %v, want Skip", status)
				}
				return
			}
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			assertStatuses(t, filterAll(t, pl, state, tt.pod, infos), tt.want)
		})
	}
}

func TestFilterWithoutPreFilterState(t *testing.T) {
	infos := st.NodeInfos(standardNodes())
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, infos))
	status := pl.Filter(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), infos[0])
	if status.Code() != framework.Error {
		t.Fatalf("got %v, want Error", status)
	}
}

func TestPreFilterInvalidSelector(t *testing.T) {
	infos := st.NodeInfos(standardNodes())
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, infos))
	bad := st.Term(zoneKey).Selector(&metav1.LabelSelector{
		MatchLabels:      map[string]string{},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}},
	})
	_, status := pl.PreFilter(context.Background(), framework.NewCycleState(), st.Pod("p").PodAffinity(bad).Obj(), infos)
	if status.Code() != framework.UnschedulableAndUnresolvable {
		t.Fatalf("got %v, want UnschedulableAndUnresolvable", status)
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
			pod:     st.Pod("p").PodAntiAffinity(st.Term(hostKey, "app", "db")).Obj(),
			initial: map[string]*framework.Status{},
			steps: []step{
				{add: true, pod: st.Pod("db").Labels("app", "db").Obj(), node: "n1", want: map[string]*framework.Status{"n1": antiFail}},
				{add: false, pod: st.Pod("db").Labels("app", "db").Obj(), node: "n1", want: map[string]*framework.Status{}},
			},
		},
		{
			name:     "removing the only matching pod lets a self-affine pod start anywhere",
			pod:      st.Pod("p").Labels("app", "web").PodAffinity(st.Term(zoneKey, "app", "web")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web").NodeName("n3").Obj()},
			initial:  map[string]*framework.Status{"n1": affinityFail, "n2": affinityFail, "n4": affinityFail},
			steps: []step{
				{pod: st.Pod("e").Labels("app", "web").Obj(), node: "n3", want: map[string]*framework.Status{"n4": affinityFail}},
				{add: true, pod: st.Pod("f").Labels("app", "web").Obj(), node: "n1", want: map[string]*framework.Status{"n3": affinityFail, "n4": affinityFail}},
			},
		},
		{
			name:    "an added pod with anti-affinity to the pod",
			pod:     st.Pod("p").Labels("app", "web").PodAntiAffinity(st.Term(hostKey, "app", "none")).Obj(),
			initial: map[string]*framework.Status{},
			steps: []step{
				{add: true, pod: st.Pod("x").PodAntiAffinity(st.Term(zoneKey, "app", "web")).Obj(), node: "n2", want: map[string]*framework.Status{"n1": existingFail, "n2": existingFail}},
				{pod: st.Pod("x").PodAntiAffinity(st.Term(zoneKey, "app", "web")).Obj(), node: "n2", want: map[string]*framework.Status{}},
			},
		},
		{
			name:    "an added pod whose anti-affinity selects the pod's namespace by label",
			pod:     st.Pod("p").Labels("app", "web").Namespace("prod").PodAntiAffinity(st.Term(hostKey, "app", "none")).Obj(),
			initial: map[string]*framework.Status{},
			steps: []step{
				{add: true, pod: st.Pod("x").PodAntiAffinity(st.Term(hostKey, "app", "web").NamespaceSelector("env", "prod")).Obj(), node: "n3", want: map[string]*framework.Status{"n3": existingFail}},
				{add: true, pod: st.Pod("y").PodAntiAffinity(st.Term(hostKey, "app", "web").NamespaceSelector("env", "dev")).Obj(), node: "n1", want: map[string]*framework.Status{"n3": existingFail}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			infos := st.NodeInfos(standardNodes(), tt.existing...)
			h := newHandle(t, st.Serial{}, infos, namespace("default"), namespace("prod", "env", "prod"))
			pl := newPlugin(t, "", h)
			state := framework.NewCycleState()
			if _, status := pl.PreFilter(context.Background(), state, tt.pod, infos); !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			assertStatuses(t, filterAll(t, pl, state, tt.pod, infos), tt.initial)
			for i, s := range tt.steps {
				before := state.Clone()
				ni, _ := h.Snapshot.NodeInfos().Get(s.node)
				var status *framework.Status
				if s.add {
					status = pl.AddPod(context.Background(), state, tt.pod, info(s.pod), ni)
				} else {
					status = pl.RemovePod(context.Background(), state, tt.pod, info(s.pod), ni)
				}
				if !status.IsSuccess() {
					t.Fatalf("step %d: %v", i, status)
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
	infos := st.NodeInfos(standardNodes())
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, infos))
	status := pl.AddPod(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), info(st.Pod("q").Obj()), infos[0])
	if status.Code() != framework.Error {
		t.Fatalf("got %v, want Error", status)
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
			b := st.Pod(name+"-"+itoa(j)).Labels("app", "a"+itoa((i+j)%5)).NodeName(name)
			if j == 0 && i%4 == 0 {
				b.PodAntiAffinity(st.Term(zoneKey, "app", "a1"))
			}
			pods = append(pods, b.Obj())
		}
	}
	infos := st.NodeInfos(nodes, pods...)
	pod := st.Pod("p").Labels("app", "a1").PodAffinity(st.Term(zoneKey, "app", "a2")).PodAntiAffinity(st.Term(hostKey, "app", "a3")).Obj()
	var states [2]*filterState
	for i, par := range []framework.Parallelizer{st.Serial{}, st.Concurrent{}} {
		pl := newPlugin(t, "", newHandle(t, par, infos, namespace("default")))
		cs := framework.NewCycleState()
		if _, status := pl.PreFilter(context.Background(), cs, pod, infos); !status.IsSuccess() {
			t.Fatal(status)
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
