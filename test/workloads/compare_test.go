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
	"fmt"
	"slices"
	"testing"
)

// observation builds a one-checkpoint observation of pod p-1 on node, with
// a PodScheduled condition message and a FailedScheduling event counted count.
func observation(placement Placement, node, domain, message string, count int32) Observation {
	pod := PodState{Name: "p-1", Group: "pg", Node: node, Domain: domain,
		Conditions: []Condition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", Message: message}},
		Events:     []EventSummary{{Reason: "FailedScheduling", Count: count, Messages: []string{message}}}}
	return Observation{Scenario: "s", Placement: placement, Checkpoints: []Checkpoint{{
		Name: "final", Pods: []PodState{pod},
		PodGroups: []PodGroupState{{Name: "pg", MinCount: 2, Conditions: []Condition{{Type: "PodGroupInitiallyScheduled", Status: "False", Reason: "Unschedulable", Message: "m"}}}},
	}}}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name      string
		want, got Observation
		nondet    []string
		wantDiffs []string
	}{{
		name: "equal",
		want: observation(PlaceExact, "n1", "", "msg", 1),
		got:  observation(PlaceExact, "n1", "", "msg", 1),
	}, {
		name: "event counts are ignored",
		want: observation(PlaceExact, "n1", "", "msg", 1),
		got:  observation(PlaceExact, "n1", "", "msg", 7),
	}, {
		name:      "another node, placements exact",
		want:      observation(PlaceExact, "n1", "", "msg", 1),
		got:       observation(PlaceExact, "n2", "", "msg", 1),
		wantDiffs: []string{`final/pod/p-1/node: "n1" != "n2"`},
	}, {
		name: "another node in the same domain, placements by domain",
		want: observation(PlaceDomain, "n1", "rack-a", "msg", 1),
		got:  observation(PlaceDomain, "n2", "rack-a", "msg", 1),
	}, {
		name:      "another domain, placements by domain",
		want:      observation(PlaceDomain, "n1", "rack-a", "msg", 1),
		got:       observation(PlaceDomain, "n2", "rack-b", "msg", 1),
		wantDiffs: []string{`final/pod/p-1/domain: "rack-a" != "rack-b"`},
	}, {
		name: "the group spans two domains",
		want: observation(PlaceDomain, "n1", "rack-a", "msg", 1),
		got: func() Observation {
			o := observation(PlaceDomain, "n1", "rack-a", "msg", 1)
			o.Checkpoints[0].Pods = append(o.Checkpoints[0].Pods, PodState{Name: "p-2", Group: "pg", Node: "n2", Domain: "rack-b"})
			return o
		}(),
		nondet:    []string{"final/pod/p-2/bound", "final/pod/p-2/domain"},
		wantDiffs: []string{`final/podgroup/pg/domains: "1" != "2"`},
	}, {
		name: "another domain, placements bound only",
		want: observation(PlaceBound, "n1", "rack-a", "msg", 1),
		got:  observation(PlaceBound, "n2", "rack-b", "msg", 1),
	}, {
		name: "the Scheduled event names another node, placements bound only",
		want: func() Observation {
			o := observation(PlaceBound, "n1", "", "msg", 1)
			o.Checkpoints[0].Pods[0].Events = []EventSummary{{Reason: "Scheduled", Count: 1, Messages: []string{"Successfully assigned $NS/p-1 to n1"}}}
			return o
		}(),
		got: func() Observation {
			o := observation(PlaceBound, "n2", "", "msg", 1)
			o.Checkpoints[0].Pods[0].Events = []EventSummary{{Reason: "Scheduled", Count: 1, Messages: []string{"Successfully assigned $NS/p-1 to n2"}}}
			return o
		}(),
	}, {
		name: "unbound",
		want: observation(PlaceBound, "n1", "", "msg", 1),
		got:  observation(PlaceBound, "", "", "msg", 1),
		wantDiffs: []string{
			`final/pod/p-1/bound: "true" != "false"`,
		},
	}, {
		name: "another message",
		want: observation(PlaceExact, "", "", "0/3 nodes are available", 1),
		got:  observation(PlaceExact, "", "", "0/3 nodes fit", 1),
		wantDiffs: []string{
			`final/pod/p-1/condition/PodScheduled: "False Unschedulable: 0/3 nodes are available" != "False Unschedulable: 0/3 nodes fit"`,
			`final/pod/p-1/event/FailedScheduling: "0/3 nodes are available" != "0/3 nodes fit"`,
		},
	}, {
		name:   "another message where upstream varies",
		want:   observation(PlaceExact, "", "", "0/3 nodes are available", 1),
		got:    observation(PlaceExact, "", "", "0/3 nodes fit", 1),
		nondet: []string{"final/pod/p-1/condition/PodScheduled", "final/pod/p-1/event/FailedScheduling"},
	}, {
		name: "a missing condition",
		want: observation(PlaceExact, "", "", "msg", 1),
		got: func() Observation {
			o := observation(PlaceExact, "", "", "msg", 1)
			o.Checkpoints[0].PodGroups[0].Conditions = nil
			return o
		}(),
		wantDiffs: []string{`final/podgroup/pg/condition/PodGroupInitiallyScheduled: "False Unschedulable: m" != (absent)`},
	}, {
		name: "another scenario",
		want: observation(PlaceExact, "n1", "", "msg", 1),
		got: func() Observation {
			o := observation(PlaceExact, "n1", "", "msg", 1)
			o.Scenario = "other"
			return o
		}(),
		wantDiffs: []string{`scenario: "s" != "other"`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Nondeterministic = tt.nondet
			if got := Compare(tt.want, tt.got); !slices.Equal(got, tt.wantDiffs) {
				t.Errorf("Compare() = %q, want %q", got, tt.wantDiffs)
			}
		})
	}
}

func TestMarkNondeterministic(t *testing.T) {
	a := observation(PlaceExact, "n1", "", "msg", 1)
	b := observation(PlaceExact, "n2", "", "msg", 3)
	a.MarkNondeterministic(b)
	want := []string{"final/pod/p-1/event/FailedScheduling/count", "final/pod/p-1/node"}
	if !slices.Equal(a.Nondeterministic, want) || a.Runs != 2 {
		t.Errorf("Nondeterministic = %q, Runs = %d; want %q, 2", a.Nondeterministic, a.Runs, want)
	}
	// Compare against the marked golden ignores the varying node.
	if diffs := Compare(a, b); len(diffs) != 0 {
		t.Errorf("Compare() after marking = %q, want none", diffs)
	}
}

func TestMergeRecording(t *testing.T) {
	earlier := observation(PlaceExact, "n1", "", "msg", 1)
	earlier.Nondeterministic, earlier.Runs = []string{"final/pod/p-1/event/FailedScheduling/count"}, 2
	// Both new runs record nominations, which the earlier recording did
	// not: those paths are not marked.
	o, other := observation(PlaceExact, "n2", "", "msg", 1), observation(PlaceExact, "n2", "", "msg", 1)
	o.Checkpoints[0].Pods[0].NominatedNodes = []string{"n2"}
	other.Checkpoints[0].Pods[0].NominatedNodes = []string{"n2"}
	o.MarkNondeterministic(other)
	o.MergeRecording(earlier)
	want := []string{"final/pod/p-1/event/FailedScheduling/count", "final/pod/p-1/node"}
	if !slices.Equal(o.Nondeterministic, want) || o.Runs != 4 {
		t.Errorf("Nondeterministic = %q, Runs = %d; want %q, 4", o.Nondeterministic, o.Runs, want)
	}
}

// hierarchyObservation is one checkpoint of CompositePodGroup root over
// mid over PodGroup pg, whose pods p-1 and p-2 are bound in the domains and
// zones given.
func hierarchyObservation(domains, zones [2]string) Observation {
	var pods []PodState
	for i := range 2 {
		pods = append(pods, PodState{Name: fmt.Sprintf("p-%d", i+1), Group: "pg", Node: fmt.Sprintf("n%d", i+1), Domain: domains[i], Zone: zones[i]})
	}
	return Observation{Scenario: "s", Placement: PlaceDomain, Checkpoints: []Checkpoint{{
		Name: "final", Pods: pods,
		PodGroups: []PodGroupState{{Name: "pg", Parent: "mid", MinCount: 2}},
		CompositePodGroups: []CompositePodGroupState{
			{Name: "mid", Parent: "root"},
			{Name: "root", MinGroupCount: 1},
		},
	}}}
}

func TestPathsHierarchy(t *testing.T) {
	o := hierarchyObservation([2]string{"rack-a", "rack-b"}, [2]string{"zone-1", "zone-1"})
	got := o.Paths(PlaceDomain, false)
	want := map[string]string{
		"final/pod/p-1/zone":                         "zone-1",
		"final/podgroup/pg/domains":                  "2",
		"final/podgroup/pg/zones":                    "1",
		"final/podgroup/pg/parent":                   "mid",
		"final/compositepodgroup/mid/domains":        "2",
		"final/compositepodgroup/mid/zones":          "1",
		"final/compositepodgroup/mid/parent":         "root",
		"final/compositepodgroup/mid/minGroupCount":  "0",
		"final/compositepodgroup/mid/bound":          "2",
		"final/compositepodgroup/root/zones":         "1",
		"final/compositepodgroup/root/minGroupCount": "1",
		"final/compositepodgroup/root/bound":         "2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Paths()[%q] = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["final/compositepodgroup/root/parent"]; ok {
		t.Error("a root has a parent path")
	}
	if b := o.Paths(PlaceBound, false); b["final/pod/p-1/zone"] != "" || b["final/compositepodgroup/root/zones"] != "" {
		t.Error("placements bound only still compare zones")
	}
}

func TestPathsHierarchyCycle(t *testing.T) {
	o := hierarchyObservation([2]string{"rack-a", "rack-a"}, [2]string{"zone-1", "zone-1"})
	o.Checkpoints[0].CompositePodGroups[1].Parent = "mid"
	if got := o.Paths(PlaceDomain, false)["final/compositepodgroup/root/bound"]; got != "2" {
		t.Errorf("bound of a CompositePodGroup in a cycle = %q, want 2", got)
	}
}

func TestCompareCompositeConditions(t *testing.T) {
	want := hierarchyObservation([2]string{"rack-a", "rack-a"}, [2]string{"zone-1", "zone-1"})
	got := hierarchyObservation([2]string{"rack-a", "rack-a"}, [2]string{"zone-1", "zone-1"})
	got.Checkpoints[0].CompositePodGroups[1].Conditions = []Condition{{Type: "CompositePodGroupInitiallyScheduled", Status: "True", Reason: "Scheduled"}}
	got.Checkpoints[0].Pods[1].Zone = "zone-2"
	diffs := Compare(want, got)
	wantDiffs := []string{
		`final/compositepodgroup/mid/zones: "1" != "2"`,
		`final/compositepodgroup/root/condition/CompositePodGroupInitiallyScheduled: (absent) != "True Scheduled: "`,
		`final/compositepodgroup/root/zones: "1" != "2"`,
		`final/pod/p-2/zone: "zone-1" != "zone-2"`,
		`final/podgroup/pg/zones: "1" != "2"`,
	}
	if !slices.Equal(diffs, wantDiffs) {
		t.Errorf("Compare() = %q, want %q", diffs, wantDiffs)
	}
}
