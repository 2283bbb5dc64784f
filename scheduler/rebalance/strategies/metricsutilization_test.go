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

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

func TestMetricsUtilizationReads(t *testing.T) {
	tests := []struct {
		name       string
		m          *strategies.MetricsUtilization
		wantSource v1alpha1.MetricsSource
		wantQuery  string
		// wantAt is the field SourceField names, "" for none.
		wantAt string
	}{
		{name: "requests"},
		{name: "deprecated metricsServer", m: &strategies.MetricsUtilization{MetricsServer: true},
			wantSource: v1alpha1.MetricsSourceKubernetesMetrics, wantAt: "metricsUtilization.metricsServer"},
		{name: "metrics-server", m: &strategies.MetricsUtilization{Source: v1alpha1.MetricsSourceKubernetesMetrics},
			wantSource: v1alpha1.MetricsSourceKubernetesMetrics, wantAt: "metricsUtilization.source"},
		{name: "prometheus", m: &strategies.MetricsUtilization{Source: v1alpha1.MetricsSourcePrometheus, Prometheus: &strategies.Prometheus{Query: "q"}},
			wantSource: v1alpha1.MetricsSourcePrometheus, wantQuery: "q", wantAt: "metricsUtilization.source"},
		// A query with another source is not run.
		{name: "a query with metrics-server", m: &strategies.MetricsUtilization{Source: v1alpha1.MetricsSourceKubernetesMetrics, Prometheus: &strategies.Prometheus{Query: "q"}},
			wantSource: v1alpha1.MetricsSourceKubernetesMetrics, wantAt: "metricsUtilization.source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Reads(); got != tt.wantSource {
				t.Errorf("Reads() = %q, want %q", got, tt.wantSource)
			}
			if got := tt.m.Query(); got != tt.wantQuery {
				t.Errorf("Query() = %q, want %q", got, tt.wantQuery)
			}
			src, at := tt.m.SourceField()
			if src != tt.wantSource || (at == nil) != (tt.wantAt == "") || (at != nil && at.String() != tt.wantAt) {
				t.Errorf("SourceField() = %q at %v, want %q at %q", src, at, tt.wantSource, tt.wantAt)
			}
		})
	}
}
