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

package explain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Diff is what changes for the pod from one profile (the live one) to
// another (the candidate).
type Diff struct {
	// From and To name the two profiles compared.
	From string `json:"from"`
	To   string `json:"to"`
	// FromChosen and ToChosen are the nodes each would pick from.
	FromChosen []string `json:"fromChosen"`
	ToChosen   []string `json:"toChosen"`
	// Changed reports that the choice differs: the sets of best nodes are not the same.
	Changed bool `json:"changed"`
	// Summary says in one sentence what changes.
	Summary string `json:"summary"`
	// FromNode and ToNode are the two nodes compared below: one the first
	// profile picks and one the second picks instead.
	FromNode string `json:"fromNode,omitempty"`
	ToNode   string `json:"toNode,omitempty"`
	// Filter says when a Filter verdict, not a score, makes the difference:
	// one of the two nodes is rejected under one profile.
	Filter []string `json:"filter,omitempty"`
	// Plugins lists the plugins whose weighted scores moved the choice from
	// FromNode to ToNode, largest swing first.
	Plugins []PluginSwing `json:"plugins,omitempty"`
}

// PluginSwing is how much one plugin moved the margin between two nodes.
type PluginSwing struct {
	// Plugin is the plugin's name.
	Plugin string `json:"plugin"`
	// FromMargin is ToNode's weighted score minus FromNode's under the first profile.
	FromMargin int64 `json:"fromMargin"`
	// ToMargin is the same under the second profile.
	ToMargin int64 `json:"toMargin"`
	// Swing is ToMargin - FromMargin: positive when the plugin moved the
	// choice towards ToNode.
	Swing int64 `json:"swing"`
}

// compare returns the difference between two results on the same snapshot.
func compare(from, to *Result) *Diff {
	d := &Diff{
		From: from.label(), To: to.label(), FromChosen: from.Chosen, ToChosen: to.Chosen,
		Changed: !slices.Equal(sorted(from.Chosen), sorted(to.Chosen)),
	}
	switch {
	case !d.Changed:
		d.Summary = fmt.Sprintf("no change: both pick from %s", list(from.Chosen))
		return d
	case len(to.Chosen) == 0:
		d.Summary = fmt.Sprintf("%s leaves the pod unschedulable (%s); %s picks from %s", d.To, to.Unschedulable, d.From, list(from.Chosen))
		return d
	case len(from.Chosen) == 0:
		d.Summary = fmt.Sprintf("%s places the pod on %s; %s leaves it unschedulable (%s)", d.To, list(to.Chosen), d.From, from.Unschedulable)
		return d
	}
	d.FromNode = from.Chosen[0]
	d.ToNode = to.Chosen[0]
	for _, n := range to.Chosen {
		if !slices.Contains(from.Chosen, n) {
			d.ToNode = n
			break
		}
	}
	for _, n := range from.Chosen {
		if !slices.Contains(to.Chosen, n) {
			d.FromNode = n
			break
		}
	}
	d.Summary = fmt.Sprintf("the choice changes from %s to %s", list(from.Chosen), list(to.Chosen))

	fromA, fromB := from.node(d.FromNode), from.node(d.ToNode)
	toA, toB := to.node(d.FromNode), to.node(d.ToNode)
	if !fromB.Feasible {
		d.Filter = append(d.Filter, fmt.Sprintf("%s rejects %s (%s: %s)", d.From, d.ToNode, fromB.Plugin, fromB.Reason))
	}
	if !toA.Feasible {
		d.Filter = append(d.Filter, fmt.Sprintf("%s rejects %s (%s: %s)", d.To, d.FromNode, toA.Plugin, toA.Reason))
	}
	if len(d.Filter) > 0 {
		return d
	}
	fromMargin := margins(fromA, fromB)
	toMargin := margins(toA, toB)
	for _, p := range unionKeys(fromMargin, toMargin) {
		s := PluginSwing{Plugin: p, FromMargin: fromMargin[p], ToMargin: toMargin[p]}
		s.Swing = s.ToMargin - s.FromMargin
		if s.Swing != 0 {
			d.Plugins = append(d.Plugins, s)
		}
	}
	slices.SortFunc(d.Plugins, func(a, b PluginSwing) int {
		return cmp.Or(cmp.Compare(b.Swing, a.Swing), strings.Compare(a.Plugin, b.Plugin))
	})
	return d
}

// margins returns, per plugin, b's weighted score minus a's.
func margins(a, b *NodeResult) map[string]int64 {
	out := make(map[string]int64)
	for _, s := range b.Scores {
		out[s.Plugin] += s.Weighted
	}
	for _, s := range a.Scores {
		out[s.Plugin] -= s.Weighted
	}
	return out
}

func unionKeys(a, b map[string]int64) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// list renders node names for a sentence.
func list(nodes []string) string {
	switch len(nodes) {
	case 0:
		return "no node"
	case 1:
		return nodes[0]
	default:
		return fmt.Sprintf("%d tied nodes (%s)", len(nodes), strings.Join(nodes, ", "))
	}
}

// label names a result's profile in a sentence: a candidate says where it was read.
func (r *Result) label() string {
	if r.Source == SourceCluster || r.Source == "" {
		return r.Profile
	}
	return fmt.Sprintf("%s (%s)", r.Profile, r.Source)
}
