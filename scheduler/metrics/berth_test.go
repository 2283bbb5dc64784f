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
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func dtoMetric(t *testing.T, m prometheus.Metric) *dto.Metric {
	t.Helper()
	var pb dto.Metric
	if err := m.Write(&pb); err != nil {
		t.Fatal(err)
	}
	return &pb
}

func TestRegisterBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := RegisterBuildInfo(reg, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	want := `# HELP berth_build_info Always 1, labelled with the version of Berth and the Go version that built it.
# TYPE berth_build_info gauge
berth_build_info{go_version="` + runtime.Version() + `",version="v1.2.3"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "berth_build_info"); err != nil {
		t.Error(err)
	}
	if err := RegisterBuildInfo(reg, "v1.2.3"); err == nil {
		t.Error("registering berth_build_info twice: want an error")
	}
}

func TestRebalanceMetrics(t *testing.T) {
	_, m := newTestMetrics(t)
	m.CountRebalanceRun("spread", RunSucceeded)
	m.CountRebalanceRun("spread", RunFailed)
	m.CountRebalanceRun("gone", RunSucceeded)
	m.CountRebalanceEviction("spread", "LowNodeUtilization", "evicted")
	m.CountRebalanceEviction("spread", "LowNodeUtilization", "evicted")
	m.CountRebalanceEviction("spread", "LowNodeUtilization", "blocked")
	m.CountRebalanceEviction("gone", "RemoveDuplicates", "planned")
	m.DeleteRebalancePolicy("gone")

	for _, tc := range []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"succeeded runs", m.berth.rebalanceRuns.WithLabelValues("spread", RunSucceeded), 1},
		{"failed runs", m.berth.rebalanceRuns.WithLabelValues("spread", RunFailed), 1},
		{"evicted", m.berth.rebalanceEvictions.WithLabelValues("spread", "LowNodeUtilization", "evicted"), 2},
		{"blocked", m.berth.rebalanceEvictions.WithLabelValues("spread", "LowNodeUtilization", "blocked"), 1},
	} {
		if got := testutil.ToFloat64(tc.c); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	// The deleted policy's series are gone (the reads above created none for it).
	if got := testutil.CollectAndCount(m.berth.rebalanceRuns); got != 2 {
		t.Errorf("rebalance_runs_total has %d series, want 2 (the deleted policy's dropped)", got)
	}
	if got := testutil.CollectAndCount(m.berth.rebalanceEvictions); got != 2 {
		t.Errorf("rebalance_evictions_total has %d series, want 2", got)
	}
}

func TestGangMetrics(t *testing.T) {
	_, m := newTestMetrics(t)
	m.CountGangWait("team-a", "berth")
	m.CountGangWait("team-a", "berth")
	m.CountGangRelease("team-a", "berth", GangComplete)
	m.CountGangRelease("team-a", "berth", GangComplete)
	want := `# HELP berth_gang_releases_total Pod groups whose members held at Permit were let go, by the group's namespace, the profile and the result: complete (they bind).
# TYPE berth_gang_releases_total counter
berth_gang_releases_total{namespace="team-a",profile="berth",result="complete"} 2
`
	if err := testutil.CollectAndCompare(m.berth.gangReleases, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if got := testutil.ToFloat64(m.berth.gangWaits.WithLabelValues("team-a", "berth")); got != 2 {
		t.Errorf("gang_waits_total = %v, want 2", got)
	}
}

func TestObserveProfile(t *testing.T) {
	for _, tc := range []struct {
		name           string
		ready          bool
		live           int64
		compileFailed  bool
		wantReady      float64
		wantGeneration int // series of live_generation
		wantFailures   float64
	}{
		{name: "live", ready: true, live: 3, wantReady: 1, wantGeneration: 1},
		{name: "invalid, last good generation live", live: 2, compileFailed: true, wantReady: 0, wantGeneration: 1, wantFailures: 1},
		{name: "invalid, nothing live", compileFailed: true, wantReady: 0, wantGeneration: 0, wantFailures: 1},
		{name: "name taken", wantReady: 0, wantGeneration: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := newTestMetrics(t)
			m.ObserveProfile("p", true, 1, false)
			m.ObserveProfile("p", tc.ready, tc.live, tc.compileFailed)
			if got := testutil.ToFloat64(m.berth.profileReady.WithLabelValues("p")); got != tc.wantReady {
				t.Errorf("profile_ready = %v, want %v", got, tc.wantReady)
			}
			if got := testutil.CollectAndCount(m.berth.profileLiveGeneration); got != tc.wantGeneration {
				t.Errorf("profile_live_generation has %d series, want %d", got, tc.wantGeneration)
			}
			if tc.wantGeneration == 1 {
				if got := testutil.ToFloat64(m.berth.profileLiveGeneration.WithLabelValues("p")); got != float64(tc.live) {
					t.Errorf("profile_live_generation = %v, want %d", got, tc.live)
				}
			}
			if got := testutil.ToFloat64(m.berth.profileCompileFailures.WithLabelValues("p")); got != tc.wantFailures {
				t.Errorf("profile_compile_failures_total = %v, want %v", got, tc.wantFailures)
			}
			m.DeleteProfile("p")
			for _, c := range []prometheus.Collector{m.berth.profileReady, m.berth.profileLiveGeneration, m.berth.profileCompileFailures} {
				if n := testutil.CollectAndCount(c); n != 0 {
					t.Errorf("after DeleteProfile a profile metric has %d series, want 0", n)
				}
			}
		})
	}
}

func TestExtenderRecorder(t *testing.T) {
	_, m := newTestMetrics(t)
	r := m.Extender("http://ext")
	r.Call("filter", ExtenderSuccess)
	r.Call("filter", ExtenderError)
	r.Call("filter", ExtenderError)
	r.Call("bind", ExtenderRefused)
	r.Call("unknown-verb", ExtenderSuccess) // not a verb: not counted
	r.SetCircuitOpen(true)

	for _, tc := range []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"filter success", m.berth.extenderRequests.WithLabelValues("http://ext", "filter", ExtenderSuccess), 1},
		{"filter error", m.berth.extenderRequests.WithLabelValues("http://ext", "filter", ExtenderError), 2},
		{"bind refused", m.berth.extenderRequests.WithLabelValues("http://ext", "bind", ExtenderRefused), 1},
		{"circuit open", m.berth.extenderCircuitOpen.WithLabelValues("http://ext"), 1},
	} {
		if got := testutil.ToFloat64(tc.c); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(m.berth.extenderRequests); n != len(extenderVerbs)*len(extenderResults) {
		t.Errorf("extender_requests_total has %d series, want the %d resolved up front", n, len(extenderVerbs)*len(extenderResults))
	}
	r.SetCircuitOpen(false)
	if got := testutil.ToFloat64(m.berth.extenderCircuitOpen.WithLabelValues("http://ext")); got != 0 {
		t.Errorf("circuit_open after closing = %v, want 0", got)
	}

	var nilRecorder *ExtenderRecorder
	nilRecorder.Call("filter", ExtenderSuccess)
	nilRecorder.SetCircuitOpen(true)
	var nilMetrics *Metrics
	if nilMetrics.Extender("x") != nil {
		t.Error("a nil *Metrics gave a non-nil extender recorder")
	}
}

func TestSetLeader(t *testing.T) {
	_, m := newTestMetrics(t)
	if got := testutil.ToFloat64(m.berth.leader); got != 0 {
		t.Errorf("berth_leader before the loop runs = %v, want 0", got)
	}
	m.SetLeader(true)
	if got := testutil.ToFloat64(m.berth.leader); got != 1 {
		t.Errorf("berth_leader while leading = %v, want 1", got)
	}
	m.SetLeader(false)
	if got := testutil.ToFloat64(m.berth.leader); got != 0 {
		t.Errorf("berth_leader after leading = %v, want 0", got)
	}
}

func TestInitRebalancePolicyCreatesZeroSeries(t *testing.T) {
	_, m := newTestMetrics(t)
	m.InitRebalancePolicy("spread", []string{"LowNodeUtilization", "RemoveDuplicates"})
	if n := testutil.CollectAndCount(m.berth.rebalanceEvictions); n != 6 {
		t.Errorf("rebalance_evictions_total has %d series, want 2 strategies x evicted/blocked/failed", n)
	}
	if got := testutil.ToFloat64(m.berth.rebalanceEvictions.WithLabelValues("spread", "RemoveDuplicates", "blocked")); got != 0 {
		t.Errorf("an initialised series = %v, want 0", got)
	}
	if n := testutil.CollectAndCount(m.berth.rebalanceRuns); n != 2 {
		t.Errorf("rebalance_runs_total has %d series, want succeeded and failed", n)
	}
}
