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

package controllers

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestProfileMetrics follows a profile through a live generation, an
// invalid one reconciled twice, and its deletion, in berth_profile_ready,
// berth_profile_live_generation and berth_profile_compile_failures_total.
func TestProfileMetrics(t *testing.T) {
	reg, m := st.Metrics(t)
	r := newRig(t, st.Profile("pack").Created(t0).SchedulerName("sched").Obj())
	r.pr.metrics = m

	r.reconcileProfile("pack")
	expectProfileMetrics(t, reg, "live", map[string]float64{
		"berth_profile_ready": 1, "berth_profile_live_generation": 1,
	})

	p := r.profile("pack")
	p.Generation = 2
	p.Spec.Plugins = &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}
	if err := r.client.Update(r.ctx, p); err != nil {
		t.Fatal(err)
	}
	r.reconcileProfile("pack")
	r.reconcileProfile("pack")
	expectProfileMetrics(t, reg, "invalid generation 2, reconciled twice", map[string]float64{
		"berth_profile_ready": 0, "berth_profile_live_generation": 1, "berth_profile_compile_failures_total": 1,
	})

	if err := r.client.Delete(r.ctx, r.profile("pack")); err != nil {
		t.Fatal(err)
	}
	r.reconcileProfile("pack")
	expectProfileMetrics(t, reg, "deleted", map[string]float64{})
}

// expectProfileMetrics checks the berth_profile_* series of profile "pack".
func expectProfileMetrics(t *testing.T, reg prometheus.Gatherer, when string, want map[string]float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		switch f.GetName() {
		case "berth_profile_ready", "berth_profile_live_generation", "berth_profile_compile_failures_total":
		default:
			continue
		}
		for _, mt := range f.GetMetric() {
			if mt.GetLabel()[0].GetValue() != "pack" {
				t.Errorf("%s: %s has a series of profile %q", when, f.GetName(), mt.GetLabel()[0].GetValue())
			}
			if c := mt.GetCounter(); c != nil {
				got[f.GetName()] = c.GetValue()
			} else {
				got[f.GetName()] = mt.GetGauge().GetValue()
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: profile metrics = %v, want %v", when, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %v, want %v", when, k, got[k], v)
		}
	}
}
