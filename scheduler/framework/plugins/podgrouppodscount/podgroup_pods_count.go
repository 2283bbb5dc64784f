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

// Package podgrouppodscount implements PodGroupPodsCount, the placement
// scorer that prefers the placement holding the most members of a PodGroup:
// those already placed plus those the group cycle placed there.
package podgrouppodscount

import (
	"context"
	"errors"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.PodGroupPodsCount

// PodGroupPodsCount scores a placement by the members it would hold.
type PodGroupPodsCount struct {
	handle framework.Handle
}

var _ framework.PlacementScorePlugin = &PodGroupPodsCount{}

// New is the plugin's factory; it takes no args.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &PodGroupPodsCount{handle: h}, nil
}

// Name returns the plugin's name.
func (*PodGroupPodsCount) Name() string { return Name }

// ScorePlacement counts the group's placed members (of every PodGroup of a
// CompositePodGroup's hierarchy) and the members the placement's
// assignments add.
func (pl *PodGroupPodsCount) ScorePlacement(_ context.Context, group *framework.GroupNode, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	placed := 0
	for _, leaf := range group.Leaves() {
		placed += len(framework.ScheduledMembers(pl.handle.Workloads(), leaf.Ref()))
	}
	return int64(placed + len(a.Assignments)), nil
}

// errNoMembers is the failure when no placement holds any member.
var errNoMembers = errors.New("no pods from pod group are assigned to any of the candidate placements")

// NormalizePlacementScores scales the counts so that the largest is MaxNodeScore.
func (*PodGroupPodsCount) NormalizePlacementScores(_ context.Context, _ *framework.GroupNode, scores []int64) *framework.Status {
	top := int64(0)
	for _, s := range scores {
		top = max(top, s)
	}
	if top == 0 {
		return framework.AsStatus(errNoMembers)
	}
	for i := range scores {
		scores[i] = framework.MinNodeScore + scores[i]*(framework.MaxNodeScore-framework.MinNodeScore)/top
	}
	return nil
}
