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

package framework

import "testing"

// TestSkippedIsShared checks that Skipped is one Skip for every caller and
// that naming its plugin leaves it as it was.
func TestSkippedIsShared(t *testing.T) {
	s := Skipped()
	if s != Skipped() {
		t.Fatal("Skipped returned two statuses")
	}
	tests := []struct {
		name string
		st   *Status
		// shared says whether WithPlugin is to return a copy.
		shared bool
	}{
		{name: "the shared Skip", st: Skipped(), shared: true},
		{name: "a Skip of its own", st: NewStatus(Skip)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			named := tc.st.WithPlugin("NodeAffinity")
			if got := named.Plugin(); got != "NodeAffinity" {
				t.Errorf("WithPlugin: plugin %q, want NodeAffinity", got)
			}
			if !named.IsSkip() || named.Message() != "" {
				t.Errorf("WithPlugin changed the status to %v", named)
			}
			if copied := named != tc.st; copied != tc.shared {
				t.Errorf("WithPlugin returned a copy = %v, want %v", copied, tc.shared)
			}
		})
	}
	if s.Plugin() != "" || !s.IsSkip() || len(s.Reasons()) != 0 {
		t.Errorf("the shared Skip changed: %v, plugin %q", s, s.Plugin())
	}
}
