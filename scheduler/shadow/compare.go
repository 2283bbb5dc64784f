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

// Package shadow compares where a shadow profile would place a pod with
// where the live profile placed it, and keeps the running figures of each
// shadow profile: outcomes, the plugins that decide disagreements and the
// last disagreements. It knows nothing of how the evaluation is run.
package shadow

import (
	"cmp"
	"slices"

	"github.com/berth-io/berth/scheduler/framework"
)

// Outcomes of comparing a shadow's evaluation with the live decision, as
// the berth_shadow_decisions_total metric labels them.
const (
	// OutcomeAgreed: the live node is among the shadow's best nodes, or
	// neither profile finds a node.
	OutcomeAgreed = "agreed"
	// OutcomeDisagreed: both place the pod, on different nodes.
	OutcomeDisagreed = "disagreed"
	// OutcomeShadowUnschedulable: the live profile placed the pod, the shadow finds no node.
	OutcomeShadowUnschedulable = "shadow_unschedulable"
	// OutcomeLiveUnschedulable: the live profile found no node, the shadow would place the pod.
	OutcomeLiveUnschedulable = "live_unschedulable"
	// OutcomeDropped: the attempt was sampled but not evaluated, the shadow's worker being busy.
	OutcomeDropped = "dropped"
	// OutcomeError: the shadow's evaluation failed.
	OutcomeError = "error"
)

// MaxDecidingPlugins bounds the plugins named as deciding one disagreement.
const MaxDecidingPlugins = 8

// Live is what the live profile's cycle decided for a pod.
type Live struct {
	// Node is where it placed the pod; empty when it found no node.
	Node string
	// Rejecting names the plugins that left the pod unschedulable, when Node is empty.
	Rejecting []string
}

// Evaluation is what the shadow profile found for the same pod on the
// same snapshot.
type Evaluation struct {
	// Scores are the shadow's scores of its feasible nodes (weighted, per
	// plugin), the live node among them whenever the shadow finds it feasible.
	Scores []framework.NodePluginScores
	// Feasible lists the shadow's feasible nodes; with a single one the
	// scheduler does not score, and Scores may be empty.
	Feasible []string
	// RejectedLive names the plugin that rejected the live node under the
	// shadow profile, if one did.
	RejectedLive string
	// Rejecting names the plugins that left the pod unschedulable under
	// the shadow profile, when Feasible is empty.
	Rejecting []string
}

// Decision is the comparison of one pod's live and shadow placements.
type Decision struct {
	// Outcome is one of the Outcome constants.
	Outcome string
	// LiveNode is where the live profile placed the pod.
	LiveNode string
	// ShadowNode is where the shadow would place it: the live node when
	// that is among its best, else the first of its best.
	ShadowNode string
	// Deciding names the plugins that decide a disagreement: the fewest
	// score plugins, largest margin first, whose weighted scores in favour
	// of ShadowNode over LiveNode outweigh all those against it, under the
	// shadow profile; or, when a Filter verdict decides, the rejecting plugins.
	Deciding []string
	// PodGroup, for a PodGroup's cycle, is the group's namespace/name; the
	// nodes are then those of the first member placed differently, if any.
	PodGroup string
	// LivePlacement and ShadowPlacement, for a PodGroup's cycle, name the
	// placements (topology values) each profile chose; "" for the one
	// placement of every node or when one places no member.
	LivePlacement, ShadowPlacement string
}

// Compare decides the outcome of one pod from the live decision and the
// shadow's evaluation. Ties count as agreement: the scheduler picks among
// equally scored nodes at random, so a shadow that scores the live node
// as high as any other would have picked it as often.
func Compare(live Live, shadow Evaluation) Decision {
	d := Decision{LiveNode: live.Node}
	switch {
	case live.Node == "" && len(shadow.Feasible) == 0:
		d.Outcome = OutcomeAgreed
		return d
	case live.Node == "":
		d.Outcome, d.ShadowNode = OutcomeLiveUnschedulable, best(shadow, "")
		d.Deciding = capped(sortedUnique(live.Rejecting))
		return d
	case len(shadow.Feasible) == 0:
		d.Outcome = OutcomeShadowUnschedulable
		d.Deciding = capped(sortedUnique(shadow.Rejecting))
		return d
	}
	d.ShadowNode = best(shadow, live.Node)
	if d.ShadowNode == live.Node {
		d.Outcome = OutcomeAgreed
		return d
	}
	d.Outcome = OutcomeDisagreed
	if shadow.RejectedLive != "" || !slices.Contains(shadow.Feasible, live.Node) {
		if shadow.RejectedLive != "" {
			d.Deciding = []string{shadow.RejectedLive}
		}
		return d
	}
	d.Deciding = deciding(scoresOf(shadow.Scores, live.Node), scoresOf(shadow.Scores, d.ShadowNode))
	return d
}

// best returns prefer when it is among the shadow's best nodes, else the
// first of them (the single feasible node when nothing was scored).
func best(e Evaluation, prefer string) string {
	if len(e.Scores) == 0 {
		if slices.Contains(e.Feasible, prefer) {
			return prefer
		}
		if len(e.Feasible) > 0 {
			return e.Feasible[0]
		}
		return ""
	}
	top := e.Scores[0].TotalScore
	for _, s := range e.Scores[1:] {
		top = max(top, s.TotalScore)
	}
	first := ""
	for _, s := range e.Scores {
		if s.TotalScore != top {
			continue
		}
		if s.Name == prefer {
			return prefer
		}
		if first == "" {
			first = s.Name
		}
	}
	return first
}

// scoresOf returns one node's scores, or nil.
func scoresOf(all []framework.NodePluginScores, node string) *framework.NodePluginScores {
	for i := range all {
		if all[i].Name == node {
			return &all[i]
		}
	}
	return nil
}

// deciding returns the fewest plugins, largest margin first, whose margins
// for to over from (to's weighted score minus from's) outweigh the sum of
// the margins against to.
func deciding(from, to *framework.NodePluginScores) []string {
	if from == nil || to == nil {
		return nil
	}
	type margin struct {
		plugin string
		value  int64
	}
	var favour []margin
	var against int64
	for _, ts := range to.Scores {
		var fs int64
		for _, f := range from.Scores {
			if f.Name == ts.Name {
				fs = f.Score
				break
			}
		}
		switch m := ts.Score - fs; {
		case m > 0:
			favour = append(favour, margin{ts.Name, m})
		case m < 0:
			against -= m
		}
	}
	// A plugin scoring only the live node counts against the shadow's.
	for _, f := range from.Scores {
		if !slices.ContainsFunc(to.Scores, func(p framework.PluginScore) bool { return p.Name == f.Name }) && f.Score > 0 {
			against += f.Score
		}
	}
	slices.SortStableFunc(favour, func(a, b margin) int {
		if c := cmp.Compare(b.value, a.value); c != 0 {
			return c
		}
		return cmp.Compare(a.plugin, b.plugin)
	})
	var out []string
	var sum int64
	for _, m := range favour {
		out = append(out, m.plugin)
		sum += m.value
		if sum > against || len(out) == MaxDecidingPlugins {
			break
		}
	}
	return out
}

// sortedUnique returns names sorted, without repeats.
func sortedUnique(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// capped keeps at most MaxDecidingPlugins names.
func capped(names []string) []string {
	if len(names) > MaxDecidingPlugins {
		return names[:MaxDecidingPlugins]
	}
	return names
}
