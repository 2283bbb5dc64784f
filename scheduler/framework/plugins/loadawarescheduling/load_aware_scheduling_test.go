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

package loadawarescheduling

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/usage"
)

func TestFilter(t *testing.T) {
	now := time.Now()
	sample := now.Add(-10 * time.Second)
	node := func(name string, pods ...*v1.Pod) *framework.NodeInfo {
		return schedtest.NodeInfo(schedtest.Node(name).Alloc("cpu", "10", "memory", "10Gi", "pods", "110").Obj(), pods...)
	}
	store := schedtest.NewUsageStore().
		Set("calm", sample, usage.Fresh, usage.CPU, 0.30, usage.Memory, 0.30).
		Set("hot", sample, usage.Fresh, usage.CPU, 0.70, usage.Memory, 0.30).
		Set("edge", sample, usage.Fresh, usage.CPU, 0.50, usage.Memory, 0.30).
		Set("full", sample, usage.Fresh, usage.CPU, 0.30, usage.Memory, 0.96).
		Set("old", now.Add(-time.Hour), usage.Stale, usage.CPU, 0.99, usage.Memory, 0.99)
	// 1 CPU requested: estimated at 85%, 0.85 CPU.
	pod := schedtest.Pod("new").Req("cpu", "1", "memory", "100Mi").Obj()
	fresh := schedtest.Pod("just-bound").Req("cpu", "2").NodeName("edge").BoundAt(now).Obj()
	tests := []struct {
		name string
		args string
		pod  *v1.Pod
		node *framework.NodeInfo
		want string
	}{
		{name: "under the thresholds", node: node("calm"), pod: pod},
		{name: "cpu above 65%", node: node("hot"), pod: pod, want: "node(s) cpu usage exceed threshold"},
		// 50% + 8.5% for the pod = 58.5%: fits; with a pod bound since the sample (2 CPUs at 85%), 75.5%.
		{name: "the edge fits", node: node("edge"), pod: pod},
		{name: "a pod bound after the sample counts", node: node("edge", fresh), pod: pod, want: "node(s) cpu usage exceed threshold"},
		{name: "memory above 95%", node: node("full"), pod: pod, want: "node(s) memory usage exceed threshold"},
		{name: "a threshold of 0 turns the resource off", args: `{"usageThresholds":{"cpu":0,"memory":95}}`, node: node("hot"), pod: pod},
		{name: "a node with no sample passes", node: node("unknown"), pod: pod},
		{name: "a stale sample passes by default", node: node("old"), pod: pod},
		{name: "a stale sample is refused when asked", args: `{"enableScheduleWhenNodeMetricsExpired":false}`, node: node("old"), pod: pod, want: ErrReasonNodeMetricExpired},
		{name: "a DaemonSet pod always passes", node: node("hot"), pod: schedtest.Pod("ds").Req("cpu", "1").Owner("apps/v1", "DaemonSet", "agent").Obj()},
		// Without a request: Koordinator's default 250m, at 70% + 2.5%: fits.
		{name: "a pod without requests uses the default estimate", node: node("hot"), args: `{"usageThresholds":{"cpu":75}}`, pod: schedtest.Pod("be").Image("app").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			p, err := New(context.Background(), raw, &schedtest.Handle{Usage: &schedtest.UsageProvider{Given: store}})
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*LoadAwareScheduling)
			pl.clock = clocktesting.NewFakePassiveClock(now)
			st := pl.Filter(context.Background(), framework.NewCycleState(), tt.pod, tt.node)
			switch {
			case tt.want == "" && !st.IsSuccess():
				t.Errorf("Filter = %v, want success", st)
			case tt.want != "" && (st.Code() != framework.Unschedulable || st.Message() != tt.want):
				t.Errorf("Filter = %v, want Unschedulable %q", st, tt.want)
			}
		})
	}
}

func TestFilterWithoutStore(t *testing.T) {
	p, err := New(context.Background(), nil, &schedtest.Handle{})
	if err != nil {
		t.Fatal(err)
	}
	n := schedtest.NodeInfo(schedtest.Node("n").Alloc("cpu", "1").Obj())
	if st := p.(*LoadAwareScheduling).Filter(context.Background(), framework.NewCycleState(), schedtest.Pod("p").Obj(), n); !st.IsSuccess() {
		t.Errorf("Filter without a store = %v, want success", st)
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name, args string
		wantErr    string
	}{
		{name: "defaults"},
		{name: "Koordinator's fields", args: `{"usageThresholds":{"cpu":70,"memory":90},"estimatedScalingFactors":{"cpu":80},"nodeMetricExpirationSeconds":60,"filterExpiredNodeMetrics":true}`},
		{name: "a threshold above 100", args: `{"usageThresholds":{"cpu":120}}`, wantErr: "0 to 100"},
		{name: "an unsupported resource", args: `{"usageThresholds":{"nvidia.com/gpu":50}}`, wantErr: "Unsupported value"},
		{name: "an unknown field", args: `{"prodUsageThresholds":{"cpu":50}}`, wantErr: "prodUsageThresholds"},
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

func TestEstimateUsage(t *testing.T) {
	now := time.Now()
	sample := now.Add(-10 * time.Second)
	store := schedtest.NewUsageStore().
		Set("sampled", sample, usage.Fresh, usage.CPU, 0.5, usage.Memory, 0.5).
		Set("expired", now.Add(-5*time.Minute), usage.Fresh, usage.CPU, 0.5, usage.Memory, 0.5).
		Set("old", now.Add(-time.Hour), usage.Stale, usage.CPU, 0.5, usage.Memory, 0.5)
	shown := schedtest.Pod("shown").Req("cpu", "1", "memory", "1Gi").BoundAt(now.Add(-2 * time.Hour)).Obj()
	// 2 CPUs and 1000Mi at 85% and 70%.
	since := schedtest.Pod("since").Req("cpu", "2", "memory", "1000Mi").BoundAt(now).Obj()
	node := func(name string) *framework.NodeInfo {
		return schedtest.NodeInfo(schedtest.Node(name).Alloc("cpu", "10", "memory", "10Gi").Obj(), shown, since)
	}
	none := framework.UsageEstimate{Basis: framework.UsageNotJudged}
	tests := []struct {
		name string
		args string
		node string
		want framework.UsageEstimate
	}{
		{name: "the pods the sample does not show, as Filter estimates them", node: "sampled",
			want: framework.UsageEstimate{Basis: framework.UsageFromSample, Pods: 1, MilliCPU: 1700, Memory: 700 << 20}},
		{name: "no sample: not judged", node: "unknown", want: none},
		{name: "a stale sample: not judged", node: "old", want: none},
		{name: "past nodeMetricExpirationSeconds: not judged", node: "expired", want: none},
		{name: "expired samples judged when not filtered", args: `{"filterExpiredNodeMetrics":false}`, node: "old",
			want: framework.UsageEstimate{Basis: framework.UsageFromSample, Pods: 1, MilliCPU: 1700, Memory: 700 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			p, err := New(context.Background(), raw, &schedtest.Handle{Usage: &schedtest.UsageProvider{Given: store}})
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*LoadAwareScheduling)
			pl.clock = clocktesting.NewFakePassiveClock(now)
			if got := pl.EstimateUsage(store, node(tt.node)); got != tt.want {
				t.Errorf("EstimateUsage = %+v, want %+v", got, tt.want)
			}
		})
	}
}
