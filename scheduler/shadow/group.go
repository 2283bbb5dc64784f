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
	"github.com/berth-io/berth/scheduler/framework"
)

// LiveGroup is what the live profile's cycle decided for a PodGroup.
type LiveGroup struct {
	// PodGroup is the group's namespace/name.
	PodGroup string
	// Placed reports that the group fitted in a placement.
	Placed bool
	// Placement names the placement chosen, when Placed.
	Placement string
	// Nodes maps each member the cycle placed (namespace/name) to its node.
	Nodes map[string]string
	// Rejecting names the plugins that left the group unplaced, when not Placed.
	Rejecting []string
}

// GroupEvaluation is what the shadow profile's dry run of the same cycle
// found on the same snapshot.
type GroupEvaluation struct {
	// Placed reports that the group fits in some placement.
	Placed bool
	// Placement names the placement the shadow would choose, when Placed:
	// the live one when it ranks as high as any other.
	Placement string
	// Scores are the shadow's weighted PlacementScore scores of the
	// placements where the group fits, each named after its placement.
	Scores []framework.NodePluginScores
	// LiveGenerated reports that the shadow's placements include the live
	// one; Generator names the PlacementGenerate plugin that makes the
	// difference when they do not.
	LiveGenerated bool
	Generator     string
	// LiveRejecting names the plugins that keep the group out of the live
	// placement under the shadow profile, when it does not fit there.
	LiveRejecting []string
	// Rejecting names the plugins that leave the group unplaced, when not Placed.
	Rejecting []string
	// Member is the first member, in the cycle's order, that the shadow
	// places on another node than the live profile did, in the live
	// placement, with that comparison; nil when every member agrees.
	Member *MemberDecision
	// FirstMember is the first member of the cycle, the pod a group's
	// disagreement is listed under when no single member decides it.
	FirstMember string
}

// MemberDecision is one member's comparison within a PodGroup's cycle.
type MemberDecision struct {
	// Pod is the member's namespace/name.
	Pod string
	// Decision compares its live and shadow nodes, as for a single pod.
	Decision Decision
}

// CompareGroup decides the outcome of a PodGroup's cycle: the profiles
// agree when both place the group in the same placement with every member
// on the same node, or neither places it. The returned pod is the member
// the outcome is listed under: the first member placed differently, else
// the cycle's first member.
func CompareGroup(live LiveGroup, e GroupEvaluation) (string, Decision) {
	d := Decision{PodGroup: live.PodGroup, LivePlacement: live.Placement, ShadowPlacement: e.Placement}
	pod := e.FirstMember
	switch {
	case !live.Placed && !e.Placed:
		d.Outcome = OutcomeAgreed
		return pod, d
	case !live.Placed:
		d.Outcome = OutcomeLiveUnschedulable
		d.Deciding = capped(sortedUnique(live.Rejecting))
		return pod, d
	case !e.Placed:
		d.Outcome = OutcomeShadowUnschedulable
		d.ShadowPlacement = ""
		d.Deciding = capped(sortedUnique(e.Rejecting))
		return pod, d
	}
	if e.Placement != live.Placement {
		d.Outcome = OutcomeDisagreed
		switch {
		case !e.LiveGenerated:
			if e.Generator != "" {
				d.Deciding = []string{e.Generator}
			}
		case len(e.LiveRejecting) > 0:
			d.Deciding = capped(sortedUnique(e.LiveRejecting))
		default:
			d.Deciding = deciding(scoresOf(e.Scores, live.Placement), scoresOf(e.Scores, e.Placement))
		}
		return pod, d
	}
	if m := e.Member; m != nil && m.Decision.Outcome != OutcomeAgreed {
		d.Outcome = OutcomeDisagreed
		d.LiveNode, d.ShadowNode, d.Deciding = m.Decision.LiveNode, m.Decision.ShadowNode, m.Decision.Deciding
		return m.Pod, d
	}
	d.Outcome = OutcomeAgreed
	return pod, d
}
