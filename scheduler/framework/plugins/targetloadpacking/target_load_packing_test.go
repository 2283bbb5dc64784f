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

package targetloadpacking

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

func TestScoreCurve(t *testing.T) {
	tests := []struct {
		predicted, target float64
		want              int64
	}{
		{predicted: 0, target: 40, want: 40},
		{predicted: 20, target: 40, want: 70},
		{predicted: 40, target: 40, want: 100},
		{predicted: 70, target: 40, want: 20},
		{predicted: 100, target: 40, want: 0},
		{predicted: 101, target: 40, want: 0},
		{predicted: 50, target: 100, want: 100},
	}
	for _, tt := range tests {
		if got := Score(tt.predicted, tt.target); got != tt.want {
			t.Errorf("Score(%v, %v) = %d, want %d", tt.predicted, tt.target, got, tt.want)
		}
	}
}

func TestPredictCPU(t *testing.T) {
	pl := &TargetLoadPacking{defaultCPU: 1000, multiplier: 1.5}
	tests := []struct {
		name string
		pod  *v1.Pod
		want float64
	}{
		{"the limit when set", schedtest.Pod("p").Req("cpu", "1").Limit("cpu", "3").Obj(), 3000},
		{"the request times the multiplier without a limit", schedtest.Pod("p").Req("cpu", "2").Obj(), 3000},
		{"the default without either", schedtest.Pod("p").Image("app").Obj(), 1000},
		{"plus the overhead", schedtest.Pod("p").Req("cpu", "1").Overhead("cpu", "100m").Obj(), 1600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pl.PredictCPU(tt.pod); got != tt.want {
				t.Errorf("PredictCPU = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestScoreReadsUsage places the example of the load-aware docs: requests
// say the nodes are alike, usage says which are busy.
func TestScoreReadsUsage(t *testing.T) {
	now := time.Now()
	sample := now.Add(-10 * time.Second)
	node := func(name string, pods ...*v1.Pod) *framework.NodeInfo {
		return schedtest.NodeInfo(schedtest.Node(name).Alloc("cpu", "10", "memory", "32Gi", "pods", "110").Obj(), pods...)
	}
	old := func(name string) *v1.Pod {
		return schedtest.Pod(name).Req("cpu", "5").Limit("cpu", "5").NodeName("n").BoundAt(now.Add(-time.Hour)).Obj()
	}
	store := schedtest.NewUsageStore().
		Set("busy", sample, usage.Fresh, usage.CPU, 0.85).
		Set("idle", sample, usage.Fresh, usage.CPU, 0.10).
		Set("stale", sample, usage.Stale, usage.CPU, 0.10)
	pod := schedtest.Pod("new").Req("cpu", "1").Limit("cpu", "1").Obj()
	tests := []struct {
		name string
		node *framework.NodeInfo
		want int64
	}{
		// 85% + 10% for the pod: above the 40% target, 40·(100-95)/60.
		{"a busy node scores low", node("busy", old("a")), 3},
		// 10% + 10%: below target, (100-40)·20/40 + 40.
		{"an idle node scores toward the target", node("idle", old("b")), 70},
		// A pod bound since the sample counts with its prediction: 10% + 20% + 10%.
		{"a pod bound after the sample counts", node("idle", old("b"), schedtest.Pod("c").Req("cpu", "2").Limit("cpu", "2").BoundAt(now).Obj()), 100},
		// An assumed pod (no PodScheduled condition yet) counts too.
		{"an assumed pod counts", node("idle", old("b"), schedtest.Pod("c").Req("cpu", "2").Limit("cpu", "2").Obj()), 100},
		// No fresh sample: every pod's prediction, 50% + 10%.
		{"a stale node is scored on its pods' predictions", node("stale", old("d")), 27},
		{"a node with no sample likewise", node("unknown", old("e")), 27},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := &schedtest.UsageProvider{Given: store}
			p, err := New(context.Background(), nil, &schedtest.Handle{Usage: provider})
			if err != nil {
				t.Fatal(err)
			}
			got, st := p.(*TargetLoadPacking).Score(context.Background(), framework.NewCycleState(), pod, tt.node)
			if !st.IsSuccess() {
				t.Fatalf("Score: %v", st)
			}
			if got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
			if len(provider.Asked) != 1 || provider.Asked[0].Type != usage.MetricsServer {
				t.Errorf("asked for %+v, want one metrics-server source", provider.Asked)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name, args string
		wantErr    string
	}{
		{name: "defaults", args: ``},
		{name: "scheduler-plugins' example", args: `{"defaultRequests":{"cpu":"2000m"},"defaultRequestsMultiplier":"2","targetUtilization":70,"metricProvider":{"type":"Prometheus","address":"http://prometheus-k8s.monitoring.svc.cluster.local:9090"}}`},
		{name: "an inline token", args: `{"metricProvider":{"type":"Prometheus","address":"http://p:9090","token":"s3cret"}}`, wantErr: "tokenSecretRef"},
		{name: "a load-watcher", args: `{"watcherAddress":"http://load-watcher:2020"}`, wantErr: "runs no load-watcher"},
		{name: "SignalFx", args: `{"metricProvider":{"type":"SignalFx"}}`, wantErr: "Unsupported value"},
		{name: "Prometheus without an address", args: `{"metricProvider":{"type":"Prometheus"}}`, wantErr: "metricProvider.address: Required"},
		{name: "a target above 100", args: `{"targetUtilization":120}`, wantErr: "at most 100"},
		{name: "a multiplier that is no number", args: `{"defaultRequestsMultiplier":"lots"}`, wantErr: "non-negative number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			_, err := New(context.Background(), raw, nil)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("New: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
