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

package loadvariationriskbalancing

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/usage"
)

func TestScore(t *testing.T) {
	now := time.Now()
	sample := now.Add(-10 * time.Second)
	node := func(name string, pods ...*v1.Pod) *framework.NodeInfo {
		return schedtest.NodeInfo(schedtest.Node(name).Alloc("cpu", "10", "memory", "10Gi", "pods", "110").Obj(), pods...)
	}
	old := schedtest.Pod("old").Req("cpu", "4", "memory", "4Gi").NodeName("n").BoundAt(now.Add(-time.Hour)).Obj()
	pod := schedtest.Pod("new").Req("cpu", "1", "memory", "1Gi").Obj()
	store := schedtest.NewUsageStore().
		// CPU: μ = 0.2 + 0.1, σ = 0.1: risk 0.2, score 80; memory: μ = 0.5 + 0.1, σ 0: risk 0.3, score 70.
		Set("steady", sample, usage.Fresh, usage.CPU, usage.Stat{Average: 0.2, StdDev: 0.1}, usage.Memory, usage.Stat{Average: 0.5}).
		// CPU: μ = 0.2 + 0.1, σ = 0.5: risk 0.4, score 60; memory as above, 70.
		Set("varying", sample, usage.Fresh, usage.CPU, usage.Stat{Average: 0.2, StdDev: 0.5}, usage.Memory, usage.Stat{Average: 0.5})
	tests := []struct {
		name        string
		args        string
		node        *framework.NodeInfo
		want        int64
		withoutData bool
	}{
		{name: "the lower of CPU and memory", node: node("steady", old), want: 70},
		{name: "a varying node scores lower", node: node("varying", old), want: 60},
		// σ·2 = 1: risk (0.3 + 1)/2, score 35.
		{name: "the margin scales the spread", args: `{"safeVarianceMargin":2}`, node: node("varying", old), want: 35},
		// √0.5·1 ≈ 0.71: risk ≈ 0.50, score 50.
		{name: "the sensitivity takes a root of it", args: `{"safeVarianceSensitivity":2}`, node: node("varying", old), want: 50},
		// Requests: CPU μ = 0.4 + 0.1, memory μ = 0.4 + 0.1, no spread: 75.
		{name: "no sample: the pods' requests", node: node("unknown", old), want: 75},
		{name: "no store: the pods' requests", node: node("steady", old), want: 75, withoutData: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			h := &schedtest.Handle{}
			if !tt.withoutData {
				h.Usage = &schedtest.UsageProvider{Given: store}
			}
			p, err := New(context.Background(), raw, h)
			if err != nil {
				t.Fatal(err)
			}
			got, st := p.(*LoadVariationRiskBalancing).Score(context.Background(), framework.NewCycleState(), pod, tt.node)
			if !st.IsSuccess() {
				t.Fatalf("Score: %v", st)
			}
			if got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name, args string
		wantErr    string
		margin     float64
	}{
		{name: "defaults", margin: 1},
		{name: "negative values take the defaults", args: `{"safeVarianceMargin":-1,"safeVarianceSensitivity":-2}`, margin: 1},
		{name: "set", args: `{"safeVarianceMargin":1.5}`, margin: 1.5},
		{name: "a load-watcher", args: `{"watcherAddress":"http://w:2020"}`, wantErr: "watcherAddress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			p, err := New(context.Background(), raw, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New: %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.(*LoadVariationRiskBalancing).margin; got != tt.margin {
				t.Errorf("margin = %v, want %v", got, tt.margin)
			}
		})
	}
}
