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

package profile

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestParked(t *testing.T) {
	tests := []struct {
		name      string
		put       []*v1.Pod
		remove    []*v1.Pod
		take      string
		wantTaken int
		wantLen   int
	}{
		{name: "take returns the pods of one name only",
			put:  []*v1.Pod{st.Pod("a").SchedulerName("packing").Obj(), st.Pod("b").SchedulerName("packing").Obj(), st.Pod("c").SchedulerName("spread").Obj()},
			take: "packing", wantTaken: 2, wantLen: 1},
		{name: "put twice counts once",
			put:  []*v1.Pod{st.Pod("a").SchedulerName("packing").Obj(), st.Pod("a").SchedulerName("packing").Obj()},
			take: "packing", wantTaken: 1, wantLen: 0},
		{name: "remove finds a pod whose schedulerName changed",
			put:    []*v1.Pod{st.Pod("a").SchedulerName("packing").Obj(), st.Pod("b").SchedulerName("packing").Obj()},
			remove: []*v1.Pod{st.Pod("a").SchedulerName("spread").Obj()},
			take:   "packing", wantTaken: 1, wantLen: 0},
		{name: "take of an unknown name is empty",
			put:  []*v1.Pod{st.Pod("a").SchedulerName("packing").Obj()},
			take: "spread", wantTaken: 0, wantLen: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParked()
			for _, pod := range tc.put {
				p.Put(pod)
			}
			for _, pod := range tc.remove {
				if !p.Remove(pod) {
					t.Errorf("Remove(%s) = false, want true", pod.Name)
				}
			}
			if got := len(p.Take(tc.take)); got != tc.wantTaken {
				t.Errorf("Take(%q) returned %d pods, want %d", tc.take, got, tc.wantTaken)
			}
			if got := p.Len(); got != tc.wantLen {
				t.Errorf("Len() = %d, want %d", got, tc.wantLen)
			}
		})
	}
}

func TestMapSetGetDelete(t *testing.T) {
	m := NewMap()
	first := &Profile{Source: "packing", Generation: 1}
	second := &Profile{Source: "packing", Generation: 2}
	if prev := m.Set("packing", first); prev != nil {
		t.Fatalf("first Set returned %v, want nil", prev)
	}
	if prev := m.Set("packing", second); prev != first {
		t.Fatalf("second Set returned %v, want the first profile", prev)
	}
	if got := m.Get("packing"); got != second {
		t.Fatalf("Get = %v, want the second profile", got)
	}
	if got := m.Names(); len(got) != 1 || got[0] != "packing" {
		t.Fatalf("Names = %v, want [packing]", got)
	}
	if prev := m.Delete("packing"); prev != second {
		t.Fatalf("Delete returned %v, want the second profile", prev)
	}
	if got := m.Get("packing"); got != nil {
		t.Fatalf("Get after Delete = %v, want nil", got)
	}
}
