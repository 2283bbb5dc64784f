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

// Results of asking opportunistic batching for a node hint
// (scheduler_batch_attempts_total's result label), as upstream names them.
const (
	// BatchNoHint is a search that got no hint.
	BatchNoHint = "no_hint"
	// BatchHintUsed is a pod placed on its hint without a search.
	BatchHintUsed = "hint_used"
	// BatchHintNotUsed is a pod whose hint did not fit, searched in full.
	BatchHintNotUsed = "hint_not_used"
)

// Why opportunistic batching dropped the nodes it kept
// (scheduler_batch_cache_flushed_total's reason label), as upstream names them.
const (
	// BatchFlushPodFailed is a previous pod that failed.
	BatchFlushPodFailed = "pod_failed"
	// BatchFlushPodSkipped is a pod of another profile, or one that failed, in between.
	BatchFlushPodSkipped = "pod_skipped"
	// BatchFlushPodNominated is a pod with a nominated node.
	BatchFlushPodNominated = "pod_nominated"
	// BatchFlushNodeMissing is a kept node gone from the snapshot.
	BatchFlushNodeMissing = "node_missing"
	// BatchFlushEmptyList is a search that left no other node.
	BatchFlushEmptyList = "empty_list"
	// BatchFlushExpired is kept nodes older than the batch's age limit.
	BatchFlushExpired = "expired"
	// BatchFlushPodIncompatible is a pod of another signature.
	BatchFlushPodIncompatible = "pod_incompatible"
	// BatchFlushPodNotBatchable is a pod its plugins could not sign.
	BatchFlushPodNotBatchable = "pod_not_batchable"
	// BatchFlushFilterError is an error filtering the node last taken.
	BatchFlushFilterError = "filter_error"
	// BatchFlushPreScoreError is an error of PreScore while rescoring.
	BatchFlushPreScoreError = "prescore_error"
	// BatchFlushRescoreError is an error scoring the node last taken again.
	BatchFlushRescoreError = "rescore_error"
	// BatchFlushNormalizeError is an error normalizing the rescored candidates.
	BatchFlushNormalizeError = "normalize_error"
)

// batchMetrics are kube-scheduler's opportunistic batching metrics.
type batchMetrics struct {
	attempts       *prometheus.CounterVec
	flushed        *prometheus.CounterVec
	rescores       *prometheus.CounterVec
	hintSeconds    *prometheus.HistogramVec
	storeSeconds   *prometheus.HistogramVec
	rescoreSeconds *prometheus.HistogramVec

	// The series observed for every search, resolved once.
	attemptSeries *seriesCache[batchKey, prometheus.Counter]
	flushSeries   *seriesCache[batchKey, prometheus.Counter]
	hintSeries    *seriesCache[batchKey, prometheus.Observer]
	storeSeries   *seriesCache[string, prometheus.Observer]
}

// batchKey is a profile and a batching metric's other label.
type batchKey struct{ profile, label string }

// batchBuckets run from 10µs to about 20ms, as upstream's.
var batchBuckets = prometheus.ExponentialBuckets(0.00001, 2, 12)

func newBatchMetrics() batchMetrics {
	b := batchMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem,
			Name:      "batch_attempts_total",
			Help:      "Counts of results when we attempt to use batching.",
		}, []string{"profile", "result"}),
		flushed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem,
			Name:      "batch_cache_flushed_total",
			Help:      "Counts of cache flushes by reason.",
		}, []string{"profile", "reason"}),
		rescores: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem,
			Name:      "batch_rescore_attempts_total",
			Help:      "Counts of rescore attempts during opportunistic batching.",
		}, []string{"profile"}),
		hintSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "get_node_hint_duration_seconds",
			Help:      "Latency for getting a node hint.",
			Buckets:   batchBuckets,
		}, []string{"hinted", "profile"}),
		storeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "store_schedule_results_duration_seconds",
			Help:      "Latency for storing scheduling results.",
			Buckets:   batchBuckets,
		}, []string{"profile"}),
		rescoreSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem,
			Name:      "batch_rescore_duration_seconds",
			Help:      "Latency for rescoring a node during opportunistic batching.",
			Buckets:   batchBuckets,
		}, []string{"profile"}),
	}
	b.attemptSeries = newSeriesCache(func(k batchKey) prometheus.Counter { return b.attempts.WithLabelValues(k.profile, k.label) })
	b.flushSeries = newSeriesCache(func(k batchKey) prometheus.Counter { return b.flushed.WithLabelValues(k.profile, k.label) })
	b.hintSeries = newSeriesCache(func(k batchKey) prometheus.Observer { return b.hintSeconds.WithLabelValues(k.label, k.profile) })
	b.storeSeries = newSeriesCache(func(profile string) prometheus.Observer { return b.storeSeconds.WithLabelValues(profile) })
	return b
}

// CountBatchAttempt counts one request for a hint, or its outcome, by
// result (BatchNoHint, BatchHintUsed, BatchHintNotUsed).
func (m *Metrics) CountBatchAttempt(profile, result string) {
	if m == nil {
		return
	}
	m.batch.attemptSeries.get(batchKey{profile: profile, label: result}).Inc()
}

// CountBatchFlush counts the kept nodes dropped, by reason (BatchFlush...).
func (m *Metrics) CountBatchFlush(profile, reason string) {
	if m == nil {
		return
	}
	m.batch.flushSeries.get(batchKey{profile: profile, label: reason}).Inc()
}

// CountBatchRescore counts one rescoring of the node last taken.
func (m *Metrics) CountBatchRescore(profile string) {
	if m == nil {
		return
	}
	m.batch.rescores.WithLabelValues(profile).Inc()
}

// ObserveNodeHint records how long asking for a hint took; hinted is
// "hint" or "no_hint".
func (m *Metrics) ObserveNodeHint(hinted, profile string, d time.Duration) {
	if m == nil {
		return
	}
	m.batch.hintSeries.get(batchKey{profile: profile, label: hinted}).Observe(d.Seconds())
}

// ObserveStoreResults records how long keeping a search's results took.
func (m *Metrics) ObserveStoreResults(profile string, d time.Duration) {
	if m == nil {
		return
	}
	m.batch.storeSeries.get(profile).Observe(d.Seconds())
}

// ObserveBatchRescore records how long rescoring the node last taken took.
func (m *Metrics) ObserveBatchRescore(profile string, d time.Duration) {
	if m == nil {
		return
	}
	m.batch.rescoreSeconds.WithLabelValues(profile).Observe(d.Seconds())
}
