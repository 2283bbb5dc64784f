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

func TestRelocationMark(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*CycleState) *CycleState
		want  bool
	}{
		{name: "a fresh state is no relocation", setup: func(s *CycleState) *CycleState { return s }},
		{name: "marked", setup: func(s *CycleState) *CycleState { MarkRelocation(s); return s }, want: true},
		{name: "a clone keeps the mark", setup: func(s *CycleState) *CycleState { MarkRelocation(s); return s.Clone() }, want: true},
		{name: "other state is no mark", setup: func(s *CycleState) *CycleState { s.Write("other", relocation{}); return s }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRelocation(tt.setup(NewCycleState())); got != tt.want {
				t.Errorf("IsRelocation = %v, want %v", got, tt.want)
			}
		})
	}
}
