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

package noderesources

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// node returns a NodeInfo of a node with the allocatable pairs holding the pods.
func node(alloc []string, pods ...*v1.Pod) *framework.NodeInfo {
	return st.NodeInfo(st.Node("n").Alloc(alloc...).Obj(), pods...)
}

// alloc is shorthand for name/quantity pairs.
func alloc(pairs ...string) []string { return pairs }

// pod returns a pod with one container requesting the pairs.
func pod(pairs ...string) *v1.Pod { return st.Pod("p").Container(pairs...).Obj() }

// assigned returns a pod named name on node n requesting the pairs.
func assigned(name string, pairs ...string) *v1.Pod {
	return st.Pod(name).NodeName("n").Container(pairs...).Obj()
}

func mustFit(t testing.TB, raw string) *Fit {
	t.Helper()
	pl, err := NewFit(context.Background(), []byte(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*Fit)
}

func mustBalanced(t testing.TB, raw string) *BalancedAllocation {
	t.Helper()
	pl, err := NewBalancedAllocation(context.Background(), []byte(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*BalancedAllocation)
}

func filter(pl *Fit, p *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	ctx, state := context.Background(), framework.NewCycleState()
	if _, status := pl.PreFilter(ctx, state, p, nil); !status.IsSuccess() {
		return status
	}
	return pl.Filter(ctx, state, p, ni)
}

type scorer interface {
	framework.PreScorePlugin
	framework.ScorePlugin
}

func score(t *testing.T, pl scorer, p *v1.Pod, ni *framework.NodeInfo) int64 {
	t.Helper()
	ctx, state := context.Background(), framework.NewCycleState()
	if status := pl.PreScore(ctx, state, p, []*framework.NodeInfo{ni}); !status.IsSuccess() {
		t.Fatalf("PreScore: %v", status)
	}
	s, status := pl.Score(ctx, state, p, ni)
	if !status.IsSuccess() {
		t.Fatalf("Score: %v", status)
	}
	// The runtime scores through NodeScorer: it must agree with Score.
	if cs, ok := pl.(framework.CycleScorePlugin); ok {
		scoreNode, status := cs.NodeScorer(ctx, state, p)
		if !status.IsSuccess() {
			t.Fatalf("NodeScorer: %v", status)
		}
		if got, status := scoreNode(ni); got != s || !status.IsSuccess() {
			t.Errorf("NodeScorer's score = %d, %v; Score gave %d", got, status, s)
		}
	}
	return s
}
