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

package removepodshavingtoomanyrestarts

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func restarts(n int32) v1.ContainerStatus { return v1.ContainerStatus{Name: "c", RestartCount: n} }

func crashLooping(n int32) v1.ContainerStatus {
	return v1.ContainerStatus{Name: "c", RestartCount: n, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}
}

func TestArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{Name: "threshold", Args: `{"podRestartThreshold":3}`, Want: &Args{PodRestartThreshold: 3}},
		{
			Name: "states",
			Args: `{"podRestartThreshold":3,"states":["CrashLoopBackOff","Running"],"includingInitContainers":true}`,
			Want: &Args{PodRestartThreshold: 3, States: []string{"CrashLoopBackOff", "Running"}, IncludingInitContainers: true},
		},
		{Name: "no threshold", Args: `{}`, WantErrs: []string{"podRestartThreshold: Invalid value: 0: must be at least 1"}},
		{Name: "zero", Args: `{"podRestartThreshold":0}`, WantErrs: []string{"podRestartThreshold: Invalid value: 0: must be at least 1"}},
		{
			Name:     "state",
			Args:     `{"podRestartThreshold":3,"states":["Pending"]}`,
			WantErrs: []string{`states[0]: Invalid value: "Pending": is not one of [Running CrashLoopBackOff]`},
		},
		{
			Name:     "include and exclude",
			Args:     `{"podRestartThreshold":3,"namespaces":{"include":["a"],"exclude":["b"]}}`,
			WantErrs: []string{"namespaces.exclude: Forbidden: only one of include or exclude may be set"},
		},
		{Name: "unknown field", Args: `{"podRestartThreshold":3,"bogus":1}`, WantError: `unknown field "bogus"`},
	}, strategytest.IgnoreScope)
}

func TestRun(t *testing.T) {
	now := time.Now()
	nodes := []*v1.Node{strategytest.Node("n1").Obj()}
	pods := []*v1.Pod{
		strategytest.Pod("many").NodeName("n1").ContainerStatus(restarts(5)).Obj(),
		strategytest.Pod("few").NodeName("n1").ContainerStatus(restarts(2)).Obj(),
		strategytest.Pod("init").NodeName("n1").ContainerStatus(restarts(1)).InitContainerStatus(restarts(3)).Obj(),
		strategytest.Pod("looping").NodeName("n1").ContainerStatus(crashLooping(4)).Obj(),
		strategytest.Pod("other-ns").Namespace("kube-system").NodeName("n1").ContainerStatus(restarts(9)).Obj(),
	}
	tests := []struct {
		args string
		want []string
	}{
		{args: `{"podRestartThreshold":3}`, want: []string{"many", "looping", "other-ns"}},
		{args: `{"podRestartThreshold":3,"includingInitContainers":true}`, want: []string{"many", "init", "looping", "other-ns"}},
		{args: `{"podRestartThreshold":3,"states":["CrashLoopBackOff"]}`, want: []string{"looping"}},
		{args: `{"podRestartThreshold":3,"namespaces":{"exclude":["kube-system"]}}`, want: []string{"many", "looping"}},
		{args: `{"podRestartThreshold":10}`, want: nil},
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
			slices.Sort(h.Evicted)
			slices.Sort(tt.want)
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
		})
	}
}
