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
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// scoreAll runs PreScore over the feasible nodes, Score on each and
// NormalizeScore, returning the raw and the normalized scores.
func scoreAll(t *testing.T, pl *PodTopologySpread, pod *v1.Pod, feasible []*framework.NodeInfo) (raw, normalized []int64) {
	t.Helper()
	ctx, state := context.Background(), framework.NewCycleState()
	if s := pl.PreScore(ctx, state, pod, feasible); !s.IsSuccess() {
		t.Fatalf("PreScore = %v", s)
	}
	scores := make(framework.NodeScoreList, len(feasible))
	for i, ni := range feasible {
		n, s := pl.Score(ctx, state, pod, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score(%s) = %v", ni.Node().Name, s)
		}
		raw = append(raw, n)
		scores[i] = framework.NodeScore{Name: ni.Node().Name, Score: n}
	}
	if s := pl.ScoreExtensions().NormalizeScore(ctx, state, pod, scores); !s.IsSuccess() {
		t.Fatalf("NormalizeScore = %v", s)
	}
	for _, s := range scores {
		normalized = append(normalized, s.Score)
	}
	return raw, normalized
}

// pick returns the NodeInfos with the names, in that order.
func pick(all []*framework.NodeInfo, names ...string) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, n := range names {
		for _, ni := range all {
			if ni.Node().Name == n {
				out = append(out, ni)
			}
		}
	}
	return out
}

func TestScore(t *testing.T) {
	web := match("app", "web")
	ssd := []*v1.Node{
		node("a1", hostKey, "a1", zoneKey, "a", "disk", "ssd"),
		node("b1", hostKey, "b1", zoneKey, "b", "disk", "ssd"),
		node("b2", hostKey, "b2", zoneKey, "b"),
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		nodes    []*v1.Node
		pods     []*v1.Pod
		feasible []string // default: every node
		raw      []int64
		want     []int64
	}{
		{
			// Two zones weigh log(4); zone a has 2 matching pods.
			name:  "zone: the emptier zone wins",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, soft, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b")},
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "a2", "app", "web")),
			raw:   []int64{3, 3, 0},
			want:  []int64{0, 0, 100},
		},
		{
			// Three hosts weigh log(5).
			name:  "hostname counts the node's own pods",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, hostKey, soft, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b")},
			pods:  concat(placed(2, "a1", "app", "web"), placed(1, "a2", "app", "web")),
			raw:   []int64{3, 2, 0},
			want:  []int64{0, 33, 100},
		},
		{
			name:  "maxSkew 3 adds 2 to every sum, softening the difference",
			pod:   st.Pod("p").Labels("app", "web").Spread(3, zoneKey, soft, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b")},
			pods:  concat(placed(1, "a1", "app", "web"), placed(1, "a2", "app", "web")),
			raw:   []int64{5, 5, 2},
			want:  []int64{40, 40, 100},
		},
		{
			name:  "a node without the key is ignored and scores 0",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, soft, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), node("x1", hostKey, "x1")},
			pods:  concat(placed(1, "a1", "app", "web"), placed(5, "x1", "app", "web")),
			raw:   []int64{1, 0, 0},
			want:  []int64{0, 100, 0},
		},
		{
			name:     "pods on infeasible nodes count for the feasible nodes' domains",
			pod:      st.Pod("p").Labels("app", "web").Spread(1, zoneKey, soft, web).Obj(),
			nodes:    []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), zoned("b2", "b")},
			pods:     concat(placed(1, "a1", "app", "web"), placed(2, "b2", "app", "web")),
			feasible: []string{"a1", "b1"},
			raw:      []int64{1, 3},
			want:     []int64{100, 33},
		},
		{
			name:     "nodeAffinityPolicy Honor leaves out nodes the pod cannot use",
			pod:      st.Pod("p").Labels("app", "web").NodeSelector("disk", "ssd").Spread(1, zoneKey, soft, web).Obj(),
			nodes:    ssd,
			pods:     concat(placed(1, "a1", "app", "web"), placed(3, "b2", "app", "web")),
			feasible: []string{"a1", "b1"},
			raw:      []int64{1, 0},
			want:     []int64{0, 100},
		},
		{
			name: "nodeAffinityPolicy Ignore counts them",
			pod: st.Pod("p").Labels("app", "web").NodeSelector("disk", "ssd").
				Spread(1, zoneKey, soft, web).NodeAffinityPolicy(ignore).Obj(),
			nodes:    ssd,
			pods:     concat(placed(1, "a1", "app", "web"), placed(3, "b2", "app", "web")),
			feasible: []string{"a1", "b1"},
			raw:      []int64{1, 4},
			want:     []int64{100, 25},
		},
		{
			name: "nodeTaintsPolicy Honor leaves out untolerated nodes",
			pod: st.Pod("p").Labels("app", "web").
				Spread(1, zoneKey, soft, web).NodeTaintsPolicy(honor).Obj(),
			nodes:    []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), tainted(zoned("b2", "b"), "gpu")},
			pods:     concat(placed(1, "a1", "app", "web"), placed(3, "b2", "app", "web")),
			feasible: []string{"a1", "b1"},
			raw:      []int64{1, 0},
			want:     []int64{0, 100},
		},
		{
			// Zones weigh log(4), hosts log(5).
			name: "zone and hostname add up",
			pod: st.Pod("p").Labels("app", "web").
				Spread(1, zoneKey, soft, web).Spread(1, hostKey, soft, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b")},
			pods:  placed(1, "a1", "app", "web"),
			raw:   []int64{3, 1, 0},
			want:  []int64{0, 66, 100},
		},
		{
			name:  "matchLabelKeys counts only the pod's revision",
			pod:   st.Pod("p").Labels("app", "web", "rev", "2").Spread(1, zoneKey, soft, web).SpreadMatchLabelKeys("rev").Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("b1", "b")},
			pods:  concat(placed(3, "a1", "app", "web", "rev", "1"), placed(1, "b1", "app", "web", "rev", "2")),
			raw:   []int64{0, 1},
			want:  []int64{100, 0},
		},
		{
			name:  "hard constraints do not score",
			pod:   st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, web).Spread(1, hostKey, soft, web).Obj(),
			nodes: []*v1.Node{zoned("a1", "a"), zoned("a2", "a")},
			pods:  placed(1, "a2", "app", "web"),
			raw:   []int64{0, 1},
			want:  []int64{100, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := nodeInfos(tt.nodes, tt.pods...)
			feasible := all
			if tt.feasible != nil {
				feasible = pick(all, tt.feasible...)
			}
			pl := newPlugin(t, nil, newHandle(t, all))
			raw, got := scoreAll(t, pl, tt.pod, feasible)
			if !slices.Equal(raw, tt.raw) {
				t.Errorf("raw scores = %v, want %v", raw, tt.raw)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("normalized scores = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSystemDefaultingWithReplicaSet(t *testing.T) {
	// nz1 has no zone: System defaults still spread over it by hostname.
	nodes := []*v1.Node{zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"), node("nz1", hostKey, "nz1")}
	pods := concat(placed(2, "a1", "app", "web"), placed(1, "b1", "app", "web"), placed(4, "a2", "app", "other"))
	all := nodeInfos(nodes, pods...)
	pl := newPlugin(t, nil, newHandle(t, all, replicaSet("rs", "app", "web")))
	if !pl.systemDefaulted {
		t.Fatal("default args should be System")
	}
	p := st.Pod("p").Labels("app", "web", "pod-template-hash", "x").Owner("apps/v1", "ReplicaSet", "rs").Obj()
	// Hosts weigh log(6) with maxSkew 3; zones a, b and the empty one weigh
	// log(5) with maxSkew 5.
	raw, got := scoreAll(t, pl, p, all)
	if want := []int64{13, 9, 9, 2}; !slices.Equal(raw, want) {
		t.Errorf("raw = %v, want %v", raw, want)
	}
	if want := []int64{15, 46, 46, 100}; !slices.Equal(got, want) {
		t.Errorf("normalized = %v, want %v", got, want)
	}
	// A pod whose ReplicaSet is unknown, and a pod of no controller, are not spread.
	for _, p := range []*v1.Pod{
		st.Pod("lost").Labels("app", "web").Owner("apps/v1", "ReplicaSet", "missing").Obj(),
		st.Pod("lone").Labels("app", "web").Obj(),
		st.Pod("job").Labels("app", "web").Owner("batch/v1", "Job", "rs").Obj(),
	} {
		if s := pl.PreScore(context.Background(), framework.NewCycleState(), p, all); !s.IsSkip() {
			t.Errorf("%s: PreScore = %v, want Skip", p.Name, s)
		}
	}
}

func TestListDefaultingSoft(t *testing.T) {
	nodes := []*v1.Node{zoned("a1", "a"), zoned("b1", "b"), node("nz1", hostKey, "nz1")}
	pods := placed(2, "a1", "app", "web")
	all := nodeInfos(nodes, pods...)
	pl := newPlugin(t, listArgs(spread(1, zoneKey, soft)), newHandle(t, all, statefulSet("ss", "app", "web")))
	p := st.Pod("p").Labels("app", "web").Owner("apps/v1", "StatefulSet", "ss").Obj()
	// With List defaults, nodes without the zone are ignored.
	raw, got := scoreAll(t, pl, p, all)
	if want := []int64{3, 0, 0}; !slices.Equal(raw, want) {
		t.Errorf("raw = %v, want %v", raw, want)
	}
	if want := []int64{0, 100, 0}; !slices.Equal(got, want) {
		t.Errorf("normalized = %v, want %v", got, want)
	}
}

func TestOwnConstraintsIgnoreDefaults(t *testing.T) {
	nodes := []*v1.Node{zoned("a1", "a"), zoned("b1", "b")}
	pods := concat(placed(3, "a1", "app", "web"), placed(1, "b1", "app", "db"))
	all := nodeInfos(nodes, pods...)
	pl := newPlugin(t, nil, newHandle(t, all, replicaSet("rs", "app", "web")))
	// The ReplicaSet would spread by app=web; the pod's own constraint counts app=db.
	p := st.Pod("p").Labels("app", "web").Owner("apps/v1", "ReplicaSet", "rs").
		Spread(1, hostKey, soft, match("app", "db")).Obj()
	_, got := scoreAll(t, pl, p, all)
	if want := []int64{100, 0}; !slices.Equal(got, want) {
		t.Errorf("normalized = %v, want %v", got, want)
	}
}

func TestPreScoreSkips(t *testing.T) {
	all := nodeInfos([]*v1.Node{zoned("a1", "a")})
	ctx := context.Background()
	pl := newPlugin(t, nil, newHandle(t, all))
	if s := pl.PreScore(ctx, framework.NewCycleState(), st.Pod("p").Spread(1, zoneKey, hard, match("a", "b")).Obj(), all); !s.IsSkip() {
		t.Errorf("only hard constraints: PreScore = %v, want Skip", s)
	}
	empty := newPlugin(t, nil, newHandle(t, nil))
	if s := empty.PreScore(ctx, framework.NewCycleState(), st.Pod("p").Spread(1, zoneKey, soft, match("a", "b")).Obj(), nil); !s.IsSkip() {
		t.Errorf("no nodes: PreScore = %v, want Skip", s)
	}
	if _, s := pl.Score(ctx, framework.NewCycleState(), st.Pod("p").Obj(), all[0]); s.Code() != framework.Error {
		t.Errorf("Score without PreScore = %v, want Error", s)
	}
}

func TestNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		scores  []int64
		ignored []string
		want    []int64
	}{
		{"all zero", []int64{0, 0, 0}, nil, []int64{100, 100, 100}},
		{"all equal", []int64{7, 7}, nil, []int64{100, 100}},
		{"spread", []int64{0, 5, 10}, nil, []int64{100, 50, 0}},
		{"minimum above zero", []int64{2, 4, 6}, nil, []int64{100, 66, 33}},
		{"ignored nodes get 0 and do not count", []int64{0, 0, 100}, []string{"n2"}, []int64{100, 100, 0}},
		{"every node ignored", []int64{0, 0}, []string{"n0", "n1"}, []int64{0, 0}},
		{"no nodes", nil, nil, nil},
	}
	pl := &PodTopologySpread{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			state.Write(preScoreKey, &scoreState{ignored: sets.New(tt.ignored...)})
			scores := make(framework.NodeScoreList, len(tt.scores))
			for i, s := range tt.scores {
				scores[i] = framework.NodeScore{Name: "n" + itoa(i), Score: s}
			}
			if s := pl.NormalizeScore(context.Background(), state, nil, scores); !s.IsSuccess() {
				t.Fatal(s)
			}
			var got []int64
			for _, s := range scores {
				got = append(got, s.Score)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("normalized = %v, want %v", got, tt.want)
			}
		})
	}
	if s := pl.NormalizeScore(context.Background(), framework.NewCycleState(), nil, nil); s.Code() != framework.Error {
		t.Errorf("without PreScore: %v, want Error", s)
	}
}

func TestOwnersSelector(t *testing.T) {
	tests := []struct {
		name  string
		pod   *v1.Pod
		objs  []any
		match map[string]string // labels the selector must select
		miss  map[string]string // labels it must not select
		empty bool
	}{
		{name: "no owner, no service", pod: st.Pod("p").Labels("app", "web").Obj(), empty: true},
		{
			name:  "service",
			pod:   st.Pod("p").Labels("app", "web", "tier", "fe").Obj(),
			objs:  []any{service("web", "app", "web"), service("db", "app", "db")},
			match: kv("app", "web"), miss: kv("app", "db"),
		},
		{
			name: "service without selector is skipped",
			pod:  st.Pod("p").Labels("app", "web").Obj(),
			objs: []any{&v1.Service{ObjectMeta: service("x").ObjectMeta}}, empty: true,
		},
		{
			name:  "replication controller merges with services",
			pod:   st.Pod("p").Labels("app", "web", "tier", "fe").Owner("v1", "ReplicationController", "rc").Obj(),
			objs:  []any{service("web", "app", "web"), replicationController("rc", "tier", "fe")},
			match: kv("app", "web", "tier", "fe"), miss: kv("app", "web"),
		},
		{
			name:  "replica set",
			pod:   st.Pod("p").Labels("app", "web", "hash", "1").Owner("apps/v1", "ReplicaSet", "rs").Obj(),
			objs:  []any{replicaSet("rs", "app", "web", "hash", "1")},
			match: kv("app", "web", "hash", "1"), miss: kv("app", "web", "hash", "2"),
		},
		{
			name:  "stateful set",
			pod:   st.Pod("p").Labels("app", "db").Owner("apps/v1", "StatefulSet", "ss").Obj(),
			objs:  []any{statefulSet("ss", "app", "db")},
			match: kv("app", "db"), miss: kv("app", "web"),
		},
		{
			name: "owner in another group is not followed",
			pod:  st.Pod("p").Labels("app", "db").Owner("apps/v2", "StatefulSet", "ss").Obj(),
			objs: []any{statefulSet("ss", "app", "db")}, empty: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, nil, newHandle(t, nil, tt.objs...))
			sel := pl.ownersSelector(tt.pod)
			if sel.Empty() != tt.empty {
				t.Fatalf("selector %q: empty = %v, want %v", sel, sel.Empty(), tt.empty)
			}
			if tt.match != nil && !sel.Matches(labels.Set(tt.match)) {
				t.Errorf("selector %q does not select %v", sel, tt.match)
			}
			if tt.miss != nil && sel.Matches(labels.Set(tt.miss)) {
				t.Errorf("selector %q selects %v", sel, tt.miss)
			}
		})
	}
}
