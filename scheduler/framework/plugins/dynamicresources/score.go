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

package dynamicresources

import (
	"context"
	"errors"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/berth-io/berth/scheduler/framework"
)

// PreScore skips Score for pods whose claims have no prioritized list of
// subrequests: Score would give every node 0.
func (*DynamicResources) PreScore(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	s := readState(cs)
	if s == nil || !slices.ContainsFunc(s.claims, hasFirstAvailable) {
		return framework.Skipped()
	}
	return nil
}

// hasFirstAvailable reports whether a claim has a request with a
// prioritized list of subrequests, the only thing Score weighs.
func hasFirstAvailable(claim *resourceapi.ResourceClaim) bool {
	return slices.ContainsFunc(claim.Spec.Devices.Requests, func(r resourceapi.DeviceRequest) bool {
		return len(r.FirstAvailable) > 0
	})
}

// Score prefers nodes where the claims' prioritized lists got an earlier
// choice: a subrequest at position i of a list scores
// FirstAvailableDeviceRequestMaxSize - i, summed over the claims.
func (*DynamicResources) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s := readState(cs)
	if s == nil {
		return 0, nil
	}
	s.mu.Lock()
	allocations := s.byNode[nodeInfo.Node().Name]
	s.mu.Unlock()
	var score int64
	next := 0
	for i, claim := range s.claims {
		if s.isExt(i) {
			// One request per container and resource, no prioritized list.
			continue
		}
		allocation := claim.Status.Allocation
		if allocation == nil {
			if next >= len(allocations) {
				return 0, framework.AsStatus(errors.New("fewer allocations than claims to allocate"))
			}
			allocation = &allocations[next]
			next++
		}
		score += prioritizedListScore(claim, allocation)
	}
	return score, nil
}

// prioritizedListScore scores the subrequests an allocation chose.
func prioritizedListScore(claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult) int64 {
	if !hasFirstAvailable(claim) {
		return 0
	}
	chosen := sets.New[string]()
	for _, r := range allocation.Devices.Results {
		if resourceclaim.IsSubRequestRef(r.Request) {
			chosen.Insert(r.Request)
		}
	}
	var score int64
	for _, req := range claim.Spec.Devices.Requests {
		for i, sub := range req.FirstAvailable {
			if chosen.Has(resourceclaim.CreateSubRequestRef(req.Name, sub.Name)) {
				score += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
			}
		}
	}
	return score
}

// ScoreExtensions returns the plugin: its scores are normalized.
func (pl *DynamicResources) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the scores so the best node scores MaxNodeScore;
// when every node scores 0, they stay 0.
func (*DynamicResources) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	framework.NormalizeScores(scores, false)
	return nil
}
