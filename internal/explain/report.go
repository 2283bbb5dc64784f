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
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework"
)

// TieBreak says how the scheduler picks among the best nodes.
const TieBreak = "the scheduler breaks the tie as kube-scheduler v1.37 does, by the order it searched the nodes in, which moves from cycle to cycle (at random when an extender scored)"

// Report is berth explain's answer for one pod.
type Report struct {
	// Pod is the pod's namespace/name.
	Pod string `json:"pod"`
	// SchedulerName is the pod's spec.schedulerName.
	SchedulerName string `json:"schedulerName"`
	// BoundTo is the node the pod is bound to; it was evaluated as if pending.
	BoundTo string `json:"boundTo,omitempty"`
	// NominatedNode is the pod's status.nominatedNodeName.
	NominatedNode string `json:"nominatedNode,omitempty"`
	// SchedulingGates lists the pod's gates; the scheduler does not try a
	// gated pod until they are removed.
	SchedulingGates []string `json:"schedulingGates,omitempty"`
	// Recorded is the live decision that placed a bound pod, when the
	// profile that placed it records its decisions.
	Recorded *Recorded `json:"recorded,omitempty"`
	// RecordedNote says why a bound pod has no recorded decision.
	RecordedNote string `json:"recordedNote,omitempty"`
	// Group explains the scheduling.k8s.io PodGroup the pod belongs to.
	Group *GroupReport `json:"group,omitempty"`
	// TieBreak says how the scheduler chooses among tied nodes.
	TieBreak string `json:"tieBreak"`
	// Results holds one evaluation per profile: the live one, the
	// candidate, or both (live first).
	Results []*Result `json:"results"`
	// Diff compares the two results when there are two.
	Diff *Diff `json:"diff,omitempty"`
}

// Result is what one profile does with the pod.
type Result struct {
	// Profile names the SchedulingProfile.
	Profile string `json:"profile"`
	// Source is "cluster" for a profile read from the cluster, else the
	// file the candidate was read from.
	Source string `json:"source"`
	// Generation is the profile's metadata.generation, 0 for a candidate.
	Generation int64 `json:"generation,omitempty"`
	// ServesSchedulerName is the schedulerName the profile claims.
	ServesSchedulerName string `json:"servesSchedulerName"`
	// ShadowOf is the schedulerName a shadow profile shadows; a shadow
	// serves none and binds nothing.
	ShadowOf string `json:"shadowOf,omitempty"`
	// Note says something the reader should know about this result, e.g.
	// that the profile does not serve the pod's schedulerName.
	Note string `json:"note,omitempty"`
	// Weights are the score plugins' weights, after PluginWeights.
	Weights map[string]int32 `json:"weights"`
	// NumNodes is how many nodes the cluster has.
	NumNodes int `json:"numNodes"`
	// NumFeasible is how many of them passed Filter.
	NumFeasible int `json:"numFeasible"`
	// SkippedScore lists the profile's score plugins that scored no node:
	// they skipped at PreScore, having nothing to score for this pod.
	SkippedScore []string `json:"skippedScore,omitempty"`
	// Chosen lists the nodes the scheduler would pick from: the feasible
	// nodes with the best total (see TieBreak), or the nominated node when
	// it passes; empty when the pod fits nowhere.
	Chosen []string `json:"chosen"`
	// Unschedulable is the scheduler's message when no node fits.
	Unschedulable string `json:"unschedulable,omitempty"`
	// Nodes lists every node, the feasible best first (by total, then
	// name), then the rejected by name; --nodes limits it.
	Nodes []NodeResult `json:"nodes"`
	// OmittedNodes counts the nodes left out of Nodes by --nodes.
	OmittedNodes int `json:"omittedNodes,omitempty"`
	// Usage lists the profile's plugins that read what nodes use, with how
	// reading their sources went; empty for a profile without any.
	Usage []UsageSource `json:"usage,omitempty"`
}

// NodeResult is one node's verdict under one profile.
type NodeResult struct {
	// Node is the node's name.
	Node string `json:"node"`
	// Feasible reports that the node passed PreFilter and Filter.
	Feasible bool `json:"feasible"`
	// Chosen reports that the node is among Result.Chosen.
	Chosen bool `json:"chosen,omitempty"`
	// Plugin names the plugin that rejected the node.
	Plugin string `json:"plugin,omitempty"`
	// Reason is why the node was rejected.
	Reason string `json:"reason,omitempty"`
	// Scores are the plugins' scores on a feasible node, in the profile's order.
	Scores []PluginScore `json:"scores,omitempty"`
	// Total is the sum of the weighted scores.
	Total int64 `json:"total"`
	// Usage is what the profile's plugins reading usage see of the node,
	// one entry per source; empty for a profile without any.
	Usage []NodeUsage `json:"usage,omitempty"`
}

// PluginScore is one plugin's score of one node.
type PluginScore struct {
	// Plugin is the score plugin's (or extender's) name.
	Plugin string `json:"plugin"`
	// Score is the normalized score, 0–100 (an extender's weighted score
	// when Weight is 0).
	Score int64 `json:"score"`
	// Weight is the plugin's weight in the profile; 0 for an extender.
	Weight int32 `json:"weight"`
	// Weighted is Score × Weight, what the total adds.
	Weighted int64 `json:"weighted"`
}

// newResult turns an evaluation into a result.
func newResult(pod *v1.Pod, e *scheduler.Evaluation, weights map[string]int32) *Result {
	r := &Result{Weights: weights, NumNodes: len(e.Nodes), NumFeasible: len(e.Feasible), Chosen: []string{}}
	feasible := make(map[string]bool, len(e.Feasible))
	for _, n := range e.Feasible {
		feasible[n] = true
	}
	for i, s := range e.Scores {
		nr := NodeResult{Node: e.Feasible[i], Feasible: true, Total: s.TotalScore}
		for _, ps := range s.Scores {
			w := weights[ps.Name]
			score := ps.Score
			if w > 0 {
				score = ps.Score / int64(w)
			}
			nr.Scores = append(nr.Scores, PluginScore{Plugin: ps.Name, Score: score, Weight: w, Weighted: ps.Score})
		}
		r.Nodes = append(r.Nodes, nr)
	}
	slices.SortStableFunc(r.Nodes, func(a, b NodeResult) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), strings.Compare(a.Node, b.Node))
	})
	switch {
	case e.NominatedNodePasses:
		r.Chosen = []string{pod.Status.NominatedNodeName}
	case len(r.Nodes) > 0:
		for _, n := range r.Nodes {
			if n.Total == r.Nodes[0].Total {
				r.Chosen = append(r.Chosen, n.Node)
			}
		}
	}
	for i := range r.Nodes {
		r.Nodes[i].Chosen = slices.Contains(r.Chosen, r.Nodes[i].Node)
	}
	var rejected []NodeResult
	for _, n := range e.Nodes {
		if feasible[n] {
			continue
		}
		st := e.Diagnosis.NodeToStatus.Get(n)
		rejected = append(rejected, NodeResult{Node: n, Plugin: st.Plugin(), Reason: reason(st)})
	}
	slices.SortFunc(rejected, func(a, b NodeResult) int { return strings.Compare(a.Node, b.Node) })
	r.Nodes = append(r.Nodes, rejected...)
	r.Unschedulable = e.Unschedulable(pod)
	if len(e.Scores) > 0 {
		scored := make(map[string]bool)
		for _, ps := range e.Scores[0].Scores {
			scored[ps.Name] = true
		}
		for p := range weights {
			if !scored[p] {
				r.SkippedScore = append(r.SkippedScore, p)
			}
		}
		slices.Sort(r.SkippedScore)
	}
	return r
}

// reason renders a rejection's reasons on one line.
func reason(st *framework.Status) string {
	if st == nil {
		return ""
	}
	return strings.Join(st.Reasons(), "; ")
}

// limit keeps the first n node rows (all when n <= 0).
func (r *Result) limit(n int) {
	if n <= 0 || len(r.Nodes) <= n {
		return
	}
	r.OmittedNodes = len(r.Nodes) - n
	r.Nodes = r.Nodes[:n]
}

// node returns the row of a node, or nil.
func (r *Result) node(name string) *NodeResult {
	for i := range r.Nodes {
		if r.Nodes[i].Node == name {
			return &r.Nodes[i]
		}
	}
	return nil
}
