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

package metrics

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// seriesCounts gathers reg and returns the sample count (counter value for
// counters) of every series observed, keyed by "name{v1,v2,...}" with the label
// values in label-name order.
func seriesCounts(t *testing.T, reg *prometheus.Registry) map[string]uint64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, f := range families {
		for _, mt := range f.GetMetric() {
			var values []string
			for _, l := range mt.GetLabel() {
				values = append(values, l.GetValue())
			}
			key := f.GetName() + "{" + strings.Join(values, ",") + "}"
			var n uint64
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				n = uint64(mt.GetCounter().GetValue())
			case dto.MetricType_HISTOGRAM:
				n = mt.GetHistogram().GetSampleCount()
			}
			// Metrics without labels are exported before anything is
			// observed; only what was observed counts.
			if n > 0 {
				got[key] = n
			}
		}
	}
	return got
}

func TestCachedObservationsLandInTheirSeries(t *testing.T) {
	tests := []struct {
		name    string
		observe func(m *Metrics)
		want    map[string]uint64
	}{
		{
			name: "extension points by point, status and profile",
			observe: func(m *Metrics) {
				m.ObserveExtensionPoint("Filter", "Success", "a", time.Millisecond)
				m.ObserveExtensionPoint("Filter", "Success", "a", time.Millisecond)
				m.ObserveExtensionPoint("Filter", "Error", "a", time.Millisecond)
				m.ObserveExtensionPoint("Filter", "Success", "b", time.Millisecond)
				m.ObserveExtensionPoint("Score", "Success", "a", time.Millisecond)
			},
			want: map[string]uint64{
				"scheduler_framework_extension_point_duration_seconds{Filter,a,Success}": 2,
				"scheduler_framework_extension_point_duration_seconds{Filter,a,Error}":   1,
				"scheduler_framework_extension_point_duration_seconds{Filter,b,Success}": 1,
				"scheduler_framework_extension_point_duration_seconds{Score,a,Success}":  1,
			},
		},
		{
			name: "attempts count and time by result and profile",
			observe: func(m *Metrics) {
				m.ObserveScheduleAttempt(ResultScheduled, "a", time.Millisecond)
				m.ObserveScheduleAttempt(ResultScheduled, "a", time.Millisecond)
				m.ObserveScheduleAttempt(ResultError, "a", time.Millisecond)
				m.ObserveScheduleAttempt(ResultScheduled, "b", time.Millisecond)
			},
			want: map[string]uint64{
				"scheduler_schedule_attempts_total{a,scheduled}":             2,
				"scheduler_schedule_attempts_total{a,error}":                 1,
				"scheduler_schedule_attempts_total{b,scheduled}":             1,
				"scheduler_scheduling_attempt_duration_seconds{a,scheduled}": 2,
				"scheduler_scheduling_attempt_duration_seconds{a,error}":     1,
				"scheduler_scheduling_attempt_duration_seconds{b,scheduled}": 1,
			},
		},
		{
			name: "SLI by attempts, 15 and more in one series",
			observe: func(m *Metrics) {
				for _, attempts := range []int{1, 1, 14, 15, 16, 99} {
					m.ObservePodSchedulingSLI(attempts, time.Second)
				}
			},
			want: map[string]uint64{
				"scheduler_pod_scheduling_sli_duration_seconds{1}":   2,
				"scheduler_pod_scheduling_sli_duration_seconds{14}":  1,
				"scheduler_pod_scheduling_sli_duration_seconds{15+}": 3,
			},
		},
		{
			name: "plugin executions and permit waits",
			observe: func(m *Metrics) {
				m.ObservePluginExecution("X", "Filter", "Success", time.Millisecond)
				m.ObservePluginExecution("X", "Filter", "Success", time.Millisecond)
				m.ObservePluginExecution("Y", "Filter", "Success", time.Millisecond)
				m.ObservePermitWait("Success", time.Second)
				m.ObservePermitWait("Unschedulable", time.Second)
				m.ObservePermitWait("Success", time.Second)
			},
			want: map[string]uint64{
				"scheduler_plugin_execution_duration_seconds{Filter,X,Success}": 2,
				"scheduler_plugin_execution_duration_seconds{Filter,Y,Success}": 1,
				"scheduler_permit_wait_duration_seconds{Success}":               2,
				"scheduler_permit_wait_duration_seconds{Unschedulable}":         1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := New(reg)
			if err != nil {
				t.Fatal(err)
			}
			tt.observe(m)
			got := seriesCounts(t, reg)
			if len(got) != len(tt.want) {
				t.Errorf("series %v, want %v", keys(got), keys(tt.want))
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %d, want %d", k, got[k], want)
				}
			}
		})
	}
}

func keys(m map[string]uint64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The cached series is the vector's own: an observation through either
// shows in one series, and the sum is the durations'.
func TestCachedSeriesIsTheVectorsSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveExtensionPoint("Bind", "Success", "a", 2*time.Millisecond)
	m.extensionPointSeconds.WithLabelValues("Bind", "Success", "a").Observe(0.003)
	m.ObserveExtensionPoint("Bind", "Success", "a", 5*time.Millisecond)
	var out dto.Metric
	if err := m.extensionPointSeconds.WithLabelValues("Bind", "Success", "a").(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	if h := out.GetHistogram(); h.GetSampleCount() != 3 || h.GetSampleSum() < 0.0099 || h.GetSampleSum() > 0.0101 {
		t.Errorf("count %d, sum %v; want 3, 0.010", h.GetSampleCount(), h.GetSampleSum())
	}
}

func TestCachedObservationsAreSafeConcurrently(t *testing.T) {
	const goroutines, each = 8, 200
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	points := []string{"PreFilter", "Filter", "Score", "Bind"}
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range each {
				m.ObserveExtensionPoint(points[i%len(points)], "Success", "a", time.Millisecond)
				m.ObserveScheduleAttempt(ResultScheduled, "a", time.Millisecond)
			}
		})
	}
	wg.Wait()
	got := seriesCounts(t, reg)
	for _, p := range points {
		if k := "scheduler_framework_extension_point_duration_seconds{" + p + ",a,Success}"; got[k] != uint64(goroutines*each/len(points)) {
			t.Errorf("%s = %d, want %d", k, got[k], goroutines*each/len(points))
		}
	}
	if k := "scheduler_schedule_attempts_total{a,scheduled}"; got[k] != goroutines*each {
		t.Errorf("%s = %d, want %d", k, got[k], goroutines*each)
	}
}

// BenchmarkObserveExtensionPoint compares resolving the series through the
// vector on every observation with the cached series.
func BenchmarkObserveExtensionPoint(b *testing.B) {
	m, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	points := []string{"PreFilter", "Filter", "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind", "PostBind"}
	b.Run("vector", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.extensionPointSeconds.WithLabelValues(points[i%len(points)], "Success", "default-scheduler").Observe(0.001)
			i++
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.ObserveExtensionPoint(points[i%len(points)], "Success", "default-scheduler", time.Millisecond)
			i++
		}
	})
}
