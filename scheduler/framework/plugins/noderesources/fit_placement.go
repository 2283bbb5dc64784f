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

package noderesources

import (
	"context"

	"github.com/berth-io/berth/scheduler/framework"
)

var _ framework.PlacementScorePlugin = &Fit{}

// ScorePlacement scores where a PodGroup's cycle placed its members as
// kube-scheduler v1.37 does with TopologyAwareWorkloadScheduling: the
// placement's nodes are taken as one, and the score is how much of their
// summed allocatable (MostAllocated, over the resources of the plugin's
// scoring strategy and with their weights) the pods already on them and
// the members placed there would use. Fuller placements score higher, so
// a group goes where it packs tightest, whatever the strategy for nodes.
func (f *Fit) ScorePlacement(_ context.Context, _ *framework.GroupNode, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	s := &f.placementScorer
	requested := make([]int64, len(s.names))
	for _, m := range a.Assignments {
		for i, r := range s.podRequests(m.Pod) {
			requested[i] += r
		}
	}
	var nodes []*framework.NodeInfo
	if a.Placement != nil {
		nodes = a.Placement.Nodes
	}
	allocatable := make([]int64, len(s.names))
	for _, ni := range nodes {
		for i := range s.names {
			nodeAllocatable, used := s.nodeAmounts(ni, i, requested[i])
			if nodeAllocatable == 0 {
				continue
			}
			allocatable[i] += nodeAllocatable
			requested[i] += used
		}
	}
	var total, weights int64
	for i := range s.names {
		if allocatable[i] == 0 {
			continue
		}
		total += mostAllocatedScore(requested[i], allocatable[i]) * s.weights[i]
		weights += s.weights[i]
	}
	if weights == 0 {
		return 0, nil
	}
	return total / weights, nil
}

// NormalizePlacementScores keeps the scores: they are already in
// [MinNodeScore, MaxNodeScore].
func (*Fit) NormalizePlacementScores(context.Context, *framework.GroupNode, []int64) *framework.Status {
	return nil
}
