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

// Package metrics holds the scheduler's Prometheus metrics, named as
// upstream kube-scheduler names them under the "scheduler" subsystem.
package metrics

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Subsystem is the Prometheus subsystem of every scheduler metric.
const Subsystem = "scheduler"

// Results of a scheduling attempt, as upstream labels them.
const (
	// ResultScheduled is an attempt that found a node.
	ResultScheduled = "scheduled"
	// ResultUnschedulable is an attempt that found no node.
	ResultUnschedulable = "unschedulable"
	// ResultError is an attempt that failed with an internal error.
	ResultError = "error"
)

// Results of writing a pod's Scheduled event.
const (
	// EventWritten is an event the apiserver created (or already had).
	EventWritten = "written"
	// EventDropped is an event given up: refused, failed every attempt, or
	// over the limit of events in flight.
	EventDropped = "dropped"
)

// Queue names used by the pending_pods gauge.
const (
	// QueueActive is the active queue.
	QueueActive = "active"
	// QueueBackoff is the backoff queue.
	QueueBackoff = "backoff"
	// QueueUnschedulable is the unschedulable pods pool.
	QueueUnschedulable = "unschedulable"
	// QueueGated is the set of pods held by PreEnqueue plugins.
	QueueGated = "gated"
)

// Metrics are the scheduler's metrics. A nil *Metrics is valid: every
// method is then a no-op, so tests and tools can run without a registry.
type Metrics struct {
	scheduleAttempts         *prometheus.CounterVec
	schedulingAttemptSeconds *prometheus.HistogramVec
	pendingPods              *prometheus.GaugeVec
	extensionPointSeconds    *prometheus.HistogramVec
	podSchedulingSLISeconds  *prometheus.HistogramVec
	pluginExecutionSeconds   *prometheus.HistogramVec
	permitWaitSeconds        *prometheus.HistogramVec
	scheduledEvents          *prometheus.CounterVec
	shadowDecisions          *prometheus.CounterVec
	workloadAPI              prometheus.Gauge
	unreadWorkloadAPI        *prometheus.GaugeVec
	foreignBindings          *prometheus.CounterVec

	// The kube-scheduler metrics below are named, labelled and bucketed as
	// upstream's.
	unschedulablePods     *prometheus.GaugeVec
	preemptionAttempts    prometheus.Counter
	preemptionVictims     prometheus.Histogram
	queueIncomingPods     *prometheus.CounterVec
	podSchedulingAttempts prometheus.Histogram
	cacheSize             *prometheus.GaugeVec
	goroutines            *prometheus.GaugeVec
	eventHandlingSeconds  *prometheus.HistogramVec
	batch                 batchMetrics

	// berth holds Berth's own metrics (rebalancer, gangs, extenders, profiles).
	berth berthMetrics

	// unschedulableSeen is the label sets SetUnschedulablePods set last, so
	// that the next call deletes those that are gone without a reset.
	unschedulableMu   sync.Mutex
	unschedulableSeen map[PluginProfile]struct{}

	// cached holds the series observed per pod, resolved once.
	cached observerCaches
}

// New creates the metrics and registers them with reg; a nil reg creates
// them without registering (useful when only the values matter).
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		scheduleAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem,
			Name:      "schedule_attempts_total",
			Help:      "Number of attempts to schedule pods, by the result and the profile.",
		}, []string{"result", "profile"}),
		schedulingAttemptSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "scheduling_attempt_duration_seconds",
			Help:      "Scheduling attempt latency in seconds (scheduling algorithm + binding).",
			Buckets:   prometheus.ExponentialBuckets(0.001, 2, 15),
		}, []string{"result", "profile"}),
		pendingPods: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem,
			Name:      "pending_pods",
			Help:      "Number of pending pods, by the queue type.",
		}, []string{"queue"}),
		extensionPointSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "framework_extension_point_duration_seconds",
			Help:      "Latency for running all plugins of a specific extension point.",
			Buckets:   prometheus.ExponentialBuckets(0.0001, 2, 12),
		}, []string{"extension_point", "status", "profile"}),
		podSchedulingSLISeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "pod_scheduling_sli_duration_seconds",
			Help:      "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue, by the number of attempts.",
			Buckets:   prometheus.ExponentialBuckets(0.01, 2, 20),
		}, []string{"attempts"}),
		pluginExecutionSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "plugin_execution_duration_seconds",
			Help:      "Duration for running a plugin at a specific extension point.",
			Buckets:   prometheus.ExponentialBuckets(0.00001, 1.5, 20),
		}, []string{"plugin", "extension_point", "status"}),
		permitWaitSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "permit_wait_duration_seconds",
			Help:      "Duration of waiting on permit.",
			Buckets:   prometheus.ExponentialBuckets(0.001, 2, 15),
		}, []string{"result"}),
		scheduledEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem,
			Name:      "scheduled_events_total",
			Help:      "Number of Scheduled events of bound pods, by whether they were written or dropped (a Berth metric; kube-scheduler has none).",
		}, []string{"result"}),
		shadowDecisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "berth",
			Subsystem: "shadow",
			Name:      "decisions_total",
			Help:      "Scheduling attempts a shadow profile evaluated (or dropped), by the shadow profile and the outcome of comparing it with the live profile (a Berth metric).",
		}, []string{"profile", "outcome"}),
		unreadWorkloadAPI: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "berth",
			Subsystem: "workload",
			Name:      "api_unread",
			Help:      "1 for each group version the apiserver serves PodGroups in that Berth does not read, when it does not serve the one Berth reads: pods that join such a PodGroup are held (a Berth metric).",
		}, []string{"group_version"}),
		workloadAPI: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "berth",
			Subsystem: "workload",
			Name:      "api_served",
			Help:      "1 when the apiserver serves scheduling.k8s.io/v1beta1 PodGroups and Berth schedules pods that join them, 0 when it does not (a Berth metric).",
		}),
		foreignBindings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "berth",
			Name:      "foreign_bindings_total",
			Help:      "Pods of a schedulerName a Berth profile serves that another scheduler bound, by the profile and the other scheduler (its Scheduled event's reporting controller, or unknown) (a Berth metric).",
		}, []string{"profile", "scheduler"}),
	}
	m.newUpstreamMetrics()
	m.batch = newBatchMetrics()
	m.berth = newBerthMetrics()
	m.cached = m.newObserverCaches()
	if reg == nil {
		return m, nil
	}
	var errs []error
	for _, c := range m.collectors() {
		if err := reg.Register(c); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("registering scheduler metrics: %w", err)
	}
	return m, nil
}

func (m *Metrics) collectors() []prometheus.Collector {
	return append([]prometheus.Collector{
		m.scheduleAttempts, m.schedulingAttemptSeconds, m.pendingPods, m.extensionPointSeconds,
		m.podSchedulingSLISeconds, m.pluginExecutionSeconds, m.permitWaitSeconds, m.scheduledEvents,
		m.shadowDecisions, m.workloadAPI, m.unreadWorkloadAPI, m.foreignBindings,
		m.unschedulablePods, m.preemptionAttempts, m.preemptionVictims, m.queueIncomingPods,
		m.podSchedulingAttempts, m.cacheSize, m.goroutines, m.eventHandlingSeconds,
		m.batch.attempts, m.batch.flushed, m.batch.rescores, m.batch.hintSeconds, m.batch.storeSeconds, m.batch.rescoreSeconds,
	}, m.berth.collectors()...)
}

// SetNativeWorkloadAPI records whether the apiserver serves
// scheduling.k8s.io/v1beta1 PodGroups.
func (m *Metrics) SetNativeWorkloadAPI(served bool) {
	if m == nil {
		return
	}
	v := 0.0
	if served {
		v = 1
	}
	m.workloadAPI.Set(v)
}

// SetUnreadWorkloadAPIs records the group versions the apiserver serves
// PodGroups in that the scheduler does not read.
func (m *Metrics) SetUnreadWorkloadAPIs(groupVersions []string) {
	if m == nil {
		return
	}
	m.unreadWorkloadAPI.Reset()
	for _, gv := range groupVersions {
		m.unreadWorkloadAPI.WithLabelValues(gv).Set(1)
	}
}

// ObserveScheduleAttempt counts one scheduling attempt of the profile with
// its result (ResultScheduled, ResultUnschedulable or ResultError) and duration.
func (m *Metrics) ObserveScheduleAttempt(result, profile string, d time.Duration) {
	if m == nil {
		return
	}
	series := m.cached.attempt.get(attemptKey{result: result, profile: profile})
	series.count.Inc()
	series.duration.Observe(d.Seconds())
}

// SetPendingPods sets the number of pods in a queue (QueueActive, ...).
func (m *Metrics) SetPendingPods(queue string, n int) {
	if m == nil {
		return
	}
	m.pendingPods.WithLabelValues(queue).Set(float64(n))
}

// AddPendingPods adds delta to the number of pods in a queue.
func (m *Metrics) AddPendingPods(queue string, delta int) {
	if m == nil {
		return
	}
	m.pendingPods.WithLabelValues(queue).Add(float64(delta))
}

// ObserveExtensionPoint records how long all plugins of one extension point
// took in one call, with the resulting status code's name.
func (m *Metrics) ObserveExtensionPoint(extensionPoint, status, profile string, d time.Duration) {
	if m == nil {
		return
	}
	m.cached.extensionPoint.get(extensionPointKey{extensionPoint: extensionPoint, status: status, profile: profile}).Observe(d.Seconds())
}

// ObservePodSchedulingSLI records the time from a pod's first entry into the
// queue to its successful scheduling, by the number of attempts it took.
func (m *Metrics) ObservePodSchedulingSLI(attempts int, d time.Duration) {
	if m == nil {
		return
	}
	m.cached.sli.get(min(attempts, maxAttemptsLabel)).Observe(d.Seconds())
}

// ObservePluginExecution records one plugin call at an extension point.
func (m *Metrics) ObservePluginExecution(plugin, extensionPoint, status string, d time.Duration) {
	if m == nil {
		return
	}
	m.cached.plugin.get(pluginKey{plugin: plugin, extensionPoint: extensionPoint, status: status}).Observe(d.Seconds())
}

// ObservePermitWait records how long a pod waited at Permit and how it ended.
func (m *Metrics) ObservePermitWait(result string, d time.Duration) {
	if m == nil {
		return
	}
	m.cached.permitWait.get(result).Observe(d.Seconds())
}

// CountScheduledEvent counts one bound pod's Scheduled event with its
// result (EventWritten or EventDropped).
func (m *Metrics) CountScheduledEvent(result string) {
	if m == nil {
		return
	}
	m.scheduledEvents.WithLabelValues(result).Inc()
}

// CountShadowDecision counts one scheduling attempt that the shadow
// profile evaluated, or dropped, with its outcome (see package shadow).
func (m *Metrics) CountShadowDecision(profile, outcome string) {
	if m == nil {
		return
	}
	m.shadowDecisions.WithLabelValues(profile, outcome).Inc()
}

// CountForeignBinding counts one pod of the profile's schedulerName that
// another scheduler, named by scheduler, bound.
func (m *Metrics) CountForeignBinding(profile, scheduler string) {
	if m == nil {
		return
	}
	m.foreignBindings.WithLabelValues(profile, scheduler).Inc()
}

// DeleteShadowProfile drops the series of a shadow profile that is gone.
func (m *Metrics) DeleteShadowProfile(profile string) {
	if m == nil {
		return
	}
	m.shadowDecisions.DeletePartialMatch(prometheus.Labels{"profile": profile})
}

// maxAttemptsLabel is the number of attempts from which the attempts label
// reads "15+".
const maxAttemptsLabel = 15

// attemptsLabel caps the attempts label at 15+, as upstream does, to bound
// the label's cardinality.
func attemptsLabel(attempts int) string {
	if attempts >= maxAttemptsLabel {
		return "15+"
	}
	return strconv.Itoa(attempts)
}
