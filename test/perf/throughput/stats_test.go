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
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		binds []time.Time
		want  Throughput
	}{
		{name: "no binds", want: Throughput{}},
		{
			name:  "one bind is one partial sample",
			binds: bindsAt(0),
			want:  Throughput{Bound: 1, Average: 1, P50: 1, P90: 1, P99: 1, Samples: 1},
		},
		{
			name:  "101 binds over exactly 2 s: two full windows and the last bind's",
			binds: bindsAt(evenly(101, 2*time.Second)...),
			want:  Throughput{Bound: 101, Duration: 2 * time.Second, Overall: 50, Average: 101.0 / 3, P50: 50, P90: 50, P99: 50, Samples: 3},
		},
		{
			name: "a partial last window is dropped; order does not matter",
			// window 0: 3 binds, window 1: 1 bind, window 2 (partial, dropped): 1 bind.
			binds: bindsAt(2500*ms, 0, 100*ms, 900*ms, 1500*ms),
			want:  Throughput{Bound: 5, Duration: 2500 * ms, Overall: 4 / 2.5, Average: 2, P50: 1, P90: 3, P99: 3, Samples: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.binds)
			if got != tt.want {
				t.Errorf("Summarize() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ p, want float64 }{{50, 5}, {90, 9}, {99, 10}, {0, 1}, {100, 10}} {
		if got := percentile(sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile of nothing = %v, want 0", got)
	}
}

func TestSummarizeLatency(t *testing.T) {
	ms := time.Millisecond
	var hundred []time.Duration
	for i := 100; i >= 1; i-- {
		hundred = append(hundred, time.Duration(i)*ms)
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Latency
	}{
		{name: "none", want: Latency{}},
		{name: "one", in: []time.Duration{7 * ms}, want: Latency{P50: 7 * ms, P90: 7 * ms, P99: 7 * ms, Max: 7 * ms}},
		{name: "1..100 ms in reverse", in: hundred, want: Latency{P50: 50 * ms, P90: 90 * ms, P99: 99 * ms, Max: 100 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SummarizeLatency(tt.in); got != tt.want {
				t.Errorf("SummarizeLatency() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
