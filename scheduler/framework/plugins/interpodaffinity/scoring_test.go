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
)

// scoreAll runs PreScore, Score on every node and NormalizeScore; it returns
// the raw and normalized scores in node order, or nil ones after a Skip.
func scoreAll(t *testing.T, pl *InterPodAffinity, pod *v1.Pod, nodes []*framework.NodeInfo) (raw, norm []int64) {
	t.Helper()
	ctx, state := context.Background(), framework.NewCycleState()
	st := pl.PreScore(ctx, state, pod, nodes)
	if st.IsSkip() {
		return nil, nil
	}
	if !st.IsSuccess() {
		t.Fatalf("PreScore: %v", st)
	}
	list := make(framework.NodeScoreList, len(nodes))
	for i, ni := range nodes {
		s, st := pl.Score(ctx, state, pod, ni)
		if !st.IsSuccess() {
			t.Fatalf("Score %s: %v", ni.Node().Name, st)
		}
		list[i] = framework.NodeScore{Name: ni.Node().Name, Score: s}
		raw = append(raw, s)
	}
	if st := pl.ScoreExtensions().NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", st)
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
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e", "app", "web").on("n1").obj()},
		},
		{
			name:     "preferred affinity favours the matching pod's zone",
			pod:      makePod("p").prefer(5, sel(zoneKey, "app", "web")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "web").on("n1").obj()},
			wantRaw:  []int64{5, 5, 0, 0},
			wantNorm: []int64{100, 100, 0, 0},
		},
		{
			name:     "preferred anti-affinity gives negative raw scores",
			pod:      makePod("p").avoid(3, sel(zoneKey, "app", "db")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "db").on("n3").obj()},
			wantRaw:  []int64{0, 0, -3, 0},
			wantNorm: []int64{100, 100, 0, 100},
		},
		{
			name: "affinity and anti-affinity add up per domain",
			pod:  makePod("p").prefer(10, sel(zoneKey, "app", "web")).avoid(4, sel(hostKey, "app", "db")).obj(),
			existing: []*v1.Pod{
				makePod("e1", "app", "web").on("n1").obj(),
				makePod("e2", "app", "web").on("n2").obj(),
				makePod("e3", "app", "db").on("n2").obj(),
				makePod("e4", "app", "db").on("n3").obj(),
			},
			wantRaw:  []int64{20, 16, -4, 0},
			wantNorm: []int64{100, 83, 0, 16},
		},
		{
			name:     "preferred terms select namespaces by label",
			pod:      makePod("p").prefer(5, sel(zoneKey, "app", "web").nsSel("team", "a")).obj(),
			existing: []*v1.Pod{makePod("e1", "app", "web").ns("team-b").on("n1").obj(), makePod("e2", "app", "web").ns("team-a").on("n3").obj()},
			wantRaw:  []int64{0, 0, 5, 0},
			wantNorm: []int64{0, 0, 100, 0},
		},
		{
			name:     "existing pods' preferred affinity to the pod",
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e").on("n3").prefer(7, sel(zoneKey, "app", "web")).avoid(2, sel(hostKey, "app", "web")).obj()},
			wantRaw:  []int64{0, 0, 5, 0},
			wantNorm: []int64{0, 0, 100, 0},
		},
		{
			name:     "existing pods' preferred terms ignored when the pod has none",
			args:     `{"ignorePreferredTermsOfExistingPods":true}`,
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e").on("n3").prefer(7, sel(zoneKey, "app", "web")).obj()},
		},
		{
			name:     "existing pods' preferred terms still count when the pod has its own",
			args:     `{"ignorePreferredTermsOfExistingPods":true}`,
			pod:      makePod("p", "app", "web").prefer(1, sel(hostKey, "app", "x")).obj(),
			existing: []*v1.Pod{makePod("e").on("n3").prefer(7, sel(zoneKey, "app", "web")).obj()},
			wantRaw:  []int64{0, 0, 7, 0},
			wantNorm: []int64{0, 0, 100, 0},
		},
		{
			name:     "existing pods' required affinity weighs the default 1",
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e").on("n1").affinity(sel(zoneKey, "app", "web")).obj()},
			wantRaw:  []int64{1, 1, 0, 0},
			wantNorm: []int64{100, 100, 0, 0},
		},
		{
			name:     "existing pods' required affinity weighs hardPodAffinityWeight",
			args:     `{"hardPodAffinityWeight":30}`,
			pod:      makePod("p", "app", "web").prefer(10, sel(hostKey, "app", "db")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "db").on("n1").affinity(sel(zoneKey, "app", "web")).obj()},
			wantRaw:  []int64{40, 30, 0, 0},
			wantNorm: []int64{100, 75, 0, 0},
		},
		{
			name:     "hardPodAffinityWeight 0 turns required affinity scoring off",
			args:     `{"hardPodAffinityWeight":0}`,
			pod:      makePod("p", "app", "web").obj(),
			existing: []*v1.Pod{makePod("e").on("n1").affinity(sel(zoneKey, "app", "web")).obj()},
		},
		{
			name:     "existing pod's terms select the pod's namespace by its labels",
			pod:      makePod("p", "app", "web").ns("team-a").obj(),
			existing: []*v1.Pod{makePod("e").on("n1").prefer(9, sel(zoneKey, "app", "web").nsSel("team", "a")).obj(), makePod("f").on("n3").prefer(9, sel(zoneKey, "app", "web").nsSel("team", "b")).obj()},
			wantRaw:  []int64{9, 9, 0, 0},
			wantNorm: []int64{100, 100, 0, 0},
		},
		{
			name:     "matches that cancel out still score, all equal",
			pod:      makePod("p").prefer(5, sel(zoneKey, "app", "web")).avoid(5, sel(zoneKey, "tier", "fe")).obj(),
			existing: []*v1.Pod{makePod("e", "app", "web", "tier", "fe").on("n1").obj()},
			wantRaw:  []int64{0, 0, 0, 0},
			wantNorm: []int64{0, 0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			infos := cluster(standardNodes(), tt.existing...)
			pl := newPlugin(t, tt.args, newHandle(t, concurrent{}, infos, nss...))
			raw, norm := scoreAll(t, pl, tt.pod, infos)
			if !slices.Equal(raw, tt.wantRaw) || !slices.Equal(norm, tt.wantNorm) {
				t.Errorf("raw %v normalized %v, want %v %v", raw, norm, tt.wantRaw, tt.wantNorm)
			}
		})
	}
}

// TestPreScoreScansInfeasibleNodes checks that pods on nodes Filter rejected still count.
func TestPreScoreScansInfeasibleNodes(t *testing.T) {
	infos := cluster(standardNodes(), makePod("e", "app", "web").on("n2").obj())
	pl := newPlugin(t, "", newHandle(t, serial{}, infos))
	pod := makePod("p").prefer(5, sel(zoneKey, "app", "web")).obj()
	state := framework.NewCycleState()
	if st := pl.PreScore(context.Background(), state, pod, infos[:1]); !st.IsSuccess() {
		t.Fatal(st)
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
			if st := pl.NormalizeScore(context.Background(), state, nil, list); !st.IsSuccess() {
				t.Fatal(st)
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
	infos := cluster(standardNodes())
	pl := newPlugin(t, "", newHandle(t, serial{}, infos))
	if _, st := pl.Score(context.Background(), framework.NewCycleState(), makePod("p").obj(), infos[0]); st.Code() != framework.Error {
		t.Errorf("Score: got %v, want Error", st)
	}
	if st := pl.NormalizeScore(context.Background(), framework.NewCycleState(), makePod("p").obj(), nil); st.Code() != framework.Error {
		t.Errorf("NormalizeScore: got %v, want Error", st)
	}
}
