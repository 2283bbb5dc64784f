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

package removepodsviolatinginterpodantiaffinity

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

const host = "kubernetes.io/hostname"

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "none", Args: ``, Want: &Args{}},
		{
			Name: "scope",
			Args: `{"namespaces":{"include":["a"]},"labelSelector":{"matchLabels":{"app":"x"}}}`,
			Want: &Args{PodScope: strategies.PodScope{
				Namespaces:    &strategies.Namespaces{Include: []string{"a"}},
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			}},
		},
		{
			Name:     "include and exclude",
			Args:     `{"namespaces":{"include":["a"],"exclude":["b"]}}`,
			WantErrs: []string{"namespaces.exclude: Forbidden: only one of include or exclude may be set"},
		},
		{
			Name:     "bad selector",
			Args:     `{"labelSelector":{"matchExpressions":[{"key":"a","operator":"Bad"}]}}`,
			WantErrs: []string{`labelSelector.matchExpressions[0].operator: Invalid value: "Bad": not a valid selector operator`},
		},
		{Name: "unknown field", Args: `{"unknown":1}`, WantError: `unknown field "unknown"`},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	nodes := []*v1.Node{
		strategytest.Node("a1").Label("zone", "a").Obj(),
		strategytest.Node("a2").Label("zone", "a").Obj(),
		strategytest.Node("b1").Label("zone", "b").Obj(),
	}
	tests := []struct {
		name      string
		args      string
		pods      []*v1.Pod
		protected string
		perNode   int
		want      []string
	}{
		{name: "violated on the same node", pods: []*v1.Pod{pod("p", "a1", "web", host, "db"), pod("q", "a1", "db", "")}, want: []string{"p"}},
		{name: "other pod on another node", pods: []*v1.Pod{pod("p", "a1", "web", host, "db"), pod("q", "a2", "db", "")}},
		{name: "violated within the zone", pods: []*v1.Pod{pod("p", "a1", "web", "zone", "db"), pod("q", "a2", "db", "")}, want: []string{"p"}},
		{name: "other zone", pods: []*v1.Pod{pod("p", "a1", "web", "zone", "db"), pod("q", "b1", "db", "")}},
		{name: "other namespace does not count", pods: []*v1.Pod{pod("p", "a1", "web", host, "db"), inNamespace(pod("q", "a1", "db", ""), "other")}},
		{name: "a pod does not violate its own term", pods: []*v1.Pod{pod("p", "a1", "web", host, "web")}},
		// Two replicas avoiding each other: evicting the lower priority one settles both.
		{name: "one of a mutual pair", pods: []*v1.Pod{withPriority(pod("hi", "a1", "web", host, "web"), 10), withPriority(pod("lo", "a1", "web", host, "web"), 1)}, want: []string{"lo"}},
		{name: "protected pod stays and the other goes", pods: []*v1.Pod{withPriority(pod("hi", "a1", "web", host, "web"), 10), withPriority(pod("lo", "a1", "web", host, "web"), 1)}, protected: "lo", want: []string{"hi"}},
		{name: "namespace out of scope", args: `{"namespaces":{"exclude":["default"]}}`, pods: []*v1.Pod{pod("p", "a1", "web", host, "db"), pod("q", "a1", "db", "")}},
		{name: "per-node limit", perNode: 1, pods: []*v1.Pod{pod("p1", "a1", "web", host, "db"), pod("p2", "a1", "web", host, "db"), pod("q", "a1", "db", "")}, want: []string{"p1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			h := strategytest.NewHandle(time.Now(), tt.pods, nodes)
			h.PerNodeLimit = tt.perNode
			h.Protected = func(p *v1.Pod) bool { return p.Name == tt.protected }
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
			for _, name := range h.Evicted {
				if !strings.Contains(h.Reasons[name], "anti-affinity") {
					t.Errorf("reason %q", h.Reasons[name])
				}
			}
		})
	}
}
