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

package nodeaffinity

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	helpers "k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	in     = v1.NodeSelectorOpIn
	notIn  = v1.NodeSelectorOpNotIn
	exists = v1.NodeSelectorOpExists
	absent = v1.NodeSelectorOpDoesNotExist
	gt     = v1.NodeSelectorOpGt
	lt     = v1.NodeSelectorOpLt
)

func mustNew(t testing.TB, raw string) *NodeAffinity {
	t.Helper()
	pl, err := New(context.Background(), []byte(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*NodeAffinity)
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // fragments of the error; none means valid
	}{
		{"no args", ``, nil},
		{"empty", `{}`, nil},
		{"valid added affinity", `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]},` +
			`"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}}]}}`, nil},
		{"unknown field", `{"addedAffinities":{}}`, []string{"unknown field"}},
		{"wrong kind", `{"kind":"NodePortsArgs"}`, []string{"kind: Invalid value"}},
		{"all errors collected", `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[` +
			`{"matchExpressions":[{"key":"zone","operator":"Bogus"},{"key":"zone","operator":"In"}]},{"matchFields":[{"key":"metadata.name","operator":"Exists"},{"key":"metadata.name","operator":"In","values":["a","b"]}]}]},` +
			`"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"x","operator":"Gt","values":["nan"]}]}}]}}`,
			[]string{
				`addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Bogus"`,
				`nodeSelectorTerms[0].matchExpressions[1].values: Invalid value`,
				`nodeSelectorTerms[1].matchFields[0].operator: Unsupported value: "Exists"`,
				`nodeSelectorTerms[1].matchFields[1].values: Invalid value`, "must have one element",
				`addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].values[0]`,
			}},
		{"zero-weight preferred term not parsed", `{"addedAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"preference":{"matchExpressions":[{"key":"x","operator":"Bogus"}]}}]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), []byte(tt.raw), nil)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("New: want error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	tests := []struct {
		name      string
		args      string
		pod       *v1.Pod
		wantCode  framework.Code
		wantNodes []string // nil: all nodes
	}{
		{"nothing to check", ``, st.Pod("p").Obj(), framework.Skip, nil},
		{"affinity without required part", ``, st.Pod("p").PreferredNodeAffinity(pref(1, labelTerm(expr("a", exists)))).Obj(), framework.Skip, nil},
		{"nodeSelector", ``, st.Pod("p").NodeSelector("zone", "a").Obj(), framework.Success, nil},
		{"empty nodeSelector still checked", ``, st.Pod("p").NodeSelector().Obj(), framework.Success, nil},
		{"added affinity", `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}`, st.Pod("p").Obj(), framework.Success, nil},
		{"label terms", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", in, "a"))).Obj(), framework.Success, nil},
		{"one named node", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n1"))).Obj(), framework.Success, []string{"n1"}},
		{"terms union", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n1")), fieldTerm(nameIs(in, "n2"))).Obj(), framework.Success, []string{"n1", "n2"}},
		{"requirements intersect", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n1", "n2"), nameIs(in, "n2", "n3"))).Obj(), framework.Success, []string{"n2"}},
		{"a term without names leaves all nodes", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n1")), labelTerm(expr("zone", exists))).Obj(), framework.Success, nil},
		{"NotIn does not narrow", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(notIn, "n1"))).Obj(), framework.Success, nil},
		{"conflicting names", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n1"), nameIs(in, "n2"))).Obj(), framework.UnschedulableAndUnresolvable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustNew(t, tt.args)
			res, s := pl.PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil)
			if s.Code() != tt.wantCode {
				t.Fatalf("PreFilter status = %v, want %v", s, tt.wantCode)
			}
			if tt.wantCode == framework.UnschedulableAndUnresolvable && s.Message() != ErrReasonConflict {
				t.Errorf("reason = %q", s.Message())
			}
			if tt.wantNodes == nil {
				if !res.AllNodes() {
					t.Errorf("result = %v, want all nodes", res.NodeNames)
				}
			} else if res.AllNodes() || !res.NodeNames.Equal(sets.New(tt.wantNodes...)) {
				t.Errorf("result = %v, want %v", res, tt.wantNodes)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	podReason := framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	enforced := framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonEnforced)
	addedZoneA := `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}}`
	tests := []struct {
		name string
		args string
		pod  *v1.Pod
		node *v1.Node
		want *framework.Status
	}{
		{"no constraints", ``, st.Pod("p").Obj(), node("n"), nil},
		{"nodeSelector matches", ``, st.Pod("p").NodeSelector("zone", "a").Obj(), node("n", "zone", "a", "x", "y"), nil},
		{"nodeSelector misses", ``, st.Pod("p").NodeSelector("zone", "a").Obj(), node("n", "zone", "b"), podReason},
		{"In", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", in, "a", "b"))).Obj(), node("n", "zone", "b"), nil},
		{"NotIn", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", notIn, "a"))).Obj(), node("n", "zone", "a"), podReason},
		{"Exists", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("gpu", exists))).Obj(), node("n", "gpu", ""), nil},
		{"DoesNotExist", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("gpu", absent))).Obj(), node("n", "gpu", "1"), podReason},
		{"Gt", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("cores", gt, "8"))).Obj(), node("n", "cores", "16"), nil},
		{"Lt", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("cores", lt, "8"))).Obj(), node("n", "cores", "16"), podReason},
		{"Gt on a non-number", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("cores", gt, "8"))).Obj(), node("n", "cores", "many"), podReason},
		{"requirements are ANDed", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", in, "a"), expr("gpu", exists))).Obj(), node("n", "zone", "a"), podReason},
		{"terms are ORed", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", in, "b")), labelTerm(expr("zone", in, "a"))).Obj(), node("n", "zone", "a"), nil},
		{"nodeSelector and affinity both needed", ``, st.Pod("p").NodeSelector("disk", "ssd").RequiredNodeAffinity(labelTerm(expr("zone", in, "a"))).Obj(), node("n", "zone", "a"), podReason},
		{"no terms match nothing", ``, st.Pod("p").RequiredNodeAffinity().Obj(), node("n"), podReason},
		{"empty term matches nothing", ``, st.Pod("p").RequiredNodeAffinity(v1.NodeSelectorTerm{}).Obj(), node("n"), podReason},
		{"metadata.name In", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n"))).Obj(), node("n"), nil},
		{"metadata.name In other", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "m"))).Obj(), node("n"), podReason},
		{"metadata.name NotIn", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(notIn, "n"))).Obj(), node("n"), podReason},
		{"unknown field key", ``, st.Pod("p").RequiredNodeAffinity(fieldTerm(v1.NodeSelectorRequirement{Key: "spec.x", Operator: in, Values: []string{"n"}})).Obj(), node("n"), podReason},
		{"label and field in one term", ``, st.Pod("p").RequiredNodeAffinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", in, "a")},
			MatchFields: []v1.NodeSelectorRequirement{nameIs(in, "n")}}).Obj(), node("n", "zone", "a"), nil},
		{"unparsable term never matches", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", "Bogus", "a"))).Obj(), node("n", "zone", "a"), podReason},
		{"unparsable term ignored when another matches", ``, st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", "Bogus")), labelTerm(expr("zone", exists))).Obj(), node("n", "zone", "a"), nil},
		{"added affinity matches", addedZoneA, st.Pod("p").Obj(), node("n", "zone", "a"), nil},
		{"added affinity misses", addedZoneA, st.Pod("p").Obj(), node("n", "zone", "b"), enforced},
		{"added affinity checked first", addedZoneA, st.Pod("p").NodeSelector("x", "y").Obj(), node("n", "zone", "b"), enforced},
		{"added matches, pod misses", addedZoneA, st.Pod("p").NodeSelector("x", "y").Obj(), node("n", "zone", "a"), podReason},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustNew(t, tt.args)
			ni := st.NodeInfo(tt.node)
			state := framework.NewCycleState()
			if _, s := pl.PreFilter(ctx, state, tt.pod, nil); s.IsSkip() {
				// Filter must still work without PreFilter state.
			} else if !s.IsSuccess() {
				t.Fatalf("PreFilter = %v", s)
			}
			if got := pl.Filter(ctx, state, tt.pod, ni); !got.Equal(tt.want) {
				t.Errorf("Filter = %v, want %v", got, tt.want)
			}
			if got := pl.Filter(ctx, framework.NewCycleState(), tt.pod, ni); !got.Equal(tt.want) {
				t.Errorf("Filter without PreFilter = %v, want %v", got, tt.want)
			}
			// The pod's own constraints must match exactly what component-helpers decides.
			upstream, _ := helpers.GetRequiredNodeAffinity(tt.pod).Match(tt.node)
			if mine := newRequiredAffinity(tt.pod).matches(tt.node); mine != upstream {
				t.Errorf("match = %v, component-helpers says %v", mine, upstream)
			}
		})
	}
	if s := mustNew(t, ``).Filter(ctx, framework.NewCycleState(), st.Pod("p").Obj(), st.NodeInfo(nil)); s.Code() != framework.Error {
		t.Errorf("missing node: %v, want Error", s)
	}
}

func TestScore(t *testing.T) {
	addedPref := `{"addedAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"preference":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}}]}}`
	nodes := []*v1.Node{node("a", "zone", "a", "gpu", "1"), node("b", "zone", "b", "gpu", "1"), node("c", "zone", "c")}
	tests := []struct {
		name     string
		args     string
		pod      *v1.Pod
		wantSkip bool
		raw      []int64
		want     []int64
	}{
		{"no preferences", ``, st.Pod("p").Obj(), true, nil, nil},
		{"one term", ``, st.Pod("p").PreferredNodeAffinity(pref(5, labelTerm(expr("zone", in, "a")))).Obj(), false, []int64{5, 0, 0}, []int64{100, 0, 0}},
		{"weights add up", ``, st.Pod("p").PreferredNodeAffinity(pref(2, labelTerm(expr("gpu", exists))), pref(6, labelTerm(expr("zone", in, "b")))).Obj(),
			false, []int64{2, 8, 0}, []int64{25, 100, 0}},
		{"only zero-weight terms skip", ``, st.Pod("p").PreferredNodeAffinity(pref(0, labelTerm(expr("gpu", exists)))).Obj(), true, nil, nil},
		{"only empty preferences skip", ``, st.Pod("p").PreferredNodeAffinity(pref(3, v1.NodeSelectorTerm{})).Obj(), true, nil, nil},
		{"zero weight ignored among others", ``, st.Pod("p").PreferredNodeAffinity(pref(0, labelTerm(expr("gpu", exists))), pref(1, labelTerm(expr("zone", in, "c")))).Obj(), false, []int64{0, 0, 1}, []int64{0, 0, 100}},
		{"field preference", ``, st.Pod("p").PreferredNodeAffinity(pref(4, fieldTerm(nameIs(in, "c")))).Obj(), false, []int64{0, 0, 4}, []int64{0, 0, 100}},
		{"added preferences only", addedPref, st.Pod("p").Obj(), false, []int64{10, 0, 0}, []int64{100, 0, 0}},
		{"added and pod preferences", addedPref, st.Pod("p").PreferredNodeAffinity(pref(30, labelTerm(expr("gpu", exists)))).Obj(), false, []int64{40, 30, 0}, []int64{100, 75, 0}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustNew(t, tt.args)
			state := framework.NewCycleState()
			s := pl.PreScore(ctx, state, tt.pod, nil)
			if s.IsSkip() != tt.wantSkip {
				t.Fatalf("PreScore = %v, want skip %v", s, tt.wantSkip)
			}
			if tt.wantSkip {
				return
			}
			scores := make(framework.NodeScoreList, len(nodes))
			for i, n := range nodes {
				got, s := pl.Score(ctx, state, tt.pod, st.NodeInfo(n))
				if !s.IsSuccess() || got != tt.raw[i] {
					t.Errorf("Score(%s) = %d, %v; want %d", n.Name, got, s, tt.raw[i])
				}
				if fallback, _ := pl.Score(ctx, framework.NewCycleState(), tt.pod, st.NodeInfo(n)); fallback != got {
					t.Errorf("Score(%s) without PreScore = %d, want %d", n.Name, fallback, got)
				}
				scores[i] = framework.NodeScore{Name: n.Name, Score: got}
			}
			pl.ScoreExtensions().NormalizeScore(ctx, state, tt.pod, scores)
			for i := range scores {
				if scores[i].Score != tt.want[i] {
					t.Errorf("normalized %s = %d, want %d", scores[i].Name, scores[i].Score, tt.want[i])
				}
			}
		})
	}
	bad := st.Pod("p").PreferredNodeAffinity(pref(1, labelTerm(expr("zone", "Bogus")))).Obj()
	if s := mustNew(t, ``).PreScore(ctx, framework.NewCycleState(), bad, nil); s.Code() != framework.Error {
		t.Errorf("PreScore of an unparsable preference = %v, want Error", s)
	}
}

func TestQueueingHints(t *testing.T) {
	addedZoneA := `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}}`
	p := st.Pod("p").NodeSelector("gpu", "1").Obj()
	tests := []struct {
		name     string
		args     string
		old, cur any
		want     framework.QueueingHint
	}{
		{"matching node added", ``, nil, node("n", "gpu", "1"), framework.Queue},
		{"other node added", ``, nil, node("n"), framework.QueueSkip},
		{"label added", ``, node("n"), node("n", "gpu", "1"), framework.Queue},
		{"already matched", ``, node("n", "gpu", "1"), node("n", "gpu", "1", "x", "y"), framework.QueueSkip},
		{"label removed", ``, node("n", "gpu", "1"), node("n"), framework.QueueSkip},
		{"node misses added affinity", addedZoneA, nil, node("n", "gpu", "1"), framework.QueueSkip},
		{"node now matches added affinity", addedZoneA, node("n", "gpu", "1"), node("n", "gpu", "1", "zone", "a"), framework.Queue},
		{"wrong type", ``, nil, st.Pod("p").Obj(), framework.Queue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustNew(t, tt.args)
			evs, _ := pl.EventsToRegister(context.Background())
			if len(evs) != 1 || evs[0].Event != (framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}) {
				t.Fatalf("events = %+v", evs)
			}
			got, _ := evs[0].QueueingHintFn(logr.Discard(), p, tt.old, tt.cur)
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkFilter(b *testing.B) {
	pl := mustNew(b, ``)
	p := st.Pod("p").NodeSelector("disk", "ssd").RequiredNodeAffinity(labelTerm(expr("zone", in, "a", "b")), fieldTerm(nameIs(in, "other"))).Obj()
	ni := st.NodeInfo(node("n", "zone", "b", "disk", "ssd", "kubernetes.io/hostname", "n"))
	ctx, state := context.Background(), framework.NewCycleState()
	pl.PreFilter(ctx, state, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if s := pl.Filter(ctx, state, p, ni); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	pl := mustNew(b, ``)
	p := st.Pod("p").PreferredNodeAffinity(pref(2, labelTerm(expr("zone", in, "a"))), pref(3, fieldTerm(nameIs(in, "n"))), pref(1, labelTerm(expr("cores", gt, "4")))).Obj()
	ni := st.NodeInfo(node("n", "zone", "a", "cores", "8"))
	ctx, state := context.Background(), framework.NewCycleState()
	pl.PreScore(ctx, state, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if got, _ := pl.Score(ctx, state, p, ni); got != 6 {
			b.Fatal(got)
		}
	}
}
