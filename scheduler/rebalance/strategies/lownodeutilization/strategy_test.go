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

package lownodeutilization

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	th := func(kv ...any) Thresholds {
		out := Thresholds{}
		for i := 0; i < len(kv); i += 2 {
			out[v1.ResourceName(kv[i].(string))] = Percentage(kv[i+1].(int))
		}
		return out
	}
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{
			Name: "cpu",
			Args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`,
			Want: &Args{Thresholds: th("cpu", 20), TargetThresholds: th("cpu", 50)},
		},
		{
			Name: "every field",
			Args: `{"thresholds":{"cpu":20,"memory":0},"targetThresholds":{"cpu":50,"memory":50},"numberOfNodes":1,"evictableNamespaces":{"include":["a"]}}`,
			Want: &Args{
				Thresholds: th("cpu", 20, "memory", 0), TargetThresholds: th("cpu", 50, "memory", 50), NumberOfNodes: 1,
				EvictableNamespaces: &strategies.Namespaces{Include: []string{"a"}},
			},
		},
		{
			Name: "deviation above target",
			Args: `{"thresholds":{"cpu":60},"targetThresholds":{"cpu":50},"useDeviationThresholds":true}`,
			Want: &Args{Thresholds: th("cpu", 60), TargetThresholds: th("cpu", 50), UseDeviationThresholds: true},
		},
		{
			Name:     "no args",
			Args:     ``,
			WantErrs: []string{"thresholds: Required value: no resource threshold is configured", "targetThresholds: Required value: no resource threshold is configured"},
		},
		{
			Name: "empty thresholds",
			Args: `{"thresholds":{},"targetThresholds":{"cpu":50}}`,
			WantErrs: []string{
				"thresholds: Required value: no resource threshold is configured",
				"thresholds[cpu]: Required value: thresholds and targetThresholds must name the same resources",
			},
		},
		{
			Name:     "above target",
			Args:     `{"thresholds":{"cpu":60},"targetThresholds":{"cpu":50}}`,
			WantErrs: []string{"thresholds[cpu]: Invalid value: 60: is above targetThresholds[cpu] 50"},
		},
		{
			Name: "other resources",
			Args: `{"thresholds":{"cpu":20},"targetThresholds":{"memory":50}}`,
			WantErrs: []string{
				"targetThresholds[cpu]: Required value: thresholds and targetThresholds must name the same resources",
				"thresholds[memory]: Required value: thresholds and targetThresholds must name the same resources",
			},
		},
		{
			Name: "not percentages",
			Args: `{"thresholds":{"cpu":120},"targetThresholds":{"cpu":150}}`,
			WantErrs: []string{
				"thresholds[cpu]: Invalid value: 120: is not a percentage from 0 to 100",
				"targetThresholds[cpu]: Invalid value: 150: is not a percentage from 0 to 100",
			},
		},
		{
			Name:     "negative nodes",
			Args:     `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"numberOfNodes":-1}`,
			WantErrs: []string{"numberOfNodes: Invalid value: -1: must not be negative"},
		},
		{
			Name:     "include and exclude",
			Args:     `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"evictableNamespaces":{"include":["a"],"exclude":["b"]}}`,
			WantErrs: []string{"evictableNamespaces.exclude: Forbidden: only one of include or exclude may be set"},
		},
		{Name: "unknown field", Args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"evictionLimits":{"node":1}}`, WantError: `unknown field "evictionLimits"`},
	})
}

// cluster puts pods of 500m CPU on nodes of 4 CPUs: counts[i] pods on node n<i>.
func cluster(counts ...int) ([]*v1.Pod, []*v1.Node) {
	var pods []*v1.Pod
	var nodes []*v1.Node
	for i, c := range counts {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, strategytest.Node(name).Obj())
		for j := range c {
			pods = append(pods, strategytest.Pod(fmt.Sprintf("%s-p%d", name, j)).NodeName(name).Req("cpu", "500m").Obj())
		}
	}
	return pods, nodes
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		counts  []int
		perNode int
		want    int
		from    string
	}{
		// n0 at 87.5% (7 pods), n1 at 12.5%: evict until n0 is at or below 50%.
		{name: "drains the overutilized node to its target", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`, counts: []int{7, 1}, want: 3, from: "n0"},
		{name: "no underutilized node", args: `{"thresholds":{"cpu":10},"targetThresholds":{"cpu":50}}`, counts: []int{7, 1}, want: 0},
		{name: "no overutilized node", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":90}}`, counts: []int{7, 1}, want: 0},
		{name: "numberOfNodes not exceeded", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"numberOfNodes":1}`, counts: []int{7, 1}, want: 0},
		{name: "per-node limit", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`, counts: []int{7, 1}, perNode: 1, want: 1, from: "n0"},
		// The room of n1 (up to 25% of 4 CPUs = 1 CPU, it uses 0.5) stops evictions after one pod.
		{name: "stops when the underutilized nodes are full", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":25}}`, counts: []int{7, 1}, want: 1, from: "n0"},
		// Mean 50%: n0 (87.5%) drains to at most 60%, n1 (12.5%) is below 40%.
		{name: "deviation thresholds", args: `{"thresholds":{"cpu":10},"targetThresholds":{"cpu":10},"useDeviationThresholds":true}`, counts: []int{7, 1}, want: 3, from: "n0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			pods, nodes := cluster(tt.counts...)
			h := strategytest.NewHandle(time.Now(), pods, nodes)
			h.PerNodeLimit = tt.perNode
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if len(h.Evicted) != tt.want {
				t.Fatalf("evicted %v, want %d pods", h.Evicted, tt.want)
			}
			if slices.ContainsFunc(h.Evicted, func(n string) bool { return !strings.HasPrefix(n, tt.from+"-") }) {
				t.Errorf("evicted %v, want pods of %s only", h.Evicted, tt.from)
			}
		})
	}
}

func TestRunEvictsLowPriorityFirst(t *testing.T) {
	nodes := []*v1.Node{strategytest.Node("busy").Obj(), strategytest.Node("idle").Obj()}
	pods := []*v1.Pod{
		strategytest.Pod("high").NodeName("busy").Req("cpu", "2").Priority(100).Obj(),
		strategytest.Pod("low").NodeName("busy").Req("cpu", "1500m").Priority(1).Obj(),
	}
	s, err := New([]byte(`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":60}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.NewHandle(time.Now(), pods, nodes)
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Evicted, []string{"low"}) {
		t.Errorf("evicted %v, want [low]", h.Evicted)
	}
}
