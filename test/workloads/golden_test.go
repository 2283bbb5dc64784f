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

package workloads

import (
	"slices"
	"testing"
)

// TestGoldens checks that every scenario of RecordedScenarios has a golden
// that decodes, whose checkpoints are the scenario's Observe steps, and
// that a golden compares equal to itself.
func TestGoldens(t *testing.T) {
	for _, s := range RecordedScenarios() {
		t.Run(s.Name, func(t *testing.T) {
			g, err := Golden(s.Name)
			if err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for _, st := range s.Steps {
				if st.Observe != "" {
					want = append(want, st.Observe)
				}
			}
			for _, cp := range g.Checkpoints {
				got = append(got, cp.Name)
				if cp.Unsettled {
					t.Errorf("checkpoint %s did not settle when it was recorded", cp.Name)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("checkpoints = %q, want %q", got, want)
			}
			if g.Scenario != s.Name || g.Placement != s.Placement {
				t.Errorf("golden is of scenario %q placed %q, want %q placed %q", g.Scenario, g.Placement, s.Name, s.Placement)
			}
			if diffs := Compare(g, g); len(diffs) != 0 {
				t.Errorf("Compare(golden, golden) = %q", diffs)
			}
		})
	}
}
