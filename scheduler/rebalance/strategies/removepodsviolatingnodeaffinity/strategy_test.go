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

package removepodsviolatingnodeaffinity

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func preferZone(zone string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{
		Weight: 10, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{zone}}}},
	}}}}
}

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "required", Args: `{"nodeAffinityType":["requiredDuringSchedulingIgnoredDuringExecution"]}`, Want: &Args{NodeAffinityType: []string{Required}}},
		{Name: "preferred", Args: `{"nodeAffinityType":["preferredDuringSchedulingIgnoredDuringExecution"]}`, Want: &Args{NodeAffinityType: []string{Preferred}}},
		{Name: "no type", Args: `{}`, WantErrs: []string{"nodeAffinityType: Required value: must name at least one type"}},
		{
			Name: "unknown type",
			Args: `{"nodeAffinityType":["requiredDuringSchedulingIgnoredDuringExecution","sometimes"]}`,
			WantErrs: []string{`nodeAffinityType[1]: Invalid value: "sometimes": is not ` +
				`requiredDuringSchedulingIgnoredDuringExecution or preferredDuringSchedulingIgnoredDuringExecution`},
		},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	nodes := []*v1.Node{
		strategytest.Node("a").Label("zone", "a").Obj(),
		strategytest.Node("b").Label("zone", "b").Obj(),
		strategytest.Node("c").Label("zone", "c").Taint("x", "", v1.TaintEffectNoSchedule).Obj(),
	}
	pods := []*v1.Pod{
		strategytest.Pod("wants-b").NodeName("a").NodeSelector("zone", "b").Obj(),
		strategytest.Pod("wants-c").NodeName("a").NodeSelector("zone", "c").Obj(),
		strategytest.Pod("fine").NodeName("a").NodeSelector("zone", "a").Obj(),
		strategytest.Pod("prefers-b").NodeName("a").Affinity(preferZone("b")).Obj(),
		strategytest.Pod("prefers-a").NodeName("a").Affinity(preferZone("a")).Obj(),
	}
	tests := []struct {
		args string
		want []string
	}{
		{args: `{"nodeAffinityType":["requiredDuringSchedulingIgnoredDuringExecution"]}`, want: []string{"wants-b"}},
		{args: `{"nodeAffinityType":["preferredDuringSchedulingIgnoredDuringExecution"]}`, want: []string{"prefers-b"}},
		{args: `{"nodeAffinityType":["requiredDuringSchedulingIgnoredDuringExecution","preferredDuringSchedulingIgnoredDuringExecution"]}`,
			want: []string{"prefers-b", "wants-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			h := strategytest.NewHandle(time.Now(), pods, nodes)
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			slices.Sort(h.Evicted)
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
		})
	}
}
