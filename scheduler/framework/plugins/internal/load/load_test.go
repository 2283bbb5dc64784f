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

package load

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/usage"
)

func TestNotInSample(t *testing.T) {
	sample := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	bound := func(at time.Time) *v1.Pod {
		return &v1.Pod{Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)}}}}
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		want bool
	}{
		{"assumed, not seen bound", &v1.Pod{}, true},
		{"unschedulable so far", &v1.Pod{Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse}}}}, true},
		{"bound after the sample", bound(sample.Add(time.Second)), true},
		{"bound within the reporting lag before it", bound(sample.Add(-30 * time.Second)), true},
		{"bound a lag before it", bound(sample.Add(-ReportingLag)), false},
		{"bound long before", bound(sample.Add(-time.Hour)), false},
		{"placed by nodeName, started long before", &v1.Pod{Status: v1.PodStatus{StartTime: &metav1.Time{Time: sample.Add(-time.Hour)}}}, false},
		{"placed by nodeName, started after", &v1.Pod{Status: v1.PodStatus{StartTime: &metav1.Time{Time: sample}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NotInSample(tt.pod, sample); got != tt.want {
				t.Errorf("NotInSample = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMetricProviderSource(t *testing.T) {
	tests := []struct {
		name, json string
		want       usage.Source
		wantErr    string
	}{
		{name: "metrics-server by default", json: `{}`, want: usage.Source{Type: usage.MetricsServer}},
		{
			name: "Prometheus with load-watcher's queries and Secrets",
			json: `{"type":"Prometheus","address":"https://prom:9090","tokenSecretRef":{"namespace":"berth-system","name":"prom"},"caSecretRef":{"namespace":"berth-system","name":"prom-ca"}}`,
			want: usage.Source{
				Type: usage.Prometheus, Address: "https://prom:9090",
				Queries: map[usage.Resource]string{
					usage.CPU: DefaultCPUQuery, usage.Memory: DefaultMemoryQuery,
					usage.CPUStdDev: DefaultCPUStdDevQuery, usage.MemoryStdDev: DefaultMemoryStdDevQuery,
				},
				Token: &usage.SecretKeyRef{Namespace: "berth-system", Name: "prom", Key: DefaultTokenKey},
				CA:    &usage.SecretKeyRef{Namespace: "berth-system", Name: "prom-ca", Key: DefaultCAKey},
			},
		},
		{name: "an address for metrics-server", json: `{"address":"http://x"}`, wantErr: "leave address unset"},
		{name: "a Secret without its namespace", json: `{"type":"Prometheus","address":"http://p","tokenSecretRef":{"name":"t"}}`, wantErr: "tokenSecretRef.namespace: Required"},
		{name: "not a URL", json: `{"type":"Prometheus","address":"prom:9090"}`, wantErr: "http:// or https://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p MetricProvider
			if err := json.Unmarshal([]byte(tt.json), &p); err != nil {
				t.Fatal(err)
			}
			p.Default()
			errs := p.Validate(nil)
			if tt.wantErr != "" {
				if !strings.Contains(errs.ToAggregate().Error(), tt.wantErr) {
					t.Fatalf("Validate = %v, want an error containing %q", errs, tt.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("Validate: %v", errs)
			}
			if diff := cmp.Diff(tt.want, p.Source()); diff != "" {
				t.Errorf("Source (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEstimate(t *testing.T) {
	now := time.Now()
	sample := now.Add(-10 * time.Second)
	view := schedtest.NewUsageStore().
		Set("sampled", sample, usage.Fresh, usage.CPU, 0.5, usage.Memory, 0.5).
		Set("old", now.Add(-time.Hour), usage.Stale, usage.CPU, 0.5, usage.Memory, 0.5)
	shown := schedtest.Pod("shown").Req("cpu", "1", "memory", "1Gi").BoundAt(sample.Add(-time.Hour)).Obj()
	since := schedtest.Pod("since").Req("cpu", "2", "memory", "2Gi").BoundAt(sample.Add(time.Second)).Obj()
	node := func(name string) *framework.NodeInfo {
		return schedtest.NodeInfo(schedtest.Node(name).Alloc("cpu", "10", "memory", "10Gi").Obj(), shown, since)
	}
	cpu := func(pi *framework.PodInfo) float64 { return float64(pi.Requests.MilliCPU) }
	memory := func(pi *framework.PodInfo) float64 { return float64(pi.Requests.Memory) }
	tests := []struct {
		name   string
		view   usage.View
		node   string
		memory Estimator
		want   framework.UsageEstimate
	}{
		{name: "a fresh sample: the pods it does not show", view: view, node: "sampled", memory: memory,
			want: framework.UsageEstimate{Basis: framework.UsageFromSample, Pods: 1, MilliCPU: 2000, Memory: 2 << 30}},
		{name: "CPU only", view: view, node: "sampled",
			want: framework.UsageEstimate{Basis: framework.UsageFromSample, Pods: 1, MilliCPU: 2000}},
		{name: "a stale sample: every pod", view: view, node: "old", memory: memory,
			want: framework.UsageEstimate{Basis: framework.UsageFromPods, Pods: 2, MilliCPU: 3000, Memory: 3 << 30}},
		{name: "no sample: every pod", view: view, node: "unknown", memory: memory,
			want: framework.UsageEstimate{Basis: framework.UsageFromPods, Pods: 2, MilliCPU: 3000, Memory: 3 << 30}},
		{name: "no view: every pod", node: "sampled", memory: memory,
			want: framework.UsageEstimate{Basis: framework.UsageFromPods, Pods: 2, MilliCPU: 3000, Memory: 3 << 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Estimate(tt.view, node(tt.node), cpu, tt.memory)); diff != "" {
				t.Errorf("Estimate (-want +got):\n%s", diff)
			}
		})
	}
}
