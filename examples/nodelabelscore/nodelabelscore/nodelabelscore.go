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

// Package nodelabelscore is an example of an out-of-tree Berth plugin:
// NodeLabelScore, a Score plugin that prefers nodes by the integer value of
// a node label, higher values first or, with preferHigher: false, lower
// ones. Nodes without the label, or whose value is not an integer, score
// lowest. Its args follow Berth's one args contract (scheduler/args):
// decoded strictly, defaulted, then validated, with errors at their field
// paths.
package nodelabelscore

import (
	"context"
	"errors"
	"math"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
)

// Name is the name profiles enable the plugin by.
const Name = "NodeLabelScore"

// Args are the plugin's args, its pluginConfig entry in a profile.
type Args struct {
	// Label is the node label whose value, an integer, ranks the nodes. Required.
	Label string `json:"label"`
	// PreferHigher prefers nodes with higher values (the default) or, when
	// false, nodes with lower values.
	PreferHigher *bool `json:"preferHigher,omitempty"`
}

// Default prefers higher values unless the profile says otherwise.
func (a *Args) Default() {
	if a.PreferHigher == nil {
		a.PreferHigher = ptr.To(true)
	}
}

// Validate reports a missing label and one that is not a valid label key.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	if a.Label == "" {
		return field.ErrorList{field.Required(path.Child("label"), "the node label whose integer value ranks the nodes")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(a.Label) {
		errs = append(errs, field.Invalid(path.Child("label"), a.Label, msg))
	}
	return errs
}

// NodeLabelScore scores nodes by the integer value of one label.
type NodeLabelScore struct {
	label        string
	preferHigher bool
}

var (
	_ framework.ScorePlugin     = &NodeLabelScore{}
	_ framework.ScoreExtensions = &NodeLabelScore{}
)

// New is the plugin's factory: it loads the args as every Berth plugin
// does, so a profile with bad args is refused by the webhook, by `validate`
// and by the controllers with the same errors.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	return &NodeLabelScore{label: a.Label, preferHigher: *a.PreferHigher}, nil
}

// Name returns the plugin's name.
func (*NodeLabelScore) Name() string { return Name }

// unranked is the raw score of a node without an integer value in the label.
const unranked = math.MinInt64

// Score returns the node's label value as its raw score, or unranked;
// NormalizeScore turns the raw scores into the framework's range.
func (p *NodeLabelScore) Score(_ context.Context, _ *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, framework.AsStatus(errors.New("scoring a node that is not in the snapshot"))
	}
	value, ok := node.Labels[p.label]
	if !ok {
		return unranked, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return unranked, nil
	}
	return max(n, unranked+1), nil
}

// ScoreExtensions returns the plugin, which normalizes its scores.
func (p *NodeLabelScore) ScoreExtensions() framework.ScoreExtensions { return p }

// NormalizeScore maps the label values linearly onto [1, MaxNodeScore],
// the preferred end highest; unranked nodes get MinNodeScore, below every
// node with a value. When every value is equal, each scores MaxNodeScore.
func (p *NodeLabelScore) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		if s.Score != unranked {
			lo, hi = min(lo, s.Score), max(hi, s.Score)
		}
	}
	for i := range scores {
		s := scores[i].Score
		switch {
		case s == unranked:
			scores[i].Score = framework.MinNodeScore
		case hi == lo:
			scores[i].Score = framework.MaxNodeScore
		default:
			// In float64: hi - lo may not fit an int64.
			frac := (float64(s) - float64(lo)) / (float64(hi) - float64(lo))
			if !p.preferHigher {
				frac = 1 - frac
			}
			scores[i].Score = 1 + int64(math.Round(frac*float64(framework.MaxNodeScore-1)))
		}
	}
	return nil
}
