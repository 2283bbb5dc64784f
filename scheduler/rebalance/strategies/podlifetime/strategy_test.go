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

package podlifetime

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "max age", Args: `{"maxPodLifeTimeSeconds":60}`, Want: &Args{MaxPodLifeTimeSeconds: ptr.To[uint](60)}},
		// Zero is a maximum age, not unset.
		{Name: "zero", Args: `{"maxPodLifeTimeSeconds":0}`, Want: &Args{MaxPodLifeTimeSeconds: ptr.To[uint](0)}},
		{
			Name: "states",
			Args: `{"maxPodLifeTimeSeconds":60,"states":["Running","CrashLoopBackOff"],"namespaces":{"exclude":["kube-system"]}}`,
			Want: &Args{
				PodScope:              strategies.PodScope{Namespaces: &strategies.Namespaces{Exclude: []string{"kube-system"}}},
				MaxPodLifeTimeSeconds: ptr.To[uint](60), States: []string{"Running", "CrashLoopBackOff"},
			},
		},
		{Name: "no max age", Args: `{}`, WantErrs: []string{"maxPodLifeTimeSeconds: Required value"}},
		{
			Name: "every problem",
			Args: `{"states":["Running","Sleeping"],"labelSelector":{"matchExpressions":[{"key":"a","operator":"Bad"}]}}`,
			WantErrs: []string{
				`labelSelector.matchExpressions[0].operator: Invalid value: "Bad": not a valid selector operator`,
				"maxPodLifeTimeSeconds: Required value",
				`states[1]: Invalid value: "Sleeping": is not a known pod phase or reason`,
			},
		},
		{Name: "negative", Args: `{"maxPodLifeTimeSeconds":-1}`, WantError: "cannot unmarshal number -1"},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	nodes := []*v1.Node{strategytest.Node("n1").Obj(), strategytest.Node("n2").Obj()}
	pods := []*v1.Pod{
		strategytest.Pod("old").NodeName("n2").Created(now.Add(-2 * time.Hour)).Obj(),
		strategytest.Pod("oldest").NodeName("n1").Created(now.Add(-3 * time.Hour)).Obj(),
		strategytest.Pod("young").NodeName("n1").Created(now.Add(-time.Minute)).Obj(),
		strategytest.Pod("old-pending").NodeName("n1").Created(now.Add(-2 * time.Hour)).Phase(v1.PodPending).Obj(),
		strategytest.Pod("labelled").NodeName("n1").Created(now.Add(-2 * time.Hour)).Obj(),
	}
	pods[4].Labels = map[string]string{"tier": "batch"}
	tests := []struct {
		name      string
		args      string
		perNode   int
		protected string
		want      []string
	}{
		{name: "oldest first, then node order", args: `{"maxPodLifeTimeSeconds":3600}`, want: []string{"oldest", "old-pending", "labelled", "old"}},
		{name: "states", args: `{"maxPodLifeTimeSeconds":3600,"states":["Pending"]}`, want: []string{"old-pending"}},
		{name: "label selector", args: `{"maxPodLifeTimeSeconds":3600,"labelSelector":{"matchLabels":{"tier":"batch"}}}`, want: []string{"labelled"}},
		{name: "per-node limit", args: `{"maxPodLifeTimeSeconds":3600}`, perNode: 1, want: []string{"oldest", "old"}},
		{name: "protected pods stay", args: `{"maxPodLifeTimeSeconds":3600}`, protected: "oldest", want: []string{"old-pending", "labelled", "old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			h := strategytest.NewHandle(now, pods, nodes)
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
