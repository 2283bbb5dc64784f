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

func TestFitScore(t *testing.T) {
	n4x8 := alloc("cpu", "4", "memory", "8Gi", "pods", "10")
	const (
		most   = `{"scoringStrategy":{"type":"MostAllocated"}}`
		ratio  = `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}`
		spread = `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":10},{"utilization":100,"score":0}]}}}`
		peak   = `{"scoringStrategy":{"type":"RequestedToCapacityRatio","resources":[{"name":"cpu","weight":2},{"name":"memory","weight":1}],` +
			`"requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":50,"score":10},{"utilization":100,"score":0}]}}}`
		flatStart = `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":10,"score":0},{"utilization":100,"score":10}]}}}`
		gpuMost   = `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu"},{"name":"example.com/gpu"}]}}`
	)
	tests := []struct {
		name string
		args string
		pod  *v1.Pod
		ni   *framework.NodeInfo
		want int64
	}{
		{"least: empty node", "", pod("cpu", "1", "memory", "2Gi"), node(n4x8), 75},
		{"least: zero-request pod counts defaults", "", st.Pod("p").Container().Obj(), node(n4x8), 97},
		{"least: best-effort pods on node count defaults", "", pod("cpu", "400m"),
			node(alloc("cpu", "1", "memory", "1000Mi"), assigned("a")), 55},
		{"least: full node", "", pod("cpu", "1", "memory", "1Gi"), node(n4x8, assigned("a", "cpu", "4", "memory", "8Gi")), 0},
		{"least: node without allocatable", "", pod("cpu", "1"), st.NodeInfo(nil), 0},
		{"most: empty node", most, pod("cpu", "1", "memory", "2Gi"), node(n4x8), 25},
		{"most: overcommitted node capped", most, pod("cpu", "1", "memory", "1Gi"), node(n4x8, assigned("a", "cpu", "4", "memory", "8Gi")), 100},
		{"most: weighted", `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":3},{"name":"memory","weight":1}]}}`,
			pod("cpu", "2", "memory", "2Gi"), node(n4x8), 43},
		{"ratio: linear up", ratio, pod("cpu", "1", "memory", "2Gi"), node(n4x8), 25},
		{"ratio: linear down", spread, pod("cpu", "1", "memory", "2Gi"), node(n4x8), 75},
		{"ratio: peak with weights rounds", peak, pod("cpu", "2", "memory", "1Gi"), node(n4x8), 75},
		{"ratio: overcommit is 100%", spread, pod("cpu", "1", "memory", "1Gi"), node(n4x8, assigned("a", "cpu", "4", "memory", "8Gi")), 0},
		{"ratio: zero-score resource left out of mean", flatStart, pod("cpu", "2"), node(n4x8), 44},
		{"extended: unrequested resource skipped", gpuMost, pod("cpu", "2"), node(alloc("cpu", "4", "example.com/gpu", "4")), 50},
		{"extended: requested resource scored", gpuMost, pod("cpu", "2", "example.com/gpu", "1"), node(alloc("cpu", "4", "example.com/gpu", "4")), 37},
		{"extended: node lacking resource skipped", gpuMost, pod("cpu", "2", "example.com/gpu", "1"), node(alloc("cpu", "4")), 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustFit(t, tt.args)
			if got := score(t, pl, tt.pod, tt.ni); got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
			// Without PreScore the plugin computes the requests itself.
			got, status := pl.Score(context.Background(), framework.NewCycleState(), tt.pod, tt.ni)
			if !status.IsSuccess() || got != tt.want {
				t.Errorf("Score without PreScore = %d, %v; want %d", got, status, tt.want)
			}
		})
	}
}

func TestBalancedAllocationScore(t *testing.T) {
	const three = `{"resources":[{"name":"cpu"},{"name":"memory"},{"name":"ephemeral-storage"}]}`
	const withGPU = `{"resources":[{"name":"cpu"},{"name":"memory"},{"name":"example.com/gpu"}]}`
	tests := []struct {
		name string
		args string
		pod  *v1.Pod
		ni   *framework.NodeInfo
		want int64
	}{
		{"two resources, empty node", "", pod("cpu", "1", "memory", "5000"), node(alloc("cpu", "4", "memory", "10000")), 68},
		{"three resources, empty node", three, pod("cpu", "1", "memory", "5000", "ephemeral-storage", "750"),
			node(alloc("cpu", "4", "memory", "10000", "ephemeral-storage", "1000")), 64},
		{"pod restores balance", "", pod("memory", "5000"),
			node(alloc("cpu", "4", "memory", "10000"), assigned("a", "cpu", "2")), 87},
		{"overcommitted fraction capped at 1", "", pod("cpu", "1"),
			node(alloc("cpu", "1", "memory", "10000"), assigned("a", "cpu", "1")), 75},
		{"unrequested extended resource skipped", withGPU, pod("cpu", "1", "memory", "5000"),
			node(alloc("cpu", "4", "memory", "10000", "example.com/gpu", "4")), 68},
		{"requested extended resource balanced", withGPU, pod("cpu", "1", "memory", "5000", "example.com/gpu", "3"),
			node(alloc("cpu", "4", "memory", "10000", "example.com/gpu", "4")), 64},
		{"node without allocatable", "", pod("cpu", "1"), st.NodeInfo(nil), 75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustBalanced(t, tt.args)
			if got := score(t, pl, tt.pod, tt.ni); got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBalancedAllocationSkipsBestEffort(t *testing.T) {
	pl := mustBalanced(t, "")
	p := st.Pod("p").Container().Obj()
	ni := node(alloc("cpu", "4", "memory", "10000"))
	if status := pl.PreScore(context.Background(), framework.NewCycleState(), p, []*framework.NodeInfo{ni}); !status.IsSkip() {
		t.Errorf("PreScore = %v, want Skip", status)
	}
	if s, status := pl.Score(context.Background(), framework.NewCycleState(), p, ni); s != 0 || !status.IsSuccess() {
		t.Errorf("Score without PreScore = %d, %v; want 0", s, status)
	}
	scoreNode, status := pl.NodeScorer(context.Background(), framework.NewCycleState(), p)
	if !status.IsSuccess() {
		t.Fatalf("NodeScorer = %v", status)
	}
	if s, status := scoreNode(ni); s != 0 || !status.IsSuccess() {
		t.Errorf("NodeScorer without PreScore scored %d, %v; want 0", s, status)
	}
}
