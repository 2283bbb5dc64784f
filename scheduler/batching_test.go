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

package scheduler

import (
	"fmt"
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestOpportunisticBatching schedules a run of identical pods, one per
// node, with and without batching, through the loop's cycle: a profile
// that signs pods places them where the unbatched cycle does, most of them
// on their hint; the default plugin set signs no pod, as upstream's does
// not (PodTopologySpread's system default constraints).
func TestOpportunisticBatching(t *testing.T) {
	noSpread := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
		MultiPoint: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "PodTopologySpread"}}},
	}}
	tests := []struct {
		name     string
		spec     *v1alpha1.SchedulingProfileSpec
		wantUsed bool
	}{
		{name: "a profile whose plugins sign pods", spec: noSpread, wantUsed: true},
		{name: "the default plugin set", spec: &v1alpha1.SchedulingProfileSpec{}},
	}
	// Nodes of growing size, so that each pod has one best node left.
	var nodes []*v1.Node
	for i := range 8 {
		nodes = append(nodes, st.Node(fmt.Sprintf("n%d", i)).Hostname().
			Alloc("cpu", fmt.Sprintf("%dm", 1000+100*i), "memory", "4Gi", "pods", "10").Obj())
	}
	place := func(t *testing.T, spec *v1alpha1.SchedulingProfileSpec, batching bool) (map[string]string, map[string]float64) {
		t.Helper()
		reg, m := st.Metrics(t)
		h := newHarness(t, withNodes(nodes...), withProfile(v1.DefaultSchedulerName, "default", spec),
			withOptions(WithMetrics(m), WithOpportunisticBatching(batching)))
		placed := map[string]string{}
		for i := range len(nodes) {
			pod := st.Pod(fmt.Sprintf("p%d", i)).UID(fmt.Sprintf("p%d", i)).Label("app", "web").SchedulerName(v1.DefaultSchedulerName).Req("cpu", "1").Obj()
			h.addPods(pod)
			h.client.ClearActions()
			h.scheduleOne(pod)
			maps.Copy(placed, h.bound())
		}
		return placed, st.CounterByLabel(t, reg, "scheduler_batch_attempts_total", "result")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unbatched, off := place(t, tc.spec, false)
			batched, on := place(t, tc.spec, true)
			if len(unbatched) != len(nodes) {
				t.Fatalf("unbatched: %d of %d pods bound: %v", len(unbatched), len(nodes), unbatched)
			}
			if !maps.Equal(batched, unbatched) {
				t.Errorf("batched placements %v differ from unbatched %v", batched, unbatched)
			}
			if len(off) != 0 {
				t.Errorf("batching off counted attempts %v", off)
			}
			if used := on["hint_used"]; (used > 0) != tc.wantUsed {
				t.Errorf("hint_used = %v with batching on (attempts %v); want some: %v", used, on, tc.wantUsed)
			}
			if tc.wantUsed && on["hint_used"] != float64(len(nodes)-1) {
				t.Errorf("hint_used = %v, want every pod after the first (%d)", on["hint_used"], len(nodes)-1)
			}
		})
	}
}
