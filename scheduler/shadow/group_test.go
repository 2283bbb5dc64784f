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

package shadow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareGroup(t *testing.T) {
	placedIn := func(placement string) LiveGroup {
		return LiveGroup{PodGroup: "ns/g", Placed: true, Placement: placement, Nodes: map[string]string{"ns/m0": "a1", "ns/m1": "a2"}}
	}
	unplaced := LiveGroup{PodGroup: "ns/g", Rejecting: []string{"NodeResourcesFit", "GangScheduling", "NodeResourcesFit"}}
	shadowIn := func(placement string) GroupEvaluation {
		return GroupEvaluation{Placed: true, Placement: placement, LiveGenerated: true, FirstMember: "ns/m0"}
	}
	tests := []struct {
		name    string
		live    LiveGroup
		shadow  GroupEvaluation
		wantPod string
		want    Decision
	}{{
		name:    "same placement, every member on the same node",
		live:    placedIn("a"),
		shadow:  shadowIn("a"),
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeAgreed, PodGroup: "ns/g", LivePlacement: "a", ShadowPlacement: "a"},
	}, {
		name:    "neither places the group",
		live:    unplaced,
		shadow:  GroupEvaluation{FirstMember: "ns/m0", Rejecting: []string{"NodeResourcesFit"}},
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeAgreed, PodGroup: "ns/g"},
	}, {
		name:    "only the shadow places it: the live rejecting plugins decide",
		live:    unplaced,
		shadow:  shadowIn("b"),
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeLiveUnschedulable, PodGroup: "ns/g", ShadowPlacement: "b", Deciding: []string{"GangScheduling", "NodeResourcesFit"}},
	}, {
		name:    "only the live profile places it: the shadow's rejecting plugins decide",
		live:    placedIn("a"),
		shadow:  GroupEvaluation{FirstMember: "ns/m0", LiveGenerated: true, Rejecting: []string{"TaintToleration"}},
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeShadowUnschedulable, PodGroup: "ns/g", LivePlacement: "a", Deciding: []string{"TaintToleration"}},
	}, {
		name: "another placement, the live one scored lower: the placement scorers decide",
		live: placedIn("a"),
		shadow: GroupEvaluation{Placed: true, Placement: "b", LiveGenerated: true, FirstMember: "ns/m0",
			Scores: scored(node("a", "PodGroupPodsCount", 50), node("b", "PodGroupPodsCount", 100)).Scores},
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeDisagreed, PodGroup: "ns/g", LivePlacement: "a", ShadowPlacement: "b", Deciding: []string{"PodGroupPodsCount"}},
	}, {
		name:    "another placement, the live one infeasible under the shadow: its rejecting plugins decide",
		live:    placedIn("a"),
		shadow:  GroupEvaluation{Placed: true, Placement: "b", LiveGenerated: true, FirstMember: "ns/m0", LiveRejecting: []string{"TaintToleration"}},
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeDisagreed, PodGroup: "ns/g", LivePlacement: "a", ShadowPlacement: "b", Deciding: []string{"TaintToleration"}},
	}, {
		name:    "the shadow does not propose the live placement: the generator decides",
		live:    placedIn("a"),
		shadow:  GroupEvaluation{Placed: true, Placement: "", Generator: "TopologyPlacementGenerator", FirstMember: "ns/m0"},
		wantPod: "ns/m0",
		want:    Decision{Outcome: OutcomeDisagreed, PodGroup: "ns/g", LivePlacement: "a", Deciding: []string{"TopologyPlacementGenerator"}},
	}, {
		name: "same placement, one member elsewhere: that member's comparison decides",
		live: placedIn("a"),
		shadow: GroupEvaluation{Placed: true, Placement: "a", LiveGenerated: true, FirstMember: "ns/m0", Member: &MemberDecision{
			Pod: "ns/m1", Decision: Decision{Outcome: OutcomeDisagreed, LiveNode: "a2", ShadowNode: "a1", Deciding: []string{"NodeResourcesFit"}},
		}},
		wantPod: "ns/m1",
		want: Decision{Outcome: OutcomeDisagreed, PodGroup: "ns/g", LivePlacement: "a", ShadowPlacement: "a",
			LiveNode: "a2", ShadowNode: "a1", Deciding: []string{"NodeResourcesFit"}},
	}, {
		name: "same placement, a member the shadow leaves out",
		live: placedIn("a"),
		shadow: GroupEvaluation{Placed: true, Placement: "a", LiveGenerated: true, FirstMember: "ns/m0", Member: &MemberDecision{
			Pod: "ns/m1", Decision: Decision{Outcome: OutcomeShadowUnschedulable, LiveNode: "a2", Deciding: []string{"NodePorts"}},
		}},
		wantPod: "ns/m1",
		want: Decision{Outcome: OutcomeDisagreed, PodGroup: "ns/g", LivePlacement: "a", ShadowPlacement: "a",
			LiveNode: "a2", Deciding: []string{"NodePorts"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod, got := CompareGroup(tc.live, tc.shadow)
			if pod != tc.wantPod {
				t.Errorf("pod = %q, want %q", pod, tc.wantPod)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}
