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

package removefailedpods

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func exited(code int32, reason string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: "c", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}
}

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "none", Args: `{}`, Want: &Args{}},
		{
			Name: "every field",
			Args: `{"excludeOwnerKinds":["Job"],"minPodLifetimeSeconds":0,"reasons":["OOMKilled"],"exitCodes":[1],"includingInitContainers":true}`,
			Want: &Args{
				ExcludeOwnerKinds: []string{"Job"}, MinPodLifetimeSeconds: ptr.To[uint](0), Reasons: []string{"OOMKilled"},
				ExitCodes: []int32{1}, IncludingInitContainers: true,
			},
		},
		{Name: "empty kind", Args: `{"excludeOwnerKinds":[""]}`, WantErrs: []string{`excludeOwnerKinds[0]: Invalid value: "": is empty`}},
		{
			Name:     "bad selector",
			Args:     `{"labelSelector":{"matchExpressions":[{"key":"a","operator":"Bad"}]}}`,
			WantErrs: []string{`labelSelector.matchExpressions[0].operator: Invalid value: "Bad": not a valid selector operator`},
		},
		{Name: "exit code not a number", Args: `{"exitCodes":["x"]}`, WantError: "cannot unmarshal string"},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := now.Add(-time.Hour)
	nodes := []*v1.Node{strategytest.Node("n1").Obj()}
	pods := []*v1.Pod{
		strategytest.Pod("running").NodeName("n1").Created(old).Obj(),
		strategytest.Pod("evicted").NodeName("n1").Created(old).Phase(v1.PodFailed).Reason("Evicted").Obj(),
		strategytest.Pod("oom").NodeName("n1").Created(old).Phase(v1.PodFailed).ContainerStatus(exited(137, "OOMKilled")).Obj(),
		strategytest.Pod("job").NodeName("n1").Created(old).OwnerRefs(metav1.OwnerReference{Kind: "Job", Name: "j"}).Phase(v1.PodFailed).ContainerStatus(exited(1, "Error")).Obj(),
		strategytest.Pod("fresh").NodeName("n1").Created(now.Add(-time.Second)).Phase(v1.PodFailed).Obj(),
	}
	tests := []struct {
		args string
		want []string
	}{
		{args: `{}`, want: []string{"evicted", "oom", "job", "fresh"}},
		{args: `{"excludeOwnerKinds":["Job"]}`, want: []string{"evicted", "oom", "fresh"}},
		{args: `{"reasons":["OOMKilled","Evicted"]}`, want: []string{"evicted", "oom"}},
		{args: `{"exitCodes":[1]}`, want: []string{"job"}},
		{args: `{"minPodLifetimeSeconds":60}`, want: []string{"evicted", "oom", "job"}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			h := strategytest.NewHandle(now, pods, nodes)
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
		})
	}
}
