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

package runtime

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// errNoPlacements is the reason of a PodGroup whose placement generator
// proposed no placement at all, in upstream's words.
const errNoPlacements = "no feasible placements found"

// RunPlacementGeneratePlugins returns the placements a group's cycle tries
// within parent: those of the first PlacementGenerate plugin, or parent
// alone when the profile has none. A generator that proposes nothing makes
// the group unschedulable.
func (f *Framework) RunPlacementGeneratePlugins(ctx context.Context, group *framework.GroupNode, parent *framework.Placement) (placements []*framework.Placement, status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("PlacementGenerate", status, start) }()
	if len(f.placementGenerate) == 0 {
		return []*framework.Placement{parent}, nil
	}
	pl := f.placementGenerate[0]
	placements, status = pl.GeneratePlacements(ctx, group, parent)
	if !status.IsSuccess() {
		return nil, status.WithPlugin(pl.Name())
	}
	if len(placements) == 0 {
		return nil, framework.NewStatus(framework.Unschedulable, errNoPlacements).WithPlugin(pl.Name())
	}
	return placements, nil
}

// RunPlacementFeasiblePlugins judges a PodGroup's progress in a placement:
// Success when every plugin admits the group, Wait while one waits for more
// members, Unschedulable as soon as one says the group cannot be admitted.
func (f *Framework) RunPlacementFeasiblePlugins(ctx context.Context, group *framework.GroupNode, progress framework.PlacementProgress) (status *framework.Status) {
	for _, pl := range f.placementFeasible {
		s := pl.PlacementFeasible(ctx, group, progress)
		switch {
		case s.IsSuccess():
		case s.IsWait():
			status = s.WithPlugin(pl.Name())
		case s.Code() == framework.Unschedulable:
			return s.WithPlugin(pl.Name())
		case s.Code() == framework.Error:
			return framework.AsStatus(fmt.Errorf("running PlacementFeasible plugin: %w", s.AsError())).WithPlugin(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("unexpected status from PlacementFeasible plugin: %v", s.Code())).WithPlugin(pl.Name())
		}
	}
	return status
}

// RunPlacementScorePlugins scores the placements where the whole group
// fits, one total per entry of assignments: each plugin's scores are
// normalized over the placements, then weighted and summed.
func (f *Framework) RunPlacementScorePlugins(ctx context.Context, group *framework.GroupNode, assignments []*framework.PodGroupAssignments) ([]int64, *framework.Status) {
	scores, st := f.ScorePlacements(ctx, group, assignments)
	if !st.IsSuccess() {
		return nil, st
	}
	totals := make([]int64, len(scores))
	for i := range scores {
		totals[i] = scores[i].TotalScore
	}
	return totals, nil
}

// ScorePlacements is RunPlacementScorePlugins with each placement's
// weighted score per plugin beside its total, entry for entry of
// assignments, each named after its placement; recorded decisions and
// shadow profiles read the plugins that ranked one placement above another.
func (f *Framework) ScorePlacements(ctx context.Context, group *framework.GroupNode, assignments []*framework.PodGroupAssignments) (out []framework.NodePluginScores, status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("PlacementScore", status, start) }()
	out = make([]framework.NodePluginScores, len(assignments))
	for j, a := range assignments {
		if a.Placement != nil {
			out[j].Name = a.Placement.Name
		}
		out[j].Scores = make([]framework.PluginScore, 0, len(f.placementScore))
	}
	scores := make([]int64, len(assignments))
	for i, pl := range f.placementScore {
		for j, a := range assignments {
			s, st := pl.ScorePlacement(ctx, group, a)
			if !st.IsSuccess() {
				return nil, framework.AsStatus(fmt.Errorf("running PlacementScore plugins: plugin %q failed with: %w", pl.Name(), st.AsError()))
			}
			scores[j] = s
		}
		if st := pl.NormalizePlacementScores(ctx, group, scores); !st.IsSuccess() {
			return nil, framework.AsStatus(fmt.Errorf("running Normalize on PlacementScore plugins: plugin %q failed with: %w", pl.Name(), st.AsError()))
		}
		for j, s := range scores {
			if s < framework.MinNodeScore || s > framework.MaxNodeScore {
				return nil, framework.AsStatus(fmt.Errorf("plugin %q returns an invalid placement score %d, it should be in the range of [%d, %d] after normalizing", pl.Name(), s, framework.MinNodeScore, framework.MaxNodeScore))
			}
			weighted := s * f.placementScoreWeights[i]
			out[j].Scores = append(out[j].Scores, framework.PluginScore{Name: pl.Name(), Score: weighted})
			out[j].TotalScore += weighted
		}
	}
	return out, nil
}

// PlacementGeneratorName names the PlacementGenerate plugin whose
// placements a PodGroup's cycle tries, "" when the profile has none (the
// one placement of every node).
func (f *Framework) PlacementGeneratorName() string {
	if len(f.placementGenerate) == 0 {
		return ""
	}
	return f.placementGenerate[0].Name()
}

// HasPlacementScorePlugins reports whether the profile ranks placements.
func (f *Framework) HasPlacementScorePlugins() bool { return len(f.placementScore) > 0 }

// RunPodGroupPostFilterPlugins runs the PodGroupPostFilter plugins for a
// group that fits nowhere, as upstream: the first success or
// UnschedulableAndUnresolvable ends the run; Unschedulable reasons add up;
// anything else is an error.
func (f *Framework) RunPodGroupPostFilterPlugins(ctx context.Context, group *framework.GroupNode, members []*v1.Pod, sim framework.PodGroupSimulation) (result *framework.PodGroupPostFilterResult, status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("PodGroupPostFilter", status, start) }()
	var reasons []string
	rejector := ""
	for _, pl := range f.podGroupPostFilter {
		res, s := pl.PodGroupPostFilter(ctx, group, members, sim)
		switch s.Code() {
		case framework.Success:
			return res, s
		case framework.UnschedulableAndUnresolvable:
			return res, s.WithPlugin(pl.Name())
		case framework.Unschedulable:
			reasons = append(reasons, s.Reasons()...)
			if rejector == "" {
				rejector = pl.Name()
			}
		default:
			return nil, framework.AsStatus(fmt.Errorf("error in %q PodGroupPostFilter plugins: %s", pl.Name(), s.Message())).WithPlugin(pl.Name())
		}
	}
	return nil, framework.NewStatus(framework.Unschedulable, reasons...).WithPlugin(rejector)
}
