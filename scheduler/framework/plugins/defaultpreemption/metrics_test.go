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

package defaultpreemption

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestPreemptionMetrics checks that every PostFilter call counts in
// scheduler_preemption_attempts_total and that a preemption that chose
// victims records how many in scheduler_preemption_victims.
func TestPreemptionMetrics(t *testing.T) {
	tests := []struct {
		name        string
		running     []*v1.Pod
		wantVictims float64 // sum of preemption_victims; 0 with no observation
		wantSamples int
	}{
		{
			name: "two victims",
			running: []*v1.Pod{
				st.Pod("low-1").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("low-2").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
			},
			wantVictims: 2, wantSamples: 1,
		},
		{
			name:    "nothing to evict",
			running: []*v1.Pod{st.Pod("high").Priority(1000).Container("cpu", "2").NodeName("n1").Obj()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, m := st.Metrics(t)
			pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
			e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: append(tt.running, pod), metrics: m, sync: true})
			e.schedule(t, pod)
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			var attempts, victims float64
			var samples int
			for _, f := range families {
				switch f.GetName() {
				case "scheduler_preemption_attempts_total":
					attempts = f.GetMetric()[0].GetCounter().GetValue()
				case "scheduler_preemption_victims":
					h := f.GetMetric()[0].GetHistogram()
					victims, samples = h.GetSampleSum(), int(h.GetSampleCount())
				}
			}
			if attempts != 1 {
				t.Errorf("preemption_attempts_total = %v, want 1", attempts)
			}
			if victims != tt.wantVictims || samples != tt.wantSamples {
				t.Errorf("preemption_victims: %d samples summing to %v, want %d summing to %v", samples, victims, tt.wantSamples, tt.wantVictims)
			}
		})
	}
}
