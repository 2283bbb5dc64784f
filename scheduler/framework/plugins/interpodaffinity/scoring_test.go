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
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// scoreAll runs PreScore, Score on every node and NormalizeScore; it returns
// the raw and normalized scores in node order, or nil ones after a Skip.
func scoreAll(t *testing.T, pl *InterPodAffinity, pod *v1.Pod, nodes []*framework.NodeInfo) (raw, norm []int64) {
	t.Helper()
	ctx, state := context.Background(), framework.NewCycleState()
	status := pl.PreScore(ctx, state, pod, nodes)
	if status.IsSkip() {
		return nil, nil
	}
	if !status.IsSuccess() {
		t.Fatalf("PreScore: %v", status)
	}
	list := make(framework.NodeScoreList, len(nodes))
	for i, ni := range nodes {
		s, status := pl.Score(ctx, state, pod, ni)
		if !status.IsSuccess() {
			t.Fatalf("Score %s: %v", ni.Node().Name, status)
		}
		list[i] = framework.NodeScore{Name: ni.Node().Name, Score: s}
		raw = append(raw, s)
	}
	if status := pl.ScoreExtensions().NormalizeScore(ctx, state, pod, list); !status.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", status)
	}
	for _, s := range list {
		norm = append(norm, s.Score)
	}
	return raw, norm
}

func TestScore(t *testing.T) {
	nss := []*v1.Namespace{namespace("default"), namespace("team-a", "team", "a"), namespace("team-b", "team", "b")}
	// Nodes in order n1 (z1), n2 (z1), n3 (z2), n4 (no zone).
	tests := []struct {
		name     string
		args     string
		pod      *v1.Pod
		existing []*v1.Pod
		wantRaw  []int64 // nil means PreScore skips
		wantNorm []int64
	}{
		{
			name:     "nothing to score: skip",
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web").NodeName("n1").Obj()},
		},
		{
			name:     "preferred affinity favours the matching pod's zone",
			pod:      st.Pod("p").PreferPodAffinity(5, st.Term(zoneKey, "app", "web")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web").NodeName("n1").Obj()},
			wantRaw:  []int64{5, 5, 0, 0},
			wantNorm: []int64{100, 100, 0, 0},
		},
		{
			name:     "preferred anti-affinity gives negative raw scores",
			pod:      st.Pod("p").PreferPodAntiAffinity(3, st.Term(zoneKey, "app", "db")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "db").NodeName("n3").Obj()},
			wantRaw:  []int64{0, 0, -3, 0},
			wantNorm: []int64{100, 100, 0, 100},
		},
		{
			name: "affinity and anti-affinity add up per domain",
			pod:  st.Pod("p").PreferPodAffinity(10, st.Term(zoneKey, "app", "web")).PreferPodAntiAffinity(4, st.Term(hostKey, "app", "db")).Obj(),
			existing: []*v1.Pod{
				st.Pod("e1").Labels("app", "web").NodeName("n1").Obj(),
				st.Pod("e2").Labels("app", "web").NodeName("n2").Obj(),
				st.Pod("e3").Labels("app", "db").NodeName("n2").Obj(),
				st.Pod("e4").Labels("app", "db").NodeName("n3").Obj(),
			},
			wantRaw:  []int64{20, 16, -4, 0},
			wantNorm: []int64{100, 83, 0, 16},
		},
		{
			name:     "preferred terms select namespaces by label",
			pod:      st.Pod("p").PreferPodAffinity(5, st.Term(zoneKey, "app", "web").NamespaceSelector("team", "a")).Obj(),
			existing: []*v1.Pod{st.Pod("e1").Labels("app", "web").Namespace("team-b").NodeName("n1").Obj(), st.Pod("e2").Labels("app", "web").Namespace("team-a").NodeName("n3").Obj()},
			wantRaw:  []int64{0, 0, 5, 0},
			wantNorm: []int64{0, 0, 100, 0},
		},
		{
			name:     "existing pods' preferred affinity to the pod",
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n3").PreferPodAffinity(7, st.Term(zoneKey, "app", "web")).PreferPodAntiAffinity(2, st.Term(hostKey, "app", "web")).Obj()},
			wantRaw:  []int64{0, 0, 5, 0},
			wantNorm: []int64{0, 0, 100, 0},
		},
		{
			name:     "existing pods' preferred terms ignored when the pod has none",
			args:     `{"ignorePreferredTermsOfExistingPods":true}`,
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n3").PreferPodAffinity(7, st.Term(zoneKey, "app", "web")).Obj()},
		},
		{
			name:     "existing pods' preferred terms still count when the pod has its own",
			args:     `{"ignorePreferredTermsOfExistingPods":true}`,
			pod:      st.Pod("p").Labels("app", "web").PreferPodAffinity(1, st.Term(hostKey, "app", "x")).Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n3").PreferPodAffinity(7, st.Term(zoneKey, "app", "web")).Obj()},
			wantRaw:  []int64{0, 0, 7, 0},
			wantNorm: []int64{0, 0, 100, 0},
		},
		{
			name:     "existing pods' required affinity weighs the default 1",
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n1").PodAffinity(st.Term(zoneKey, "app", "web")).Obj()},
			wantRaw:  []int64{1, 1, 0, 0},
			wantNorm: []int64{100, 100, 0, 0},
		},
		{
			name:     "existing pods' required affinity weighs hardPodAffinityWeight",
			args:     `{"hardPodAffinityWeight":30}`,
			pod:      st.Pod("p").Labels("app", "web").PreferPodAffinity(10, st.Term(hostKey, "app", "db")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "db").NodeName("n1").PodAffinity(st.Term(zoneKey, "app", "web")).Obj()},
			wantRaw:  []int64{40, 30, 0, 0},
			wantNorm: []int64{100, 75, 0, 0},
		},
		{
			name:     "hardPodAffinityWeight 0 turns required affinity scoring off",
			args:     `{"hardPodAffinityWeight":0}`,
			pod:      st.Pod("p").Labels("app", "web").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n1").PodAffinity(st.Term(zoneKey, "app", "web")).Obj()},
		},
		{
			name:     "existing pod's terms select the pod's namespace by its labels",
			pod:      st.Pod("p").Labels("app", "web").Namespace("team-a").Obj(),
			existing: []*v1.Pod{st.Pod("e").NodeName("n1").PreferPodAffinity(9, st.Term(zoneKey, "app", "web").NamespaceSelector("team", "a")).Obj(), st.Pod("f").NodeName("n3").PreferPodAffinity(9, st.Term(zoneKey, "app", "web").NamespaceSelector("team", "b")).Obj()},
			wantRaw:  []int64{9, 9, 0, 0},
			wantNorm: []int64{100, 100, 0, 0},
		},
		{
			name:     "matches that cancel out still score, all equal",
			pod:      st.Pod("p").PreferPodAffinity(5, st.Term(zoneKey, "app", "web")).PreferPodAntiAffinity(5, st.Term(zoneKey, "tier", "fe")).Obj(),
			existing: []*v1.Pod{st.Pod("e").Labels("app", "web", "tier", "fe").NodeName("n1").Obj()},
			wantRaw:  []int64{0, 0, 0, 0},
			wantNorm: []int64{0, 0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			infos := st.NodeInfos(standardNodes(), tt.existing...)
			pl := newPlugin(t, tt.args, newHandle(t, st.Concurrent{}, infos, nss...))
			raw, norm := scoreAll(t, pl, tt.pod, infos)
			if !slices.Equal(raw, tt.wantRaw) || !slices.Equal(norm, tt.wantNorm) {
				t.Errorf("raw %v normalized %v, want %v %v", raw, norm, tt.wantRaw, tt.wantNorm)
			}
		})
	}
}

// TestPreScoreScansInfeasibleNodes checks that pods on nodes Filter rejected still count.
func TestPreScoreScansInfeasibleNodes(t *testing.T) {
	infos := st.NodeInfos(standardNodes(), st.Pod("e").Labels("app", "web").NodeName("n2").Obj())
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, infos))
	pod := st.Pod("p").PreferPodAffinity(5, st.Term(zoneKey, "app", "web")).Obj()
	state := framework.NewCycleState()
	if status := pl.PreScore(context.Background(), state, pod, infos[:1]); !status.IsSuccess() {
		t.Fatal(status)
	}
	if s, _ := pl.Score(context.Background(), state, pod, infos[0]); s != 5 {
		t.Errorf("n1 scored %d, want 5", s)
	}
}

func TestNormalizeScore(t *testing.T) {
	tests := []struct {
		name     string
		in, want []int64
	}{
		{"all equal", []int64{7, 7, 7}, []int64{0, 0, 0}},
		{"all zero", []int64{0, 0}, []int64{0, 0}},
		{"positive", []int64{0, 5, 10}, []int64{0, 50, 100}},
		{"negative", []int64{-10, -5, 0}, []int64{0, 50, 100}},
		{"all negative", []int64{-9, -3}, []int64{0, 100}},
		{"mixed, rounding down", []int64{-1, 0, 2}, []int64{0, 33, 100}},
		{"single node", []int64{-4}, []int64{0}},
		{"none", nil, nil},
	}
	pl := &InterPodAffinity{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			state.Write(preScoreKey, &scoreState{domains: []keyScores{{key: zoneKey}}})
			list := make(framework.NodeScoreList, len(tt.in))
			for i, s := range tt.in {
				list[i].Score = s
			}
			if status := pl.NormalizeScore(context.Background(), state, nil, list); !status.IsSuccess() {
				t.Fatal(status)
			}
			var got []int64
			for _, s := range list {
				got = append(got, s.Score)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScoreWithoutPreScoreState(t *testing.T) {
	infos := st.NodeInfos(standardNodes())
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, infos))
	if _, status := pl.Score(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), infos[0]); status.Code() != framework.Error {
		t.Errorf("Score: got %v, want Error", status)
	}
	if status := pl.NormalizeScore(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nil); status.Code() != framework.Error {
		t.Errorf("NormalizeScore: got %v, want Error", status)
	}
}
