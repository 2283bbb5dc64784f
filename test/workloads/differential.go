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
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/internal/audit"
)

// CompareOutcomes lists, sorted as "path: want != got", how got's outcome
// differs from want's where a scheduler's outcome is determined whatever
// ties it broke at random: whether each pod is bound, deleted (a victim)
// or not, the status and reason of each pod's and PodGroup's conditions,
// and, for the checkpoints where a scenario could not run (a step refused,
// the cluster never settled), that it could not. Messages, nodes and
// events are left out: a message may name a count that depends on which of
// equal nodes were taken.
// Paths want marks nondeterministic (the reference's runs disagreed) are
// left out, and the number of bound pods of each PodGroup, and of all,
// compared instead: ties broken at random are compared by counts.
func CompareOutcomes(want, got Observation) []string {
	wo, gotOutcomes := want.outcomes(), got.outcomes()
	for _, p := range append(want.Nondeterministic, want.varyingCounts()...) {
		delete(wo, p)
		delete(gotOutcomes, p)
	}
	return Differences(wo, gotOutcomes)
}

// varyingCounts returns the count paths of outcomes that the reference's
// runs may have disagreed on: those of a group, or of the pods in no
// group, one of whose pods' binding or deletion is nondeterministic.
func (o *Observation) varyingCounts() []string {
	var out []string
	for _, cp := range o.Checkpoints {
		base := cp.Name + "/"
		for _, p := range cp.Pods {
			pb := base + "pod/" + p.Name + "/"
			if !slices.Contains(o.Nondeterministic, pb+"bound") && !slices.Contains(o.Nondeterministic, pb+"deleted") {
				continue
			}
			if p.Group == "" {
				out = append(out, base+"boundWithoutGroup")
			} else {
				out = append(out, base+"podgroup/"+p.Group+"/boundMembers")
			}
		}
	}
	return out
}

// outcomes returns the paths CompareOutcomes compares.
func (o *Observation) outcomes() map[string]string {
	out := map[string]string{}
	for _, cp := range o.Checkpoints {
		base := cp.Name + "/"
		if cp.Unsettled {
			out[base+"unsettled"] = "true"
		}
		if len(cp.StepErrors) > 0 {
			out[base+"stepErrors"] = fmt.Sprint(len(cp.StepErrors))
		}
		bound := map[string]int{"": 0}
		for _, g := range cp.PodGroups {
			bound[g.Name] = 0
		}
		for _, p := range cp.Pods {
			pb := base + "pod/" + p.Name + "/"
			out[pb+"bound"] = fmt.Sprint(p.Node != "")
			if p.Node != "" && !p.Deleted {
				bound[p.Group]++
			}
			if p.Deleted {
				out[pb+"deleted"] = p.DeletedBy
			}
			for _, c := range p.Conditions {
				out[pb+"condition/"+c.Type] = c.Status + " " + c.Reason
			}
		}
		for group, n := range bound {
			if group == "" {
				out[base+"boundWithoutGroup"] = fmt.Sprint(n)
				continue
			}
			out[base+"podgroup/"+group+"/boundMembers"] = fmt.Sprint(n)
		}
		for _, g := range cp.PodGroups {
			for _, c := range g.Conditions {
				out[base+"podgroup/"+g.Name+"/condition/"+c.Type] = c.Status + " " + c.Reason
			}
		}
	}
	return out
}

// Invariants lists the hard constraints the placements of checkpoint cp of
// the scenario s break (internal/audit's checks: node selection, taints,
// pod (anti-)affinity, hard topology spread, resources, host ports, gangs
// bound below minCount), one line per violation. It rebuilds the cluster
// from s's objects with the pods where cp found them, so it judges any
// scheduler's outcome the same way. An unknown checkpoint is an error.
func Invariants(s Scenario, checkpoint string, o Observation) ([]string, error) {
	i := slices.IndexFunc(o.Checkpoints, func(cp Checkpoint) bool { return cp.Name == checkpoint })
	if i < 0 {
		return nil, fmt.Errorf("scenario %s has no checkpoint %q", s.Name, checkpoint)
	}
	const ns = "default"
	var c audit.Cluster
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, n.Object())
	}
	for _, g := range s.PodGroups {
		c.PodGroups = append(c.PodGroups, g.Object(ns))
	}
	pods := map[string]Pod{}
	for _, p := range s.Pods {
		pods[p.Name] = p
	}
	for _, state := range o.Checkpoints[i].Pods {
		p, ok := pods[state.Name]
		if !ok || state.Deleted || state.Node == "" {
			continue
		}
		pod := p.Object(ns)
		pod.Spec.NodeName = state.Node
		pod.Status.Phase = corev1.PodRunning
		c.Pods = append(c.Pods, pod)
	}
	withPriorities(c.PodGroups, s.PriorityClasses)
	var out []string
	for _, v := range audit.Check(c) {
		out = append(out, fmt.Sprintf("%s %s/%s on %q: %s: %s", v.Kind, v.Namespace, v.Name, v.Node, v.Constraint, v.Message))
	}
	return out, nil
}

// withPriorities gives each PodGroup the priority its class has, as
// admission would.
func withPriorities(groups []*schedulingv1beta1.PodGroup, classes []PriorityClass) {
	for _, g := range groups {
		for _, pc := range classes {
			if g.Spec.PriorityClassName == pc.Name {
				v := pc.Value
				g.Spec.Priority = &v
			}
		}
	}
}

// violationKey matches an Invariants line: what is checked, which object,
// on which node, and the constraint.
var violationKey = regexp.MustCompile(`^(\S+ \S+) on "[^"]*": ([^:]+):`)

// ViolationKey returns what an Invariants line is about, whatever node
// the object is on: its kind, namespace/name and constraint. Two
// schedulers' final states that break the same constraint of the same pod
// give the same key; a line of another form is its own key.
func ViolationKey(line string) string {
	m := violationKey.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	return m[1] + ": " + m[2]
}

// DescribeGenerated writes a generated scenario in a few lines, for a
// difference's report: its nodes and what each group and pod asks.
func DescribeGenerated(s Scenario) string {
	var b strings.Builder
	for _, n := range s.Nodes {
		fmt.Fprintf(&b, "node %s cpu=%s %s=%s taints=%d\n", n.Name, n.CPU, RackKey, n.Labels[RackKey], len(n.Taints))
	}
	for _, c := range s.CompositePodGroups {
		fmt.Fprintf(&b, "compositepodgroup %s parent=%q minGroupCount=%d topology=%q priorityClass=%q disruptionAll=%v\n", c.Name, c.Parent, c.MinGroupCount, c.TopologyKey, c.PriorityClassName, c.DisruptionAll)
	}
	for _, g := range s.PodGroups {
		parent := ""
		if g.Parent != "" {
			parent = fmt.Sprintf(" parent=%q", g.Parent)
		}
		fmt.Fprintf(&b, "podgroup %s%s minCount=%d topology=%q priorityClass=%q disruptionAll=%v\n", g.Name, parent, g.MinCount, g.TopologyKey, g.PriorityClassName, g.DisruptionAll)
	}
	for _, p := range s.Pods {
		fmt.Fprintf(&b, "pod %s group=%q node=%q priorityClass=%q affinity=%v antiAffinity=%v preferApart=%v spread=%v nodeSelector=%v tolerations=%d hostPort=%d\n",
			p.Name, p.Group, p.NodeName, p.PriorityClassName, p.Affinity, p.AntiAffinity, p.PreferAntiAffinity, p.Spread, p.NodeSelector, len(p.Tolerations), p.HostPort)
	}
	return b.String()
}
