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

package podtopologyspread

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// Filter's rejections name the plugin already: they are made once and the
// runtime's WithPlugin then leaves them alone.
var (
	skewFail  = framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch).WithPlugin(Name)
	labelFail = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch).WithPlugin(Name)
)

// filterAll runs PreFilter, then Filter on every node, returning the
// statuses of the nodes that did not pass.
func filterAll(t *testing.T, pl *PodTopologySpread, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) map[string]*framework.Status {
	t.Helper()
	ctx := context.Background()
	if _, s := pl.PreFilter(ctx, state, pod, nodes); !s.IsSuccess() {
		t.Fatalf("PreFilter = %v", s)
	}
	return filterOnly(t, pl, state, pod, nodes)
}

// filterOnly runs Filter on every node with an existing state.
func filterOnly(t *testing.T, pl *PodTopologySpread, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) map[string]*framework.Status {
	t.Helper()
	got := map[string]*framework.Status{}
	for _, ni := range nodes {
		if s := pl.Filter(context.Background(), state, pod, ni); !s.IsSuccess() {
			got[ni.Node().Name] = s
		}
	}
	return got
}

func checkStatuses(t *testing.T, got, want map[string]*framework.Status) {
	t.Helper()
	for name, w := range want {
		if !got[name].Equal(w) {
			t.Errorf("node %s: Filter = %v, want %v", name, got[name], w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("node %s: Filter = %v, want success", name, g)
		}
	}
}

func TestFilter(t *testing.T) {
	// Two zones of two nodes each; a3 has no hostname label, x1 no zone.
	twoZones := []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"), zoned("b2", "b")}
	web := match("app", "web")
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		pods  []*v1.Pod
		want  map[string]*framework.Status
	}{
		{
			name:  "maxSkew 1: the fuller zone is rejected",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj(),
			nodes: twoZones,
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "a2", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{"a1": skewFail, "a2": skewFail},
		},
		{
			name:  "maxSkew 2 allows the same placement",
			pod:   st.Pod("p").Labels("app", "web").Spread(2, zoneKey, hard, web).Obj(),
			nodes: twoZones,
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "a2", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{},
		},
		{
			name:  "maxSkew 2 rejects a skew of 3",
			pod:   st.Pod("p").Labels("app", "web").Spread(2, zoneKey, hard, web).Obj(),
			nodes: twoZones,
			pods:  placed(2, "a1", "app", "web"),
			want:  map[string]*framework.Status{"a1": skewFail, "a2": skewFail},
		},
		{
			name:  "a pod its own selector does not select adds nothing",
			pod:   st.Pod("p").Labels("app", "db").Spread(1, zoneKey, hard, web).Obj(),
			nodes: twoZones,
			pods:  placed(1, "a1", "app", "web"),
			want:  map[string]*framework.Status{},
		},
		{
			name:  "non-matching, other-namespace and terminating pods do not count",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj(),
			nodes: twoZones,
			pods: concat(placed(3, "a1", "app", "db"),
				[]*v1.Pod{
					st.Pod("other-ns").Namespace("kube-system").Labels("app", "web").NodeName("a1").Obj(),
					st.Pod("going").Labels("app", "web").NodeName("a2").Terminating(time.Now()).Obj(),
				}),
			want: map[string]*framework.Status{},
		},
		{
			name:  "node without the topology key is unresolvable",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), node("x1", hostKey, "x1")},
			want:  map[string]*framework.Status{"x1": labelFail},
		},
		{
			name:  "minDomains above the domain count makes the global minimum 0",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).MinDomains(3).Obj(),
			nodes: twoZones,
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{"a1": skewFail, "a2": skewFail, "b1": skewFail, "b2": skewFail},
		},
		{
			name:  "minDomains met keeps the real minimum",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).MinDomains(2).Obj(),
			nodes: twoZones,
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{},
		},
		{
			name: "nodeAffinityPolicy Honor (default) leaves out domains the pod cannot use",
			pod:  st.Pod("p").Labels("app", "web").NodeSelector("disk", "ssd").Spread(1, zoneKey, hard, web).Obj(),
			nodes: []*v1.Node{
				node("a1", hostKey, "a1", zoneKey, "a", "disk", "ssd"),
				node("b1", hostKey, "b1", zoneKey, "b", "disk", "ssd"),
				node("c1", hostKey, "c1", zoneKey, "c"),
			},
			pods: concat(placed(1, "a1", "app", "web"), placed(2, "b1", "app", "web")),
			// The minimum is zone a's 1; c1 passes here (NodeAffinity rejects it).
			want: map[string]*framework.Status{"b1": skewFail},
		},
		{
			name: "nodeAffinityPolicy Ignore counts every domain",
			pod: st.Pod("p").Labels("app", "web").NodeSelector("disk", "ssd").
				Spread(1, zoneKey, hard, web).NodeAffinityPolicy(ignore).Obj(),
			nodes: []*v1.Node{
				node("a1", hostKey, "a1", zoneKey, "a", "disk", "ssd"),
				node("b1", hostKey, "b1", zoneKey, "b", "disk", "ssd"),
				node("c1", hostKey, "c1", zoneKey, "c"),
			},
			pods: concat(placed(1, "a1", "app", "web"), placed(2, "b1", "app", "web")),
			want: map[string]*framework.Status{"a1": skewFail, "b1": skewFail},
		},
		{
			name:  "nodeTaintsPolicy Ignore (default) counts tainted domains",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), tainted(zoned("c1", "c"), "dedicated")},
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{"a1": skewFail, "b1": skewFail},
		},
		{
			name:  "nodeTaintsPolicy Honor leaves out untolerated tainted domains",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).NodeTaintsPolicy(honor).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), tainted(zoned("c1", "c"), "dedicated")},
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{},
		},
		{
			name: "nodeTaintsPolicy Honor keeps tolerated tainted domains",
			pod: st.Pod("p").Labels("app", "web").Tolerate("dedicated").
				Spread(1, zoneKey, hard, web).NodeTaintsPolicy(honor).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), tainted(zoned("c1", "c"), "dedicated")},
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "b1", "app", "web")),
			want:  map[string]*framework.Status{"a1": skewFail, "b1": skewFail},
		},
		{
			name:  "matchLabelKeys counts only pods with the pod's value",
			pod:   st.Pod("p").Labels("app", "web", "rev", "2").Spread(1, zoneKey, hard, web).SpreadMatchLabelKeys("rev").Obj(),
			nodes: twoZones,
			// Zone a has two old-revision pods, zone b one new one.
			pods: concat(placed(2, "a1", "app", "web", "rev", "1"), placed(1, "b1", "app", "web", "rev", "2")),
			want: map[string]*framework.Status{"b1": skewFail, "b2": skewFail},
		},
		{
			name:  "without matchLabelKeys every revision counts",
			pod:   st.Pod("p").Labels("app", "web", "rev", "2").Spread(1, zoneKey, hard, web).Obj(),
			nodes: twoZones,
			pods:  concat(placed(2, "a1", "app", "web", "rev", "1"), placed(1, "b1", "app", "web", "rev", "2")),
			want:  map[string]*framework.Status{"a1": skewFail, "a2": skewFail},
		},
		{
			name: "multiple constraints: zone and hostname both apply",
			pod: st.Pod("p").Labels("app", "web").
				Spread(2, zoneKey, hard, web).Spread(1, hostKey, hard, web).Obj(),
			nodes: twoZones,
			// Zone a: 2 (both on a1); zone b: 1 on b1. Zone skew allows all;
			// hostname minimum is 0 (a2, b2) so a1 (2) and b1 (1) are too full.
			pods: concat(placed(2, "a1", "app", "web"), placed(1, "b1", "app", "web")),
			want: map[string]*framework.Status{"a1": skewFail, "b1": skewFail},
		},
		{
			name: "a node missing one constraint's key is left out of every count",
			pod: st.Pod("p").Labels("app", "web").
				Spread(1, zoneKey, hard, web).Spread(5, hostKey, hard, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), node("nohost", zoneKey, "b")},
			// The pods on nohost would make zone b the fuller zone, but they do not count.
			pods: concat(placed(1, "a1", "app", "web"), placed(3, "nohost", "app", "web")),
			want: map[string]*framework.Status{"a1": skewFail, "nohost": labelFail},
		},
		{
			name:  "an existing-pods selector that matches everything counts nothing",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, match()).Obj(),
			nodes: twoZones,
			pods:  placed(3, "a1", "app", "web"),
			want:  map[string]*framework.Status{},
		},
		{
			name:  "Exists selector",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, hostKey, hard, exists("app")).Obj(),
			nodes: twoZones,
			pods:  concat(placed(1, "a1", "app", "x"), placed(1, "a2", "app", "y"), placed(1, "b1", "app", "z")),
			want:  map[string]*framework.Status{"a1": skewFail, "a2": skewFail, "b1": skewFail},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nis := nodeInfos(tt.nodes, tt.pods...)
			pl := newPlugin(t, nil, newHandle(t, nis))
			got := filterAll(t, pl, framework.NewCycleState(), tt.pod, nis)
			checkStatuses(t, got, tt.want)
		})
	}
}

func TestPreFilterSkipsWithoutHardConstraints(t *testing.T) {
	nis := nodeInfos([]*v1.Node{zoned("a1", "a")})
	pl := newPlugin(t, nil, newHandle(t, nis))
	for _, p := range []*v1.Pod{
		st.Pod("none").Obj(),
		st.Pod("soft").Labels("app", "web").Spread(1, zoneKey, soft, match("app", "web")).Obj(),
		// System defaults are soft, so an owned pod has no hard constraints either.
		st.Pod("owned").Labels("app", "web").Owner("apps/v1", "ReplicaSet", "rs").Obj(),
	} {
		if _, s := pl.PreFilter(context.Background(), framework.NewCycleState(), p, nis); !s.IsSkip() {
			t.Errorf("%s: PreFilter = %v, want Skip", p.Name, s)
		}
	}
}

func TestPreFilterBadSelector(t *testing.T) {
	nis := nodeInfos([]*v1.Node{zoned("a1", "a")})
	pl := newPlugin(t, nil, newHandle(t, nis))
	bad := exists("app")
	bad.MatchExpressions[0].Values = []string{"x"} // Exists takes no values
	p := st.Pod("p").Spread(1, zoneKey, hard, bad).Obj()
	if _, s := pl.PreFilter(context.Background(), framework.NewCycleState(), p, nis); s.Code() != framework.Error {
		t.Errorf("PreFilter = %v, want Error", s)
	}
}

func TestFilterWithoutPreFilterState(t *testing.T) {
	pl := newPlugin(t, nil, newHandle(t, nil))
	p := st.Pod("p").Spread(1, zoneKey, hard, match("app", "web")).Obj()
	if s := pl.Filter(context.Background(), framework.NewCycleState(), p, nodeInfos([]*v1.Node{zoned("a1", "a")})[0]); s.Code() != framework.Error {
		t.Errorf("Filter = %v, want Error", s)
	}
}

func TestPreFilterCounts(t *testing.T) {
	nodes := []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"), zoned("c1", "c")}
	pods := concat(placed(2, "a1", "app", "web"), placed(1, "a2", "app", "web"), placed(4, "b1", "app", "web"))
	nis := nodeInfos(nodes, pods...)
	pl := newPlugin(t, nil, newHandle(t, nis))
	p := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, match("app", "web")).Spread(1, hostKey, hard, match("app", "web")).Obj()
	state := framework.NewCycleState()
	pl.PreFilter(context.Background(), state, p, nis)
	s, err := readFilterState(state)
	if err != nil {
		t.Fatal(err)
	}
	wantZone := map[string]int{"a": 3, "b": 4, "c": 0}
	wantHost := map[string]int{"a1": 2, "a2": 1, "b1": 4, "c1": 0}
	for i, want := range []map[string]int{wantZone, wantHost} {
		if len(s.counts[i]) != len(want) {
			t.Errorf("constraint %d: counts %v, want %v", i, s.counts[i], want)
		}
		for d, n := range want {
			if s.counts[i][d] != n {
				t.Errorf("constraint %d: counts %v, want %v", i, s.counts[i], want)
			}
		}
	}
	if s.lowest[0][0] != (domainCount{"c", 0}) || s.lowest[1][0] != (domainCount{"c1", 0}) {
		t.Errorf("lowest = %v", s.lowest)
	}
	if s.selfMatch[0] != 1 || s.selfMatch[1] != 1 {
		t.Errorf("selfMatch = %v", s.selfMatch)
	}
	if s.constraints[1].sameSelectorAs != 0 {
		t.Errorf("hostname constraint should reuse the zone constraint's counts: %+v", s.constraints[1])
	}
}

func TestLowestTwo(t *testing.T) {
	type step struct {
		domain string
		n      int
	}
	tests := []struct {
		name  string
		steps []step
		want  domainCount
	}{
		{"first domain", []step{{"a", 3}}, domainCount{"a", 3}},
		{"smaller replaces", []step{{"a", 3}, {"b", 1}}, domainCount{"b", 1}},
		{"larger kept second", []step{{"a", 1}, {"b", 3}, {"c", 2}}, domainCount{"a", 1}},
		{"minimum grows past second", []step{{"a", 1}, {"b", 3}, {"c", 2}, {"a", 5}}, domainCount{"c", 2}},
		{"minimum shrinks", []step{{"a", 1}, {"b", 3}, {"b", 0}}, domainCount{"b", 0}},
		{"tracked second shrinks below first", []step{{"a", 2}, {"b", 3}, {"b", 1}}, domainCount{"b", 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLowestTwo()
			for _, s := range tt.steps {
				l.set(s.domain, s.n)
			}
			if l[0] != tt.want {
				t.Errorf("lowest = %v, want %v", l[0], tt.want)
			}
			if l[1].pods < l[0].pods {
				t.Errorf("second %v below first %v", l[1], l[0])
			}
		})
	}
}

func TestAddAndRemovePod(t *testing.T) {
	web := match("app", "web")
	nodes := []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), node("x1", hostKey, "x1")}
	pods := concat(placed(1, "a1", "app", "web"), placed(1, "b1", "app", "web"))
	nis := nodeInfos(nodes, pods...)
	ctx := context.Background()
	p := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).Obj()
	pl := newPlugin(t, nil, newHandle(t, nis))
	state := framework.NewCycleState()
	checkStatuses(t, filterAll(t, pl, state, p, nis), map[string]*framework.Status{"x1": labelFail})

	// Adding a matching pod in zone a makes zone a too full.
	added := st.Pod("new").Labels("app", "web").NodeName("a1").Info()
	snapshotBefore := state.Clone()
	if s := pl.AddPod(ctx, state, p, added, nis[0]); !s.IsSuccess() {
		t.Fatal(s)
	}
	checkStatuses(t, filterOnly(t, pl, state, p, nis), map[string]*framework.Status{"a1": skewFail, "x1": labelFail})
	// The clone taken before is not affected.
	checkStatuses(t, filterOnly(t, pl, snapshotBefore, p, nis), map[string]*framework.Status{"x1": labelFail})

	// Removing the pod in zone b leaves a with 2, b with 0.
	if s := pl.RemovePod(ctx, state, p, st.Pod("b1-p0").Labels("app", "web").NodeName("b1").Info(), nis[1]); !s.IsSuccess() {
		t.Fatal(s)
	}
	checkStatuses(t, filterOnly(t, pl, state, p, nis), map[string]*framework.Status{"a1": skewFail, "x1": labelFail})
	// Removing the added pod again leaves a 1, b 0: still a1 is too full.
	pl.RemovePod(ctx, state, p, added, nis[0])
	checkStatuses(t, filterOnly(t, pl, state, p, nis), map[string]*framework.Status{"a1": skewFail, "x1": labelFail})
	// Removing the last pod in a evens out at 0/0.
	pl.RemovePod(ctx, state, p, st.Pod("a1-p0").Labels("app", "web").NodeName("a1").Info(), nis[0])
	checkStatuses(t, filterOnly(t, pl, state, p, nis), map[string]*framework.Status{"x1": labelFail})

	// Pods that do not count change nothing: other namespace, not selected,
	// on a node without the key.
	before := filterOnly(t, pl, state, p, nis)
	pl.AddPod(ctx, state, p, st.Pod("o1").Namespace("other").Labels("app", "web").NodeName("a1").Info(), nis[0])
	pl.AddPod(ctx, state, p, st.Pod("o2").Labels("app", "db").NodeName("a1").Info(), nis[0])
	pl.AddPod(ctx, state, p, st.Pod("o3").Labels("app", "web").NodeName("x1").Info(), nis[2])
	checkStatuses(t, filterOnly(t, pl, state, p, nis), before)
}

func TestAddPodHonorsTaints(t *testing.T) {
	web := match("app", "web")
	nodes := []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), tainted(zoned("c1", "c"), "dedicated")}
	nis := nodeInfos(nodes)
	ctx := context.Background()
	p := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).NodeTaintsPolicy(honor).Obj()
	pl := newPlugin(t, nil, newHandle(t, nis))
	state := framework.NewCycleState()
	filterAll(t, pl, state, p, nis)
	// A pod added on the untolerated node does not count.
	pl.AddPod(ctx, state, p, st.Pod("n").Labels("app", "web").NodeName("c1").Info(), nis[2])
	pl.AddPod(ctx, state, p, st.Pod("m").Labels("app", "web").NodeName("a1").Info(), nis[0])
	checkStatuses(t, filterOnly(t, pl, state, p, nis), map[string]*framework.Status{"a1": skewFail})
}

func TestAddPodWithoutState(t *testing.T) {
	pl := newPlugin(t, nil, newHandle(t, nil))
	ni := nodeInfos([]*v1.Node{zoned("a1", "a")})[0]
	if s := pl.AddPod(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), st.Pod("q").Info(), ni); s.Code() != framework.Error {
		t.Errorf("AddPod = %v, want Error", s)
	}
	if s := pl.RemovePod(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), st.Pod("q").Info(), ni); s.Code() != framework.Error {
		t.Errorf("RemovePod = %v, want Error", s)
	}
}

func TestListDefaultsHard(t *testing.T) {
	nodes := []*v1.Node{zoned("a1", "a"), zoned("b1", "b")}
	pods := placed(1, "a1", "app", "web")
	nis := nodeInfos(nodes, pods...)
	h := newHandle(t, nis, service("web", "app", "web"))
	pl := newPlugin(t, listArgs(spread(1, hostKey, hard)), h)
	// A pod of the Service gets the hard default.
	p := st.Pod("p").Labels("app", "web").Obj()
	checkStatuses(t, filterAll(t, pl, framework.NewCycleState(), p, nis), map[string]*framework.Status{"a1": skewFail})
	// A pod of no Service or controller gets none.
	lone := st.Pod("lone").Labels("app", "other").Obj()
	if _, s := pl.PreFilter(context.Background(), framework.NewCycleState(), lone, nis); !s.IsSkip() {
		t.Errorf("PreFilter(lone) = %v, want Skip", s)
	}
	// A pod with its own (soft) constraints ignores the hard defaults.
	own := st.Pod("own").Labels("app", "web").Spread(1, zoneKey, soft, match("app", "web")).Obj()
	if _, s := pl.PreFilter(context.Background(), framework.NewCycleState(), own, nis); !s.IsSkip() {
		t.Errorf("PreFilter(own) = %v, want Skip", s)
	}
}
