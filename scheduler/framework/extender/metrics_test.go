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

package extender

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestCallsAndCircuitStateAreRecorded walks an extender through an answer,
// an HTTP error, no answer (the breaker opens) and a call the breaker
// refuses, and reads each in berth_extender_requests_total and
// berth_extender_circuit_open.
func TestCallsAndCircuitStateAreRecorded(t *testing.T) {
	codes := []int{200, 500}
	srv := newServer(t, "filter", func(map[string]json.RawMessage) (int, any) {
		code := codes[0]
		codes = codes[1:]
		return code, FilterResult{NodeNames: &[]string{"n1"}}
	})
	reg, m := st.Metrics(t)
	e, err := New(makeCfg(srv.URL).filter().nodeCache().obj(), WithMetrics(m),
		WithClock(clocktesting.NewFakePassiveClock(time.Unix(1000, 0))))
	if err != nil {
		t.Fatal(err)
	}
	filter := func() {
		_, _, _, _ = e.Filter(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1"))
	}
	filter() // 200
	filter() // 500
	if got := circuitOpen(t, reg); got != 0 {
		t.Fatalf("circuit_open after HTTP answers = %v, want 0", got)
	}
	srv.Close()
	filter() // no answer: the breaker opens
	filter() // refused
	want := map[string]float64{metrics.ExtenderSuccess: 1, metrics.ExtenderError: 2, metrics.ExtenderRefused: 1}
	got := filterCalls(t, reg)
	for result, n := range want {
		if got[result] != n {
			t.Errorf("extender_requests_total{verb=filter,result=%s} = %v, want %v", result, got[result], n)
		}
	}
	if got := circuitOpen(t, reg); got != 1 {
		t.Errorf("circuit_open after no answer = %v, want 1", got)
	}
}

// filterCalls reads berth_extender_requests_total{verb="filter"} by result.
func filterCalls(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "berth_extender_requests_total" {
			continue
		}
		for _, mt := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["verb"] == "filter" {
				out[labels["result"]] = mt.GetCounter().GetValue()
			}
		}
	}
	return out
}

// circuitOpen reads berth_extender_circuit_open of the one extender registered.
func circuitOpen(t *testing.T, reg prometheus.Gatherer) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "berth_extender_circuit_open" {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("berth_extender_circuit_open is not exported")
	return 0
}
