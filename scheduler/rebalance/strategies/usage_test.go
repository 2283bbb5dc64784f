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

package strategies_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestMeasureUsage(t *testing.T) {
	resources := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods, "example.com/gpu"}
	running := strategytest.Pod("a").NodeName("n").Req("cpu", "1", "memory", "2Gi").Obj()
	gpu := strategytest.Pod("b").NodeName("n").Req("cpu", "500m", "example.com/gpu", "1").Obj()
	done := strategytest.Pod("c").NodeName("n").Req("cpu", "2").Phase(v1.PodSucceeded).Obj()
	ni := framework.NewNodeInfo()
	ni.SetNode(strategytest.Node("n").Obj())
	for _, p := range []*v1.Pod{running, gpu, done} {
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			t.Fatal(err)
		}
		ni.AddPodInfo(pi)
	}

	u := strategies.MeasureUsage(ni, resources)
	tests := []struct {
		resource              v1.ResourceName
		wantUsed, wantPercent float64
	}{
		// The terminal pod counts for nothing.
		{resource: v1.ResourceCPU, wantUsed: 1500, wantPercent: 37.5},
		{resource: v1.ResourceMemory, wantUsed: 2 << 30, wantPercent: 25},
		{resource: v1.ResourcePods, wantUsed: 2, wantPercent: 200.0 / 110},
		// Requested but not offered: the node is full of it.
		{resource: "example.com/gpu", wantUsed: 1, wantPercent: 100},
	}
	for i, tt := range tests {
		t.Run(string(tt.resource), func(t *testing.T) {
			if u.Used[i] != tt.wantUsed {
				t.Errorf("used = %v, want %v", u.Used[i], tt.wantUsed)
			}
			if got := u.Percent(i); got != tt.wantPercent {
				t.Errorf("percent = %v, want %v", got, tt.wantPercent)
			}
		})
	}
}

func TestValidateThresholds(t *testing.T) {
	path := field.NewPath("thresholds")
	tests := []struct {
		name       string
		thresholds map[v1.ResourceName]float64
		want       []string
	}{
		{name: "percentages", thresholds: map[v1.ResourceName]float64{"cpu": 0, "memory": 100}},
		{name: "none", want: []string{"thresholds: Required value: no resource threshold is configured"}},
		{name: "empty", thresholds: map[v1.ResourceName]float64{}, want: []string{"thresholds: Required value: no resource threshold is configured"}},
		{
			name:       "out of range, sorted",
			thresholds: map[v1.ResourceName]float64{"pods": 100.5, "cpu": -0.5},
			want: []string{
				"thresholds[cpu]: Invalid value: -0.5: is not a percentage from 0 to 100",
				"thresholds[pods]: Invalid value: 100.5: is not a percentage from 0 to 100",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range strategies.ValidateThresholds(path, tt.thresholds) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidateThresholds (-want +got):\n%s", diff)
			}
		})
	}
}
