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

package throughput

import (
	"math"
	"slices"
	"time"
)

// Throughput summarises when pods were bound.
type Throughput struct {
	// Bound is how many binds were seen.
	Bound int `json:"bound"`
	// Duration is the time from the first bind to the last.
	Duration time.Duration `json:"durationNs"`
	// Overall is (Bound-1)/Duration: binds per second from first to last.
	Overall float64 `json:"overall"`
	// Average, P50, P90 and P99 are over the 1-second samples (binds per
	// second), as upstream scheduler_perf reports them.
	Average float64 `json:"average"`
	P50     float64 `json:"p50"`
	P90     float64 `json:"p90"`
	P99     float64 `json:"p99"`
	// Samples is how many 1-second samples there were.
	Samples int `json:"samples"`
}

// Summarize computes the throughput of binds at the given times (in any
// order). Samples are the counts of binds in consecutive 1-second windows
// starting at the first bind; the last window counts only if it is full or
// the only one, so that a short tail does not drag the percentiles down.
func Summarize(binds []time.Time) Throughput {
	if len(binds) == 0 {
		return Throughput{}
	}
	sorted := slices.Clone(binds)
	slices.SortFunc(sorted, func(a, b time.Time) int { return a.Compare(b) })
	first, last := sorted[0], sorted[len(sorted)-1]
	t := Throughput{Bound: len(sorted), Duration: last.Sub(first)}
	if t.Duration > 0 {
		t.Overall = float64(len(sorted)-1) / t.Duration.Seconds()
	}
	windows := int(t.Duration/time.Second) + 1
	counts := make([]float64, windows)
	for _, b := range sorted {
		counts[int(b.Sub(first)/time.Second)]++
	}
	if windows > 1 && t.Duration%time.Second != 0 {
		counts = counts[:windows-1]
	}
	t.Samples = len(counts)
	sum := 0.0
	for _, c := range counts {
		sum += c
	}
	t.Average = sum / float64(len(counts))
	slices.Sort(counts)
	t.P50, t.P90, t.P99 = percentile(counts, 50), percentile(counts, 90), percentile(counts, 99)
	return t
}

// percentile returns the nearest-rank p-th percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank-1, 0)]
}

// Latency summarises the creation-to-bind latencies of pods.
type Latency struct {
	// P50, P90, P99 and Max are nearest-rank percentiles of the latencies.
	P50 time.Duration `json:"p50Ns"`
	P90 time.Duration `json:"p90Ns"`
	P99 time.Duration `json:"p99Ns"`
	Max time.Duration `json:"maxNs"`
}

// SummarizeLatency computes the percentiles of latencies (in any order).
func SummarizeLatency(latencies []time.Duration) Latency {
	if len(latencies) == 0 {
		return Latency{}
	}
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	at := func(p float64) time.Duration {
		rank := int(math.Ceil(p / 100 * float64(len(sorted))))
		return sorted[max(rank-1, 0)]
	}
	return Latency{P50: at(50), P90: at(90), P99: at(99), Max: sorted[len(sorted)-1]}
}
