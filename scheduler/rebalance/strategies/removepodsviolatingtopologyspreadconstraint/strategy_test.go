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

package removepodsviolatingtopologyspreadconstraint

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{
			Name: "defaults",
			Args: ``,
			Want: &Args{Constraints: []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule}, TopologyBalanceNodeFit: ptr.To(true)},
		},
		// An empty list is unset; false is kept.
		{
			Name: "empty constraints, nodeFit off",
			Args: `{"constraints":[],"topologyBalanceNodeFit":false}`,
			Want: &Args{Constraints: []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule}, TopologyBalanceNodeFit: ptr.To(false)},
		},
		{
			Name: "every field",
			Args: `{"constraints":["DoNotSchedule","ScheduleAnyway"],"topologyBalanceNodeFit":true,"namespaces":{"include":["a"]}}`,
			Want: &Args{
				PodScope:               strategies.PodScope{Namespaces: &strategies.Namespaces{Include: []string{"a"}}},
				Constraints:            []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule, v1.ScheduleAnyway},
				TopologyBalanceNodeFit: ptr.To(true),
			},
		},
		{
			Name:     "unknown constraint",
			Args:     `{"constraints":["Sometimes"]}`,
			WantErrs: []string{`constraints[0]: Invalid value: "Sometimes": is neither DoNotSchedule nor ScheduleAnyway`},
		},
		{
			Name: "every problem",
			Args: `{"namespaces":{"include":["a"],"exclude":["b"]},"constraints":["DoNotSchedule","x"]}`,
			WantErrs: []string{
				"namespaces.exclude: Forbidden: only one of include or exclude may be set",
				`constraints[1]: Invalid value: "x": is neither DoNotSchedule nor ScheduleAnyway`,
			},
		},
		{Name: "unknown field", Args: `{"includeSoftConstraints":true}`, WantError: `unknown field "includeSoftConstraints"`},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	hard, soft := v1.DoNotSchedule, v1.ScheduleAnyway
	tests := []struct {
		name    string
		args    string
		zones   []string
		when    v1.UnsatisfiableConstraintAction
		counts  []int
		taint   string
		perNode int
		want    int
		from    string
	}{
		{name: "balanced", zones: []string{"a", "b"}, when: hard, counts: []int{2, 1}},
		// 4 and 0: average 2, half the excess skew (4-1)/2 rounds up to 2.
		{name: "moves to the average", zones: []string{"a", "b"}, when: hard, counts: []int{4, 0}, want: 2, from: "a-"},
		{name: "three domains", zones: []string{"a", "b", "c"}, when: hard, counts: []int{6, 0, 0}, want: 4, from: "a-"},
		{name: "two full domains give to the empty one", zones: []string{"a", "b", "c"}, when: hard, counts: []int{3, 3, 0}, want: 2},
		{name: "soft constraints ignored by default", zones: []string{"a", "b"}, when: soft, counts: []int{4, 0}},
		{name: "soft constraints when asked", args: `{"constraints":["ScheduleAnyway"]}`, zones: []string{"a", "b"}, when: soft, counts: []int{4, 0}, want: 2, from: "a-"},
		{name: "namespace out of scope", args: `{"namespaces":{"exclude":["default"]}}`, zones: []string{"a", "b"}, when: hard, counts: []int{4, 0}},
		{name: "label selector out of scope", args: `{"labelSelector":{"matchLabels":{"app":"db"}}}`, zones: []string{"a", "b"}, when: hard, counts: []int{4, 0}},
		// The emptier zone's only node has a taint the pods do not tolerate.
		{name: "nodeFit keeps pods that cannot land", zones: []string{"a", "b"}, when: hard, counts: []int{4, 0}, taint: "b"},
		{name: "nodeFit off", args: `{"topologyBalanceNodeFit":false}`, zones: []string{"a", "b"}, when: hard, counts: []int{4, 0}, taint: "b", want: 2},
		{name: "per-node limit", zones: []string{"a", "b"}, when: hard, counts: []int{4, 0}, perNode: 1, want: 1, from: "a-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			nodes := zones(tt.zones...)
			for _, n := range nodes {
				if n.Name == tt.taint {
					n.Spec.Taints = []v1.Taint{{Key: "dedicated", Effect: v1.TaintEffectNoSchedule}}
				}
			}
			h := strategytest.NewHandle(time.Now(), spread(nodes, tt.when, tt.counts...), nodes)
			h.PerNodeLimit = tt.perNode
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if len(h.Evicted) != tt.want {
				t.Fatalf("evicted %v, want %d pods", h.Evicted, tt.want)
			}
			for _, name := range h.Evicted {
				if !strings.HasPrefix(name, tt.from) {
					t.Errorf("evicted %s, want pods of %q", name, tt.from)
				}
				if !strings.Contains(h.Reasons[name], "maxSkew 1") {
					t.Errorf("reason %q", h.Reasons[name])
				}
			}
		})
	}
}

func TestRunPrefersLowPriorityAndUnpinnedPods(t *testing.T) {
	nodes := zones("a", "b")
	pods := spread(nodes, v1.DoNotSchedule, 3, 0)
	for _, n := range nodes {
		n.Labels["disk"] = "ssd"
	}
	pods[0].Spec.NodeSelector = map[string]string{"disk": "ssd"}
	pods[1].Spec.Priority = new(int32(100))
	h := strategytest.NewHandle(time.Now(), pods, nodes)
	s, _ := New(nil)
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	// 3 and 0: one pod moves; a-2 is neither pinned nor of high priority.
	if len(h.Evicted) != 1 || h.Evicted[0] != "a-2" {
		t.Errorf("evicted %v, want [a-2]", h.Evicted)
	}
}

func TestRunIgnoresNodesWithoutTheKey(t *testing.T) {
	nodes := append(zones("a"), strategytest.Node("plain").Obj())
	h := strategytest.NewHandle(time.Now(), spread(nodes, v1.DoNotSchedule, 4, 0), nodes)
	s, _ := New(nil)
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if len(h.Evicted) != 0 {
		t.Errorf("evicted %v, want none: a single domain has no skew", h.Evicted)
	}
}
