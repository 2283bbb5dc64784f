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

package removeduplicates

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "none", Args: `{}`, Want: &Args{}},
		{Name: "kinds", Args: `{"excludeOwnerKinds":["Job"]}`, Want: &Args{ExcludeOwnerKinds: []string{"Job"}}},
		{
			Name: "scope",
			Args: `{"namespaces":{"include":["a"]},"labelSelector":{"matchLabels":{"app":"x"}}}`,
			Want: &Args{PodScope: strategies.PodScope{
				Namespaces:    &strategies.Namespaces{Include: []string{"a"}},
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			}},
		},
		{Name: "empty kind", Args: `{"excludeOwnerKinds":["Job",""]}`, WantErrs: []string{`excludeOwnerKinds[1]: Invalid value: "": is empty`}},
		{
			Name:     "include and exclude",
			Args:     `{"namespaces":{"include":["a"],"exclude":["b"]}}`,
			WantErrs: []string{"namespaces.exclude: Forbidden: only one of include or exclude may be set"},
		},
		{Name: "unknown field", Args: `{"unknown":true}`, WantError: `unknown field "unknown"`},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	two := []*v1.Node{strategytest.Node("n1").Obj(), strategytest.Node("n2").Obj()}
	tests := []struct {
		name  string
		args  string
		nodes []*v1.Node
		pods  []*v1.Pod
		want  []string
	}{
		{
			name: "four on one node of two keep the share of two", nodes: two,
			pods: []*v1.Pod{strategytest.Pod("a").NodeName("n1").Obj(), strategytest.Pod("b").NodeName("n1").Obj(), strategytest.Pod("c").NodeName("n1").Obj(), strategytest.Pod("d").NodeName("n1").Obj()},
			want: []string{"b", "c"},
		},
		{
			name: "already balanced", nodes: two,
			pods: []*v1.Pod{strategytest.Pod("a").NodeName("n1").Obj(), strategytest.Pod("b").NodeName("n1").Obj(), strategytest.Pod("c").NodeName("n2").Obj(), strategytest.Pod("d").NodeName("n2").Obj()},
		},
		{
			name: "different images are not duplicates", nodes: two,
			pods: []*v1.Pod{strategytest.Pod("a").NodeName("n1").Obj(), strategytest.Pod("b").NodeName("n1").Image("other").Obj()},
		},
		{
			name: "different owners are not duplicates", nodes: two,
			pods: []*v1.Pod{strategytest.Pod("a").NodeName("n1").Obj(), strategytest.Pod("b").NodeName("n1").OwnerRefs(metav1.OwnerReference{Kind: "ReplicaSet", Name: "other"}).Obj()},
		},
		{
			name: "excluded owner kind", args: `{"excludeOwnerKinds":["ReplicaSet"]}`, nodes: two,
			pods: []*v1.Pod{strategytest.Pod("a").NodeName("n1").Obj(), strategytest.Pod("b").NodeName("n1").Obj()},
		},
		{
			name:  "no other node could run them",
			nodes: []*v1.Node{strategytest.Node("n1").Obj(), strategytest.Node("n2").Taint("x", "", v1.TaintEffectNoSchedule).Obj()},
			pods:  []*v1.Pod{strategytest.Pod("a").NodeName("n1").Obj(), strategytest.Pod("b").NodeName("n1").Obj()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == "" {
				args = "{}"
			}
			s, err := New([]byte(args))
			if err != nil {
				t.Fatal(err)
			}
			h := strategytest.NewHandle(time.Now(), tt.pods, tt.nodes)
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
		})
	}
}
