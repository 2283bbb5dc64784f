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

package highnodeutilization

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "one threshold", Args: `{"thresholds":{"cpu":20}}`, Want: &Args{Thresholds: map[v1.ResourceName]Percentage{"cpu": 20}}},
		{
			Name: "every field",
			Args: `{"thresholds":{"cpu":20,"memory":30},"numberOfNodes":2,"evictableNamespaces":{"exclude":["kube-system"]}}`,
			Want: &Args{
				Thresholds:          map[v1.ResourceName]Percentage{"cpu": 20, "memory": 30},
				NumberOfNodes:       2,
				EvictableNamespaces: &strategies.Namespaces{Exclude: []string{"kube-system"}},
			},
		},
		{Name: "explicit zero threshold", Args: `{"thresholds":{"cpu":0}}`, Want: &Args{Thresholds: map[v1.ResourceName]Percentage{"cpu": 0}}},
		{Name: "empty thresholds", Args: `{"thresholds":{}}`, WantErrs: []string{"thresholds: Required value: no resource threshold is configured"}},
		{Name: "no args", Args: ``, WantErrs: []string{"thresholds: Required value: no resource threshold is configured"}},
		{Name: "above 100", Args: `{"thresholds":{"cpu":120}}`, WantErrs: []string{"thresholds[cpu]: Invalid value: 120: is not a percentage from 0 to 100"}},
		{Name: "negative nodes", Args: `{"thresholds":{"cpu":20},"numberOfNodes":-1}`, WantErrs: []string{"numberOfNodes: Invalid value: -1: must not be negative"}},
		{
			Name:     "include",
			Args:     `{"thresholds":{"cpu":20},"evictableNamespaces":{"include":["a"]}}`,
			WantErrs: []string{"evictableNamespaces.include: Forbidden: only exclude is supported"},
		},
		{
			Name: "every problem",
			Args: `{"thresholds":{"cpu":-1,"example.com/gpu":101},"numberOfNodes":-2}`,
			WantErrs: []string{
				"thresholds[cpu]: Invalid value: -1: is not a percentage from 0 to 100",
				"thresholds[example.com/gpu]: Invalid value: 101: is not a percentage from 0 to 100",
				"numberOfNodes: Invalid value: -2: must not be negative",
			},
		},
		{Name: "unknown field", Args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`, WantError: `unknown field "targetThresholds"`},
	})
}

// The thresholds the policy leaves out of cpu, memory and pods are measured
// at 100; the args keep the policy's.
func TestMeasured(t *testing.T) {
	a := &Args{Thresholds: map[v1.ResourceName]Percentage{"cpu": 20, "memory": 0}}
	want := map[v1.ResourceName]Percentage{"cpu": 20, "memory": 0, "pods": 100}
	if diff := cmp.Diff(want, a.measured()); diff != "" {
		t.Errorf("measured (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[v1.ResourceName]Percentage{"cpu": 20, "memory": 0}, a.Thresholds); diff != "" {
		t.Errorf("measured changed the args (-want +got):\n%s", diff)
	}
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
		name      string
		args      string
		counts    []int
		cordon    string
		perNode   int
		protected string
		want      []string
	}{
		// n1 at 12.5% is underutilized; n0 (50%) takes its pod.
		{name: "drains the underutilized node", args: `{"thresholds":{"cpu":20}}`, counts: []int{4, 1}, want: []string{"n1-p0"}},
		{name: "emptiest node first", args: `{"thresholds":{"cpu":30}}`, counts: []int{4, 2, 1}, want: []string{"n2-p0", "n1-p0", "n1-p1"}},
		{name: "no underutilized node", args: `{"thresholds":{"cpu":10}}`, counts: []int{4, 1}},
		{name: "every node underutilized", args: `{"thresholds":{"cpu":60}}`, counts: []int{4, 1}},
		{name: "numberOfNodes not exceeded", args: `{"thresholds":{"cpu":20},"numberOfNodes":1}`, counts: []int{4, 1}},
		{name: "numberOfNodes exceeded", args: `{"thresholds":{"cpu":20},"numberOfNodes":1}`, counts: []int{4, 1, 1}, want: []string{"n1-p0", "n2-p0"}},
		// n0 has room for one 500m pod (3.5 of 4 CPUs used): the second eviction has nowhere to go.
		{name: "stops when the target nodes are full", args: `{"thresholds":{"cpu":30}}`, counts: []int{7, 2}, want: []string{"n1-p0"}},
		{name: "a cordoned node is no target", args: `{"thresholds":{"cpu":20}}`, counts: []int{4, 1}, cordon: "n0"},
		{name: "per-node limit", args: `{"thresholds":{"cpu":30}}`, counts: []int{4, 2}, perNode: 1, want: []string{"n1-p0"}},
		{name: "protected pods stay", args: `{"thresholds":{"cpu":30}}`, counts: []int{4, 2}, protected: "n1-p0", want: []string{"n1-p1"}},
		// Memory is not measured by the thresholds given, so its default of 100 never holds a node back.
		{name: "unset resources default to 100", args: `{"thresholds":{"cpu":20}}`, counts: []int{4, 1}, want: []string{"n1-p0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			pods, nodes := cluster(tt.counts...)
			for _, n := range nodes {
				n.Spec.Unschedulable = n.Name == tt.cordon
			}
			h := strategytest.NewHandle(time.Now(), pods, nodes)
			h.PerNodeLimit = tt.perNode
			h.Protected = func(p *v1.Pod) bool { return p.Name == tt.protected }
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
		})
	}
}

func TestRunExcludedNamespace(t *testing.T) {
	nodes := []*v1.Node{strategytest.Node("busy").Obj(), strategytest.Node("idle").Obj()}
	pods := []*v1.Pod{
		strategytest.Pod("big").NodeName("busy").Req("cpu", "2").Obj(),
		strategytest.Pod("sys").Namespace("kube-system").NodeName("idle").Req("cpu", "100m").Obj(),
		strategytest.Pod("app").NodeName("idle").Req("cpu", "100m").Priority(5).Obj(),
	}
	s, err := New([]byte(`{"thresholds":{"cpu":20},"evictableNamespaces":{"exclude":["kube-system"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.NewHandle(time.Now(), pods, nodes)
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Evicted, []string{"app"}) {
		t.Errorf("evicted %v, want [app]", h.Evicted)
	}
	if r := h.Reasons["app"]; !strings.Contains(r, "cpu 5%") {
		t.Errorf("reason %q, want the node's cpu utilization", r)
	}
}
