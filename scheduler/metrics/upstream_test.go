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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func newTestMetrics(t *testing.T) (*prometheus.Registry, *Metrics) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return reg, m
}

// TestUpstreamMetricsMatchKubeScheduler checks name, type, labels and
// buckets of the kube-scheduler metrics against upstream's definitions.
func TestUpstreamMetricsMatchKubeScheduler(t *testing.T) {
	reg, m := newTestMetrics(t)
	m.SetUnschedulablePods(map[PluginProfile]int{{Plugin: "NodeAffinity", Profile: "p"}: 1})
	m.ObservePreemption(3)
	m.CountIncomingPod(QueueActive, "UnscheduledPodAdd")
	m.ObservePodScheduled(2)
	m.SetCacheSize(1, 2, 3)
	m.AddGoroutines(OperationBinding, 1)
	m.ObserveEventHandling("NodeAdd", time.Millisecond)
	m.CountBatchAttempt("p", BatchHintUsed)
	m.CountBatchFlush("p", BatchFlushExpired)
	m.CountBatchRescore("p")
	m.ObserveNodeHint("hint", "p", time.Millisecond)
	m.ObserveStoreResults("p", time.Millisecond)
	m.ObserveBatchRescore("p", time.Millisecond)

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		typ     string
		labels  []string
		buckets []float64
	}
	wants := map[string]want{
		"scheduler_unschedulable_pods":                      {typ: "GAUGE", labels: []string{"plugin", "profile"}},
		"scheduler_preemption_attempts_total":               {typ: "COUNTER"},
		"scheduler_preemption_victims":                      {typ: "HISTOGRAM", buckets: []float64{1, 2, 4, 8, 16, 32, 64}},
		"scheduler_queue_incoming_pods_total":               {typ: "COUNTER", labels: []string{"event", "queue"}},
		"scheduler_pod_scheduling_attempts":                 {typ: "HISTOGRAM", buckets: []float64{1, 2, 4, 8, 16}},
		"scheduler_cache_size":                              {typ: "GAUGE", labels: []string{"type"}},
		"scheduler_goroutines":                              {typ: "GAUGE", labels: []string{"operation"}},
		"scheduler_event_handling_duration_seconds":         {typ: "HISTOGRAM", labels: []string{"event"}, buckets: prometheus.ExponentialBuckets(0.0001, 2, 12)},
		"scheduler_batch_attempts_total":                    {typ: "COUNTER", labels: []string{"profile", "result"}},
		"scheduler_batch_cache_flushed_total":               {typ: "COUNTER", labels: []string{"profile", "reason"}},
		"scheduler_batch_rescore_attempts_total":            {typ: "COUNTER", labels: []string{"profile"}},
		"scheduler_get_node_hint_duration_seconds":          {typ: "HISTOGRAM", labels: []string{"hinted", "profile"}, buckets: prometheus.ExponentialBuckets(0.00001, 2, 12)},
		"scheduler_store_schedule_results_duration_seconds": {typ: "HISTOGRAM", labels: []string{"profile"}, buckets: prometheus.ExponentialBuckets(0.00001, 2, 12)},
		"scheduler_batch_rescore_duration_seconds":          {typ: "HISTOGRAM", labels: []string{"profile"}, buckets: prometheus.ExponentialBuckets(0.00001, 2, 12)},
	}
	for _, f := range families {
		w, ok := wants[f.GetName()]
		if !ok {
			continue
		}
		delete(wants, f.GetName())
		if got := f.GetType().String(); got != w.typ {
			t.Errorf("%s is a %s, want %s", f.GetName(), got, w.typ)
		}
		mt := f.GetMetric()[0]
		var labels []string
		for _, l := range mt.GetLabel() {
			labels = append(labels, l.GetName())
		}
		if !slices.Equal(labels, w.labels) {
			t.Errorf("%s has labels %v, want %v", f.GetName(), labels, w.labels)
		}
		if w.buckets != nil {
			var bounds []float64
			for _, b := range mt.GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			if !slices.Equal(bounds, w.buckets) {
				t.Errorf("%s has buckets %v, want %v", f.GetName(), bounds, w.buckets)
			}
		}
	}
	for name := range wants {
		t.Errorf("%s is not exported", name)
	}
}

func TestSetUnschedulablePodsDeletesVanishedSeries(t *testing.T) {
	_, m := newTestMetrics(t)
	m.SetUnschedulablePods(map[PluginProfile]int{
		{Plugin: "NodeAffinity", Profile: "a"}:    2,
		{Plugin: "TaintToleration", Profile: "a"}: 1,
	})
	m.SetUnschedulablePods(map[PluginProfile]int{{Plugin: "NodeAffinity", Profile: "a"}: 5})

	want := `# HELP scheduler_unschedulable_pods The number of unschedulable pods broken down by plugin name. A pod counts for every plugin that rejected it, left it pending or gates it, so the metric has meaning only when broken down by plugin.
# TYPE scheduler_unschedulable_pods gauge
scheduler_unschedulable_pods{plugin="NodeAffinity",profile="a"} 5
`
	if err := testutil.CollectAndCompare(m.unschedulablePods, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

func TestObservePreemption(t *testing.T) {
	for _, tc := range []struct {
		name         string
		victims      []int
		wantAttempts float64
		wantObserved int
	}{
		{name: "no candidate", victims: []int{0}, wantAttempts: 1, wantObserved: 0},
		{name: "victims chosen", victims: []int{2, 0, 70}, wantAttempts: 3, wantObserved: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := newTestMetrics(t)
			for _, v := range tc.victims {
				m.ObservePreemption(v)
			}
			if got := testutil.ToFloat64(m.preemptionAttempts); got != tc.wantAttempts {
				t.Errorf("preemption_attempts_total = %v, want %v", got, tc.wantAttempts)
			}
			if got := histogramCount(t, m.preemptionVictims); got != tc.wantObserved {
				t.Errorf("preemption_victims observed %d times, want %d", got, tc.wantObserved)
			}
		})
	}
}

func TestQueueCacheGoroutineAndEventMetrics(t *testing.T) {
	_, m := newTestMetrics(t)
	m.CountIncomingPod(QueueActive, "UnscheduledPodAdd")
	m.CountIncomingPod(QueueActive, "UnscheduledPodAdd")
	m.CountIncomingPod(QueueBackoff, "ScheduleAttemptFailure")
	m.SetCacheSize(3, 10, 2)
	m.AddGoroutines(OperationBinding, 2)
	m.AddGoroutines(OperationBinding, -1)
	m.ObservePodScheduled(1)
	m.ObservePodScheduled(20)
	m.ObserveEventHandling("NodeAdd", time.Millisecond)

	for _, tc := range []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"incoming active", m.queueIncomingPods.WithLabelValues(QueueActive, "UnscheduledPodAdd"), 2},
		{"incoming backoff", m.queueIncomingPods.WithLabelValues(QueueBackoff, "ScheduleAttemptFailure"), 1},
		{"cache nodes", m.cacheSize.WithLabelValues(CacheNodes), 3},
		{"cache pods", m.cacheSize.WithLabelValues(CachePods), 10},
		{"cache assumed", m.cacheSize.WithLabelValues(CacheAssumedPods), 2},
		{"binding goroutines", m.goroutines.WithLabelValues(OperationBinding), 1},
	} {
		if got := testutil.ToFloat64(tc.c); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := histogramCount(t, m.podSchedulingAttempts); got != 2 {
		t.Errorf("pod_scheduling_attempts observed %d times, want 2", got)
	}
	if got := testutil.CollectAndCount(m.eventHandlingSeconds); got != 1 {
		t.Errorf("event_handling_duration_seconds has %d series, want 1", got)
	}
}

func TestFromReadsTheHandlesMetrics(t *testing.T) {
	_, m := newTestMetrics(t)
	if got := From(source{m}); got != m {
		t.Errorf("From(a Source) = %p, want %p", got, m)
	}
	if got := From(struct{}{}); got != nil {
		t.Errorf("From(a non-Source) = %p, want nil", got)
	}
}

type source struct{ m *Metrics }

func (s source) Metrics() *Metrics { return s.m }

// histogramCount reads the number of observations of a histogram.
func histogramCount(t *testing.T, h prometheus.Histogram) int {
	t.Helper()
	ch := make(chan prometheus.Metric, 1)
	h.Collect(ch)
	var pb = dtoMetric(t, <-ch)
	return int(pb.GetHistogram().GetSampleCount())
}
