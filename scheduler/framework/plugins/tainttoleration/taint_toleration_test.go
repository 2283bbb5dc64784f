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

package tainttoleration

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	noSched  = v1.TaintEffectNoSchedule
	noExec   = v1.TaintEffectNoExecute
	prefer   = v1.TaintEffectPreferNoSchedule
	anyValue = ""
)

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), nil, nil); err != nil {
		t.Errorf("no args: %v", err)
	}
	if _, err := New(context.Background(), []byte(`{}`), nil); err != nil {
		t.Errorf("empty args: %v", err)
	}
	if _, err := New(context.Background(), []byte(`{"x":1}`), nil); err == nil {
		t.Error("unknown field: want error")
	}
}

func TestFilter(t *testing.T) {
	untolerated := framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUntolerated)
	tests := []struct {
		name string
		pod  *v1.Pod
		node *v1.Node
		want *framework.Status
	}{
		{"no taints", pod(), node("n"), nil},
		{"NoSchedule not tolerated", pod(), node("n", taint("dedicated", "gpu", noSched)), untolerated},
		{"NoExecute not tolerated", pod(), node("n", taint("dedicated", "gpu", noExec)), untolerated},
		{"PreferNoSchedule ignored", pod(), node("n", taint("dedicated", "gpu", prefer)), nil},
		{"tolerated by key, value and effect", pod(tol("dedicated", "gpu", noSched)), node("n", taint("dedicated", "gpu", noSched)), nil},
		{"toleration without effect tolerates every effect", pod(tol("dedicated", "gpu", "")),
			node("n", taint("dedicated", "gpu", noSched), taint("dedicated", "gpu", noExec)), nil},
		{"value mismatch", pod(tol("dedicated", "cpu", noSched)), node("n", taint("dedicated", "gpu", noSched)), untolerated},
		{"effect mismatch", pod(tol("dedicated", "gpu", noExec)), node("n", taint("dedicated", "gpu", noSched)), untolerated},
		{"Exists tolerates any value", pod(v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpExists}),
			node("n", taint("dedicated", "anything", noSched)), nil},
		{"empty key Exists tolerates all", pod(v1.Toleration{Operator: v1.TolerationOpExists}),
			node("n", taint("a", "1", noSched), taint("b", anyValue, noExec)), nil},
		{"one of two taints untolerated", pod(tol("a", "1", noSched)),
			node("n", taint("a", "1", noSched), taint("b", "2", noSched)), untolerated},
	}
	pl := &TaintToleration{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pl.Filter(context.Background(), framework.NewCycleState(), tt.pod, st.NodeInfo(tt.node))
			if !got.Equal(tt.want) {
				t.Errorf("Filter = %v, want %v", got, tt.want)
			}
		})
	}
	if got := pl.Filter(context.Background(), nil, pod(), st.NodeInfo(nil)); got.Code() != framework.Error {
		t.Errorf("missing node: %v, want Error", got)
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		raw   []int64
		want  []int64
	}{
		{"no taints anywhere", pod(), []*v1.Node{node("a"), node("b")}, []int64{0, 0}, []int64{100, 100}},
		{"fewer soft taints score higher", pod(),
			[]*v1.Node{node("a"), node("b", taint("x", "1", prefer)), node("c", taint("x", "1", prefer), taint("y", "1", prefer)), node("d", taint("x", "1", prefer), taint("y", "1", prefer), taint("z", "1", prefer), taint("w", "1", prefer))},
			[]int64{0, 1, 2, 4}, []int64{100, 75, 50, 0}},
		{"hard taints do not count", pod(), []*v1.Node{node("a", taint("x", "1", noSched)), node("b", taint("x", "1", prefer))},
			[]int64{0, 1}, []int64{100, 0}},
		{"tolerated soft taints do not count", pod(tol("x", "1", prefer)),
			[]*v1.Node{node("a", taint("x", "1", prefer)), node("b", taint("y", "1", prefer))}, []int64{0, 1}, []int64{100, 0}},
		{"toleration without effect counts", pod(tol("x", "1", "")),
			[]*v1.Node{node("a", taint("x", "1", prefer))}, []int64{0}, []int64{100}},
		{"NoSchedule toleration does not tolerate soft taint", pod(tol("x", "1", noSched)),
			[]*v1.Node{node("a", taint("x", "1", prefer)), node("b")}, []int64{1, 0}, []int64{0, 100}},
		{"every node equally tainted", pod(),
			[]*v1.Node{node("a", taint("x", "1", prefer)), node("b", taint("y", "1", prefer))}, []int64{1, 1}, []int64{0, 0}},
	}
	pl := &TaintToleration{}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			if s := pl.PreScore(ctx, state, tt.pod, nil); !s.IsSuccess() {
				t.Fatalf("PreScore = %v", s)
			}
			scoreNode, s := pl.NodeScorer(ctx, state, tt.pod)
			if !s.IsSuccess() {
				t.Fatalf("NodeScorer = %v", s)
			}
			scores := make(framework.NodeScoreList, len(tt.nodes))
			for i, n := range tt.nodes {
				got, s := pl.Score(ctx, state, tt.pod, st.NodeInfo(n))
				if !s.IsSuccess() {
					t.Fatalf("Score(%s) = %v", n.Name, s)
				}
				if got != tt.raw[i] {
					t.Errorf("Score(%s) = %d, want %d", n.Name, got, tt.raw[i])
				}
				if viaScorer, s := scoreNode(st.NodeInfo(n)); viaScorer != got || !s.IsSuccess() {
					t.Errorf("NodeScorer's score of %s = %d, %v; want %d", n.Name, viaScorer, s, got)
				}
				scores[i] = framework.NodeScore{Name: n.Name, Score: got}
			}
			if s := pl.ScoreExtensions().NormalizeScore(ctx, state, tt.pod, scores); !s.IsSuccess() {
				t.Fatalf("NormalizeScore = %v", s)
			}
			for i := range scores {
				if scores[i].Score != tt.want[i] {
					t.Errorf("normalized %s = %d, want %d", scores[i].Name, scores[i].Score, tt.want[i])
				}
			}
		})
	}
	if _, s := pl.Score(ctx, framework.NewCycleState(), pod(), st.NodeInfo(node("a"))); s.Code() != framework.Error {
		t.Errorf("Score without PreScore = %v, want Error", s)
	}
	if _, s := pl.NodeScorer(ctx, framework.NewCycleState(), pod()); s.Code() != framework.Error {
		t.Errorf("NodeScorer without PreScore = %v, want Error", s)
	}
}

func TestQueueingHints(t *testing.T) {
	pl := &TaintToleration{}
	evs, _ := pl.EventsToRegister(context.Background())
	if len(evs) != 2 || evs[0].Event.Resource != framework.Node || evs[0].Event.ActionType != framework.Add|framework.UpdateNodeTaint ||
		evs[1].Event.Resource != framework.UnscheduledPod || evs[1].Event.ActionType != framework.UpdatePodToleration {
		t.Fatalf("events = %+v", evs)
	}
	nodeHint, podHint := evs[0].QueueingHintFn, evs[1].QueueingHintFn
	p := pod(tol("a", "1", noSched))
	tainted, tolerated, clean := node("n", taint("b", "1", noSched)), node("n", taint("a", "1", noSched)), node("n")
	soft := node("n", taint("b", "1", prefer))
	tests := []struct {
		name     string
		fn       framework.QueueingHintFn
		old, cur any
		want     framework.QueueingHint
	}{
		{"clean node added", nodeHint, nil, clean, framework.Queue},
		{"tolerated node added", nodeHint, nil, tolerated, framework.Queue},
		{"untolerated node added", nodeHint, nil, tainted, framework.QueueSkip},
		{"taint removed", nodeHint, tainted, clean, framework.Queue},
		{"taint replaced by tolerated one", nodeHint, tainted, tolerated, framework.Queue},
		{"taint replaced by soft one", nodeHint, tainted, soft, framework.Queue},
		{"taint added", nodeHint, clean, tainted, framework.QueueSkip},
		{"already tolerated", nodeHint, tolerated, clean, framework.QueueSkip},
		{"wrong object type", nodeHint, nil, p, framework.Queue},
		{"pod's tolerations changed", podHint, p, pod(tol("a", "1", noSched), tol("b", "1", noSched)), framework.Queue},
		{"another pod's tolerations changed", podHint, p, st.Pod("q").Obj(), framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.fn(logr.Discard(), p, tt.old, tt.cur)
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkFilter(b *testing.B) {
	pl := &TaintToleration{}
	p := pod(tol("a", "1", noSched), v1.Toleration{Key: "b", Operator: v1.TolerationOpExists})
	ni := st.NodeInfo(node("n", taint("a", "1", noSched), taint("b", "2", noExec), taint("c", "3", prefer)))
	ctx, state := context.Background(), framework.NewCycleState()
	b.ReportAllocs()
	for b.Loop() {
		if s := pl.Filter(ctx, state, p, ni); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	pl := &TaintToleration{}
	p := pod(tol("a", "1", prefer))
	ni := st.NodeInfo(node("n", taint("a", "1", prefer), taint("b", "2", prefer), taint("c", "3", noSched)))
	ctx, state := context.Background(), framework.NewCycleState()
	pl.PreScore(ctx, state, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, s := pl.Score(ctx, state, p, ni); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}
