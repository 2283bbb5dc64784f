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

package removepodsviolatingnodetaints

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "none", Args: `{}`, Want: &Args{}},
		{
			Name: "excluded",
			Args: `{"excludedTaints":["a","b=c"],"includePreferNoSchedule":true}`,
			Want: &Args{ExcludedTaints: []string{"a", "b=c"}, IncludePreferNoSchedule: true},
		},
		{
			Name:     "both lists",
			Args:     `{"includedTaints":["a"],"excludedTaints":["b"]}`,
			WantErrs: []string{"includedTaints: Forbidden: only one of excludedTaints or includedTaints may be set"},
		},
		{Name: "no key", Args: `{"excludedTaints":["a","=v"]}`, WantErrs: []string{`excludedTaints[1]: Invalid value: "=v": has no key`}},
		{Name: "no key included", Args: `{"includedTaints":[""]}`, WantErrs: []string{`includedTaints[0]: Invalid value: "": has no key`}},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	nodes := []*v1.Node{
		strategytest.Node("hard").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
		strategytest.Node("soft").Taint("spot", "", v1.TaintEffectPreferNoSchedule).Obj(),
		strategytest.Node("clean").Obj(),
	}
	pods := []*v1.Pod{
		strategytest.Pod("on-hard").NodeName("hard").Obj(),
		strategytest.Pod("tolerates-hard").NodeName("hard").Tolerate("dedicated").Obj(),
		strategytest.Pod("on-soft").NodeName("soft").Obj(),
		strategytest.Pod("on-clean").NodeName("clean").Obj(),
	}
	tests := []struct {
		args string
		want []string
	}{
		{args: `{}`, want: []string{"on-hard"}},
		{args: `{"includePreferNoSchedule":true}`, want: []string{"on-hard", "on-soft"}},
		{args: `{"excludedTaints":["dedicated"]}`, want: nil},
		{args: `{"excludedTaints":["dedicated=cpu"]}`, want: []string{"on-hard"}},
		{args: `{"includedTaints":["dedicated=gpu"]}`, want: []string{"on-hard"}},
		{args: `{"includedTaints":["other"]}`, want: nil},
		{args: `{"namespaces":{"include":["other"]}}`, want: nil},
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
