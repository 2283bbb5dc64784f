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
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// result returns a result of SchedulingBasic for scheduler with the given
// overall throughput, CPU per pod and peak RSS.
func result(scheduler string, podsPerSecond float64, cpuPerPod time.Duration, rssMiB int64) Result {
	return Result{
		Scheduler:  scheduler,
		Workload:   SchedulingBasic(10, 20),
		Throughput: Throughput{Overall: podsPerSecond, Average: podsPerSecond},
		Proc:       ProcStats{CPU: 20 * cpuPerPod, PeakRSS: rssMiB << 20},
		CPUPerPod:  cpuPerPod,
		// The control plane spends 2 ms per pod of the workload's 20.
		ControlPlaneCPU: 40 * time.Millisecond,
		ScheduledEvents: 20,
	}
}

func TestMarkdown(t *testing.T) {
	got := Markdown([]Result{
		result("berth", 800, time.Millisecond, 100),
		result("kube-scheduler", 400, 2*time.Millisecond, 50),
		result("null-binder", 1000, time.Millisecond/4, 25),
	})
	for _, want := range []string{
		"| SchedulingBasic | berth | 10 | 20 | 800 | 800 |",
		"| 0.02 | 1.000 | 100 | 2.000 | 20 |",
		"Berth/kube-scheduler: throughput 2.00× (1-s avg 2.00×), CPU per pod 0.50×, peak RSS 2.00×",
		"Berth/null-binder: throughput 0.80× (1-s avg 0.80×), CPU per pod 4.00×, peak RSS 4.00×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown() lacks %q:\n%s", want, got)
		}
	}
	if lines := strings.Count(got, "\n"); lines != 2+3+1+2 {
		t.Errorf("Markdown() has %d lines, want 8:\n%s", lines, got)
	}
}

func TestMarkdownWithoutBerthHasNoRatios(t *testing.T) {
	got := Markdown([]Result{result("null-binder", 1000, time.Millisecond, 25)})
	if strings.Contains(got, "Berth/") {
		t.Errorf("Markdown() has ratios without Berth:\n%s", got)
	}
}

func TestJSONRoundTrips(t *testing.T) {
	in := []Result{result("berth", 800, time.Millisecond, 100)}
	in[0].APIRequests = APIRequests{"POST pods/binding 201": 20}
	raw, err := JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !reflect.DeepEqual(out[0], in[0]) {
		t.Errorf("round trip = %+v, want %+v", out, in)
	}
}

func TestMarkdownLatencyTable(t *testing.T) {
	steady := result("berth", 100, time.Millisecond, 100)
	steady.Workload = SteadyArrival(10, 100, 2*time.Second)
	steady.Latency = &Latency{P50: 5 * time.Millisecond, P90: 8 * time.Millisecond, P99: 12500 * time.Microsecond, Max: 40 * time.Millisecond}
	got := Markdown([]Result{steady, result("berth", 800, time.Millisecond, 100)})
	if want := "| SteadyArrival | berth | 200 | 100 | 5.0 ms | 8.0 ms | 12.5 ms | 40.0 ms |"; !strings.Contains(got, want) {
		t.Errorf("Markdown() lacks %q:\n%s", want, got)
	}
	upstream := steady
	upstream.Scheduler = "kube-scheduler"
	upstream.Latency = &Latency{P99: 25 * time.Millisecond}
	if got := Markdown([]Result{steady, upstream}); !strings.Contains(got, "peak RSS 1.00×, latency p99 0.50×") {
		t.Errorf("Markdown() lacks the latency ratio:\n%s", got)
	}
	if n := strings.Count(got, "Latency p50"); n != 1 {
		t.Errorf("Markdown() has %d latency headers, want 1:\n%s", n, got)
	}
	if strings.Contains(Markdown([]Result{result("berth", 1, time.Millisecond, 1)}), "Latency") {
		t.Error("Markdown() has a latency table without steady-arrival results")
	}
}

func TestMarkdownComparesWithTheNullBinderWithEvents(t *testing.T) {
	got := Markdown([]Result{
		result("berth", 600, time.Millisecond, 100),
		result("null-binder-events", 750, time.Millisecond/5, 50),
	})
	if want := "Berth/null-binder-events: throughput 0.80× (1-s avg 0.80×), CPU per pod 5.00×, peak RSS 2.00×"; !strings.Contains(got, want) {
		t.Errorf("Markdown() lacks %q:\n%s", want, got)
	}
}

func TestMarkdownComparesBerthWithoutEvents(t *testing.T) {
	got := Markdown([]Result{
		result("berth", 500, time.Millisecond, 100),
		result("berth-no-events", 800, time.Millisecond, 100),
		result("null-binder", 1000, time.Millisecond/4, 25),
	})
	for _, want := range []string{
		"- SchedulingBasic, Berth/null-binder: throughput 0.50×",
		"- SchedulingBasic, berth-no-events/null-binder: throughput 0.80×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown() lacks %q:\n%s", want, got)
		}
	}
}

func TestMarkdownRounds(t *testing.T) {
	inRound := func(r Result, round int) Result {
		r.Round = round
		return r
	}
	got := Markdown([]Result{
		inRound(result("berth", 700, time.Millisecond, 100), 1),
		inRound(result("null-binder", 1000, time.Millisecond/4, 50), 1),
		inRound(result("berth", 900, 2*time.Millisecond, 120), 2),
		inRound(result("null-binder", 1000, time.Millisecond/4, 50), 2),
		inRound(result("berth", 800, 3*time.Millisecond, 110), 3),
		inRound(result("null-binder", 800, time.Millisecond/4, 50), 3),
	})
	for _, want := range []string{
		"| Workload | Scheduler | Round | Nodes |",
		"| SchedulingBasic | berth | 2 | 10 | 20 | 900 |",
		"| SchedulingBasic | berth | 3 | 800 | 700–900 | 2.000 | 110 |",
		"| SchedulingBasic | null-binder | 3 | 1000 | 800–1000 | 0.250 | 50 |",
		// Medians 800 and 1000; per round 0.70, 0.90 and 1.00.
		"Berth/null-binder: throughput 0.80× (1-s avg 0.80×), CPU per pod 8.00×, peak RSS 2.20×; medians of 3 rounds, throughput ratio 0.70–1.00× within a round",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown() lacks %q:\n%s", want, got)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tc := range tests {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownClaimsTable(t *testing.T) {
	dra := func(scheduler string, round int, claims *ClaimStats) Result {
		r := result(scheduler, 100, time.Millisecond, 100)
		r.Workload, r.Round, r.Claims = DynamicResources(10, 80, 8), round, claims
		return r
	}
	tests := []struct {
		name    string
		results []Result
		want    []string
	}{
		{name: "no workload with devices", results: []Result{result("berth", 100, time.Millisecond, 100)}},
		{
			name: "one round",
			results: []Result{
				dra("berth", 0, &ClaimStats{Claims: 80, Allocated: 80, DistinctDevices: 80, OnPodsNode: 80}),
				dra("null-binder", 0, &ClaimStats{Claims: 80}),
			},
			want: []string{
				"| Workload | Scheduler | Claims | Allocated by last bind | Distinct devices | Pods on their device's node |",
				"| DynamicResources | berth | 80 | 80 | 80 | 80 |",
				"| DynamicResources | null-binder | 80 | 0 | 0 | 0 |",
			},
		},
		{
			name:    "rounds",
			results: []Result{dra("berth", 2, &ClaimStats{Claims: 80, Allocated: 79, DistinctDevices: 79, OnPodsNode: 79})},
			want:    []string{"| Workload | Scheduler | Round | Claims |", "| DynamicResources | berth | 2 | 80 | 79 | 79 | 79 |"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Markdown(tc.results)
			if len(tc.want) == 0 && strings.Contains(got, "Allocated by last bind") {
				t.Errorf("Markdown() has a claims table:\n%s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Markdown() lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// inRound returns r as run in round.
func inRound(r Result, round int) Result {
	r.Round = round
	return r
}

func TestCompareWithBase(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
		want    []BaseComparison
	}{
		{
			name:    "no base",
			results: []Result{inRound(result("berth", 800, time.Millisecond, 100), 1)},
		},
		{
			name: "single run each",
			results: []Result{
				result("berth", 900, 1100*time.Microsecond, 100), result(BaseScheduler, 1000, time.Millisecond, 100),
			},
			want: []BaseComparison{{Workload: "SchedulingBasic", Rounds: []int{0}, Throughput: []float64{0.9}, CPUPerPod: []float64{1.1}}},
		},
		{
			name: "rounds pair up whatever the order; a round without the base and kube-scheduler are left out",
			results: []Result{
				inRound(result(BaseScheduler, 500, 2*time.Millisecond, 100), 1), inRound(result("berth", 400, 2*time.Millisecond, 100), 1),
				inRound(result("kube-scheduler", 100, 4*time.Millisecond, 100), 1),
				inRound(result("berth", 600, time.Millisecond, 100), 2), inRound(result(BaseScheduler, 500, 2*time.Millisecond, 100), 2),
				inRound(result("berth", 600, time.Millisecond, 100), 3),
			},
			want: []BaseComparison{{Workload: "SchedulingBasic", Rounds: []int{1, 2}, Throughput: []float64{0.8, 1.2}, CPUPerPod: []float64{1, 0.5}}},
		},
		{
			name: "a base that bound nothing gives no ratio",
			results: []Result{
				inRound(result("berth", 400, time.Millisecond, 100), 1), inRound(result(BaseScheduler, 0, time.Millisecond, 100), 1),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CompareWithBase(tc.results)
			if len(got) != len(tc.want) {
				t.Fatalf("CompareWithBase = %+v, want %+v", got, tc.want)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.Workload != w.Workload || !slices.Equal(g.Rounds, w.Rounds) || !closeTo(g.Throughput, w.Throughput) || !closeTo(g.CPUPerPod, w.CPUPerPod) {
					t.Errorf("CompareWithBase[%d] = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// closeTo reports whether a and b hold the same ratios to 1e-9.
func closeTo(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-9 })
}

func TestMarkdownComparesWithBase(t *testing.T) {
	got := Markdown([]Result{
		inRound(result("berth", 450, 1100*time.Microsecond, 100), 1), inRound(result(BaseScheduler, 500, time.Millisecond, 100), 1),
		inRound(result("berth", 600, 900*time.Microsecond, 100), 2), inRound(result(BaseScheduler, 500, time.Millisecond, 100), 2),
		inRound(result("berth", 500, time.Millisecond, 100), 3), inRound(result(BaseScheduler, 500, time.Millisecond, 100), 3),
	})
	want := "| SchedulingBasic | 3 | 0.90, 1.20, 1.00 | 1.00× | 0.90–1.20× | 1.10, 0.90, 1.00 | 1.00× | 0.90–1.10× |"
	if !strings.Contains(got, want) {
		t.Errorf("Markdown() lacks %q:\n%s", want, got)
	}
}

func TestMarkdownBigGangTable(t *testing.T) {
	gangs := result("berth", 100, time.Millisecond, 100)
	gangs.Workload = Gangs(100, 20, 8, 10)
	gangs.BigGang = &GangTiming{Bound: 4200 * time.Millisecond, Span: 1500 * time.Millisecond}
	got := Markdown([]Result{gangs, result("berth", 800, time.Millisecond, 100)})
	if want := "| Gangs | berth | 10 | 4.2 s | 1.5 s |"; !strings.Contains(got, want) {
		t.Errorf("Markdown() lacks %q:\n%s", want, got)
	}
	if strings.Contains(Markdown([]Result{result("berth", 1, time.Millisecond, 1)}), "Big gang") {
		t.Error("Markdown() has a big-gang table without a big gang")
	}
}
