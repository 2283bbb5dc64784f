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

package workloads

import (
	"fmt"
	"slices"
	"strings"
)

// Observation is what a scheduler did with a scenario: one Checkpoint per
// Observe step. Golden files hold the reference's.
type Observation struct {
	// Scenario names the scenario.
	Scenario string `json:"scenario"`
	// Placement says how Compare compares placements (from the scenario).
	Placement Placement `json:"placement"`
	// Runs is how many runs the golden was made from.
	Runs int `json:"runs,omitempty"`
	// Nondeterministic lists the paths (see Paths) whose values differed
	// between runs of the reference; Compare skips them.
	Nondeterministic []string `json:"nondeterministic,omitempty"`
	// Checkpoints are in the order of the scenario's Observe steps.
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// Checkpoint is the cluster's state once it settled after a step.
type Checkpoint struct {
	// Name is the Observe step's checkpoint name.
	Name string `json:"name"`
	// Unsettled is set when the state still changed at the settle rule's Max.
	Unsettled bool `json:"unsettled,omitempty"`
	// StepErrors are the apiserver's refusals of the steps since the last
	// checkpoint (for example an update of an immutable field).
	StepErrors []string `json:"stepErrors,omitempty"`
	// Pods are every pod the scenario created, sorted by name.
	Pods []PodState `json:"pods"`
	// PodGroups are every PodGroup the scenario created, sorted by name.
	PodGroups []PodGroupState `json:"podGroups,omitempty"`
	// CompositePodGroups are every CompositePodGroup the scenario created,
	// sorted by name.
	CompositePodGroups []CompositePodGroupState `json:"compositePodGroups,omitempty"`
}

// PodState is a pod as last seen.
type PodState struct {
	Name string `json:"name"`
	// Group is spec.schedulingGroup.podGroupName.
	Group string `json:"group,omitempty"`
	// Node is spec.nodeName.
	Node string `json:"node,omitempty"`
	// Domain is the value of the bound node's DomainKey label.
	Domain string `json:"domain,omitempty"`
	// Zone is the value of the bound node's ZoneKey label.
	Zone string `json:"zone,omitempty"`
	// NominatedNode is status.nominatedNodeName.
	NominatedNode string `json:"nominatedNode,omitempty"`
	// NominatedNodes are the distinct nominated nodes seen so far in the
	// scenario, in order (polled every 200 ms, so a short nomination may be missed).
	NominatedNodes []string `json:"nominatedNodes,omitempty"`
	// Deleted is set when the pod is gone; the rest is as last seen.
	Deleted bool `json:"deleted,omitempty"`
	// DeletedBy is "scenario" for pods a Delete step removed and
	// "scheduler" for the others (preemption victims).
	DeletedBy string `json:"deletedBy,omitempty"`
	// Conditions are the PodScheduled and DisruptionTarget conditions.
	Conditions []Condition `json:"conditions,omitempty"`
	// Events are the pod's events by reason.
	Events []EventSummary `json:"events,omitempty"`
}

// PodGroupState is a PodGroup as last seen.
type PodGroupState struct {
	Name string `json:"name"`
	// Parent is spec.parentCompositePodGroupName as stored.
	Parent string `json:"parent,omitempty"`
	// MinCount is the gang minCount as stored (0 for basic).
	MinCount int32 `json:"minCount,omitempty"`
	// Conditions are status.conditions without times or generations.
	Conditions []Condition `json:"conditions,omitempty"`
	// ConditionHistory, when the conditions changed during the scenario,
	// are the distinct conditions seen so far, in order (polled every 200 ms).
	ConditionHistory []Condition `json:"conditionHistory,omitempty"`
	// Events are the PodGroup's events by reason.
	Events []EventSummary `json:"events,omitempty"`
}

// CompositePodGroupState is a CompositePodGroup as last seen.
type CompositePodGroupState struct {
	Name string `json:"name"`
	// Parent is spec.parentCompositePodGroupName as stored.
	Parent string `json:"parent,omitempty"`
	// MinGroupCount is the gang minGroupCount as stored (0 for basic).
	MinGroupCount int32 `json:"minGroupCount,omitempty"`
	// Conditions are status.conditions without times or generations
	// (kube-scheduler v1.37.1 writes none).
	Conditions []Condition `json:"conditions,omitempty"`
	// ConditionHistory, when the conditions changed during the scenario,
	// are the distinct conditions seen so far, in order (polled every 200 ms).
	ConditionHistory []Condition `json:"conditionHistory,omitempty"`
	// Events are the CompositePodGroup's events by reason.
	Events []EventSummary `json:"events,omitempty"`
}

// Condition is a condition without its times.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// EventSummary is the events of one reason about one object.
type EventSummary struct {
	Reason string `json:"reason"`
	// Count sums the events' counts; it depends on retry timing, so
	// Compare ignores it.
	Count int32 `json:"count"`
	// Messages are the distinct messages, sorted.
	Messages []string `json:"messages"`
}

// Paths flattens o into path → value, the unit Compare and the
// nondeterminism check work in. Paths look like
// "<checkpoint>/pod/<name>/node", ".../condition/PodScheduled",
// ".../event/FailedScheduling", "<checkpoint>/podgroup/<name>/condition/<type>",
// "<checkpoint>/compositepodgroup/<name>/minGroupCount", ".../bound" (how
// many pods of its subtree are bound).
// placement selects which placement paths appear: node (exact only),
// domain and zone (exact and domain), bound (always). withCounts adds the
// events' counts.
func (o *Observation) Paths(placement Placement, withCounts bool) map[string]string {
	out := map[string]string{}
	for _, cp := range o.Checkpoints {
		base := cp.Name + "/"
		if cp.Unsettled {
			out[base+"unsettled"] = "true"
		}
		for i, e := range cp.StepErrors {
			out[fmt.Sprintf("%sstepError/%d", base, i)] = e
		}
		for _, p := range cp.Pods {
			pb := base + "pod/" + p.Name + "/"
			out[pb+"bound"] = fmt.Sprint(p.Node != "")
			if placement == PlaceExact && p.Node != "" {
				out[pb+"node"] = p.Node
			}
			if p.Domain != "" && placement != PlaceBound {
				out[pb+"domain"] = p.Domain
			}
			if p.Zone != "" && placement != PlaceBound {
				out[pb+"zone"] = p.Zone
			}
			if p.NominatedNode != "" {
				out[pb+"nominated"] = "true"
				if placement == PlaceExact {
					out[pb+"nominatedNode"] = p.NominatedNode
				}
			}
			if len(p.NominatedNodes) > 0 {
				out[pb+"everNominated"] = "true"
				if placement == PlaceExact {
					out[pb+"nominatedNodes"] = strings.Join(p.NominatedNodes, ",")
				}
			}
			if p.Deleted {
				out[pb+"deleted"] = p.DeletedBy
			}
			conditionPaths(out, pb, p.Conditions)
			events := p.Events
			if placement != PlaceExact && p.Node != "" {
				// "Successfully assigned ns/p to <node>" names the node.
				events = replaceInMessages(events, " to "+p.Node, " to $NODE")
			}
			eventPaths(out, pb, events, withCounts)
		}
		// How many domains and zones each group's bound pods span, however
		// they were spread over equal domains.
		domains, zones := spans(cp, func(p PodState) string { return p.Domain }), spans(cp, func(p PodState) string { return p.Zone })
		bound := spans(cp, func(p PodState) string {
			if p.Node == "" {
				return ""
			}
			return p.Name
		})
		for _, g := range cp.PodGroups {
			gb := base + "podgroup/" + g.Name + "/"
			if d := domains["podgroup/"+g.Name]; len(d) > 0 && placement != PlaceBound {
				out[gb+"domains"] = fmt.Sprint(len(d))
			}
			if z := zones["podgroup/"+g.Name]; len(z) > 0 && placement != PlaceBound {
				out[gb+"zones"] = fmt.Sprint(len(z))
			}
			if g.Parent != "" {
				out[gb+"parent"] = g.Parent
			}
			out[gb+"minCount"] = fmt.Sprint(g.MinCount)
			conditionPaths(out, gb, g.Conditions)
			for i, c := range g.ConditionHistory {
				out[fmt.Sprintf("%shistory/%d", gb, i)] = c.Type + " " + c.Status + " " + c.Reason + ": " + c.Message
			}
			eventPaths(out, gb, g.Events, withCounts)
		}
		for _, g := range cp.CompositePodGroups {
			gb := base + "compositepodgroup/" + g.Name + "/"
			if d := domains["compositepodgroup/"+g.Name]; len(d) > 0 && placement != PlaceBound {
				out[gb+"domains"] = fmt.Sprint(len(d))
			}
			if z := zones["compositepodgroup/"+g.Name]; len(z) > 0 && placement != PlaceBound {
				out[gb+"zones"] = fmt.Sprint(len(z))
			}
			if g.Parent != "" {
				out[gb+"parent"] = g.Parent
			}
			out[gb+"minGroupCount"] = fmt.Sprint(g.MinGroupCount)
			// How many pods of the subtree are bound, whichever they are
			// (preemption may pick any of equal victims).
			out[gb+"bound"] = fmt.Sprint(len(bound["compositepodgroup/"+g.Name]))
			conditionPaths(out, gb, g.Conditions)
			for i, c := range g.ConditionHistory {
				out[fmt.Sprintf("%shistory/%d", gb, i)] = c.Type + " " + c.Status + " " + c.Reason + ": " + c.Message
			}
			eventPaths(out, gb, g.Events, withCounts)
		}
	}
	return out
}

// spans returns, for each PodGroup ("podgroup/<name>") and each
// CompositePodGroup ("compositepodgroup/<name>") of cp, the distinct
// non-empty values that of returns for the bound, undeleted pods of its
// subtree, found through the parents cp recorded.
func spans(cp Checkpoint, of func(PodState) string) map[string]map[string]bool {
	parents := map[string]string{}
	for _, g := range cp.PodGroups {
		if g.Parent != "" {
			parents["podgroup/"+g.Name] = "compositepodgroup/" + g.Parent
		}
	}
	for _, g := range cp.CompositePodGroups {
		if g.Parent != "" {
			parents["compositepodgroup/"+g.Name] = "compositepodgroup/" + g.Parent
		}
	}
	out := map[string]map[string]bool{}
	for _, p := range cp.Pods {
		v := of(p)
		if p.Group == "" || v == "" || p.Deleted {
			continue
		}
		// Up the parents, stopping at a cycle.
		seen := map[string]bool{}
		for key := "podgroup/" + p.Group; key != "" && !seen[key]; key = parents[key] {
			seen[key] = true
			if out[key] == nil {
				out[key] = map[string]bool{}
			}
			out[key][v] = true
		}
	}
	return out
}

func conditionPaths(out map[string]string, prefix string, conds []Condition) {
	for _, c := range conds {
		out[prefix+"condition/"+c.Type] = c.Status + " " + c.Reason + ": " + c.Message
	}
}

// replaceInMessages returns events with old replaced by new in their messages.
func replaceInMessages(events []EventSummary, old, new string) []EventSummary {
	out := make([]EventSummary, len(events))
	for i, e := range events {
		e.Messages = slices.Clone(e.Messages)
		for j, m := range e.Messages {
			e.Messages[j] = strings.ReplaceAll(m, old, new)
		}
		out[i] = e
	}
	return out
}

func eventPaths(out map[string]string, prefix string, events []EventSummary, withCounts bool) {
	for _, e := range events {
		out[prefix+"event/"+e.Reason] = strings.Join(e.Messages, " | ")
		if withCounts {
			out[prefix+"event/"+e.Reason+"/count"] = fmt.Sprint(e.Count)
		}
	}
}

// Differences lists, sorted, the paths whose values differ between a and b
// (present in one only counts), each as "path: a-value != b-value".
func Differences(a, b map[string]string) []string {
	var out []string
	for k, va := range a {
		vb, ok := b[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %q != (absent)", k, va))
		case va != vb:
			out = append(out, fmt.Sprintf("%s: %q != %q", k, va, vb))
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: (absent) != %q", k, vb))
		}
	}
	slices.Sort(out)
	return out
}

// Compare lists the differences between want (a golden) and got (another
// scheduler's Observation of the same scenario), sorted, as
// "path: want != got". It compares placements as want.Placement says,
// skips want.Nondeterministic paths and ignores event counts.
func Compare(want, got Observation) []string {
	wp, gp := want.Paths(want.Placement, false), got.Paths(want.Placement, false)
	for _, p := range want.Nondeterministic {
		delete(wp, p)
		delete(gp, p)
	}
	var out []string
	if want.Scenario != got.Scenario {
		out = append(out, fmt.Sprintf("scenario: %q != %q", want.Scenario, got.Scenario))
	}
	return append(out, Differences(wp, gp)...)
}

// MarkNondeterministic sets o.Nondeterministic to the paths (event counts
// included, exact placements) whose values differ between o and the other
// runs, and o.Runs to the number of runs.
func (o *Observation) MarkNondeterministic(others ...Observation) {
	mine := o.Paths(PlaceExact, true)
	set := map[string]bool{}
	for _, other := range others {
		theirs := other.Paths(PlaceExact, true)
		for k, v := range mine {
			if theirs[k] != v {
				set[k] = true
			}
		}
		for k := range theirs {
			if _, ok := mine[k]; !ok {
				set[k] = true
			}
		}
	}
	o.Nondeterministic = nil
	for k := range set {
		o.Nondeterministic = append(o.Nondeterministic, k)
	}
	slices.Sort(o.Nondeterministic)
	o.Runs = 1 + len(others)
}

// MergeRecording adds an earlier recording of the same scenario to o's
// nondeterminism: o.Nondeterministic gains earlier's, and the paths that
// both recordings hold with different values; o.Runs adds earlier's runs.
// Paths only one of them holds are left alone, as the recorded fields may
// have changed in between.
func (o *Observation) MergeRecording(earlier Observation) {
	mine, theirs := o.Paths(PlaceExact, true), earlier.Paths(PlaceExact, true)
	set := map[string]bool{}
	for _, k := range o.Nondeterministic {
		set[k] = true
	}
	for _, k := range earlier.Nondeterministic {
		set[k] = true
	}
	for k, v := range mine {
		if w, ok := theirs[k]; ok && w != v {
			set[k] = true
		}
	}
	o.Nondeterministic = o.Nondeterministic[:0]
	for k := range set {
		o.Nondeterministic = append(o.Nondeterministic, k)
	}
	slices.Sort(o.Nondeterministic)
	o.Runs += max(earlier.Runs, 1)
}
