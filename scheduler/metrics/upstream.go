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
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Labels of scheduler_cache_size.
const (
	// CacheNodes counts the nodes of the cache.
	CacheNodes = "nodes"
	// CachePods counts the pods of the cache, assumed ones included.
	CachePods = "pods"
	// CacheAssumedPods counts the pods assumed and not yet confirmed by the informer.
	CacheAssumedPods = "assumed_pods"
)

// OperationBinding is the scheduler_goroutines label of binding cycles.
const OperationBinding = "binding"

// PluginProfile is one label set of scheduler_unschedulable_pods.
type PluginProfile struct {
	// Plugin is a plugin that rejected, left pending or gates the pods.
	Plugin string
	// Profile is the pods' schedulerName.
	Profile string
}

// newUpstreamMetrics creates the kube-scheduler metrics Berth exports
// besides those New creates inline.
func (m *Metrics) newUpstreamMetrics() {
	m.unschedulablePods = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: Subsystem,
		Name:      "unschedulable_pods",
		Help:      "The number of unschedulable pods broken down by plugin name. A pod counts for every plugin that rejected it, left it pending or gates it, so the metric has meaning only when broken down by plugin.",
	}, []string{"plugin", "profile"})
	m.preemptionAttempts = prometheus.NewCounter(prometheus.CounterOpts{
		Subsystem: Subsystem,
		Name:      "preemption_attempts_total",
		Help:      "Total preemption attempts in the cluster till now.",
	})
	m.preemptionVictims = prometheus.NewHistogram(prometheus.HistogramOpts{
		Subsystem: Subsystem,
		Name:      "preemption_victims",
		Help:      "Number of selected preemption victims for preemption initiated by a single pod.",
		Buckets:   prometheus.ExponentialBuckets(1, 2, 7),
	})
	m.queueIncomingPods = prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: Subsystem,
		Name:      "queue_incoming_pods_total",
		Help:      "Number of pods added to scheduling queues by event and queue type.",
	}, []string{"queue", "event"})
	m.podSchedulingAttempts = prometheus.NewHistogram(prometheus.HistogramOpts{
		Subsystem: Subsystem,
		Name:      "pod_scheduling_attempts",
		Help:      "Number of attempts to successfully schedule a pod.",
		Buckets:   prometheus.ExponentialBuckets(1, 2, 5),
	})
	m.cacheSize = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: Subsystem,
		Name:      "cache_size",
		Help:      "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
	}, []string{"type"})
	m.goroutines = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: Subsystem,
		Name:      "goroutines",
		Help:      "Number of running goroutines split by the work they do such as binding.",
	}, []string{"operation"})
	m.eventHandlingSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: Subsystem,
		Name:      "event_handling_duration_seconds",
		Help:      "Event handling latency in seconds.",
		Buckets:   prometheus.ExponentialBuckets(0.0001, 2, 12),
	}, []string{"event"})
}

// SetUnschedulablePods replaces the scheduler_unschedulable_pods series
// with counts: label sets missing from counts are deleted, so a scrape
// never sees the gauge emptied half way.
func (m *Metrics) SetUnschedulablePods(counts map[PluginProfile]int) {
	if m == nil {
		return
	}
	m.unschedulableMu.Lock()
	defer m.unschedulableMu.Unlock()
	for k := range m.unschedulableSeen {
		if _, ok := counts[k]; !ok {
			m.unschedulablePods.DeleteLabelValues(k.Plugin, k.Profile)
		}
	}
	seen := make(map[PluginProfile]struct{}, len(counts))
	for k, n := range counts {
		m.unschedulablePods.WithLabelValues(k.Plugin, k.Profile).Set(float64(n))
		seen[k] = struct{}{}
	}
	m.unschedulableSeen = seen
}

// ObservePreemption counts one preemption attempt (a DefaultPreemption
// PostFilter call) and, when it chose victims, how many.
func (m *Metrics) ObservePreemption(victims int) {
	if m == nil {
		return
	}
	m.preemptionAttempts.Inc()
	if victims > 0 {
		m.preemptionVictims.Observe(float64(victims))
	}
}

// CountIncomingPod counts one pod added to a queue (QueueActive,
// QueueBackoff, QueueUnschedulable or QueueGated) by an event.
func (m *Metrics) CountIncomingPod(queue, event string) {
	if m == nil {
		return
	}
	m.cached.incoming.get(incomingKey{queue: queue, event: event}).Inc()
}

// ObservePodScheduled records how many attempts a pod took to be scheduled.
func (m *Metrics) ObservePodScheduled(attempts int) {
	if m == nil {
		return
	}
	m.podSchedulingAttempts.Observe(float64(attempts))
}

// SetCacheSize sets the sizes of the scheduler's cache.
func (m *Metrics) SetCacheSize(nodes, pods, assumedPods int) {
	if m == nil {
		return
	}
	m.cacheSize.WithLabelValues(CacheNodes).Set(float64(nodes))
	m.cacheSize.WithLabelValues(CachePods).Set(float64(pods))
	m.cacheSize.WithLabelValues(CacheAssumedPods).Set(float64(assumedPods))
}

// AddGoroutines adds delta to the goroutines running an operation
// (OperationBinding, ...).
func (m *Metrics) AddGoroutines(operation string, delta int) {
	if m == nil {
		return
	}
	m.cached.goroutines.get(operation).Add(float64(delta))
}

// ObserveEventHandling records how long handling one informer event took,
// by the event's label (for example NodeAdd or AssignedPodDelete).
func (m *Metrics) ObserveEventHandling(event string, d time.Duration) {
	if m == nil {
		return
	}
	m.cached.eventHandling.get(event).Observe(d.Seconds())
}

// Source is a framework handle that records metrics; the runtime's
// Framework is one. Plugins reach the scheduler's metrics through it.
type Source interface {
	// Metrics returns the metrics to record into; nil records nothing.
	Metrics() *Metrics
}

// From returns the metrics of a handle that is a Source, else nil.
func From(handle any) *Metrics {
	if s, ok := handle.(Source); ok {
		return s.Metrics()
	}
	return nil
}
