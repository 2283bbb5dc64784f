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

package audit

import (
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// spreadGroup is one hard topology spread constraint shared by the pods
// that carry it: pods of one namespace with the same constraint, selector
// and node-inclusion inputs count the same pods over the same domains, so
// the constraint is judged once for all of them.
type spreadGroup struct {
	// rep is the first carrier; its node affinity, tolerations and
	// topology keys decide which nodes count.
	rep        *corev1.Pod
	constraint corev1.TopologySpreadConstraint
	selector   labels.Selector
	// keys are the topology keys of all of rep's hard constraints: a node
	// counts only if it has them all.
	keys     []string
	carriers []*corev1.Pod
}

// checkSpread holds the hard topology spread constraints
// (whenUnsatisfiable: DoNotSchedule) of the bound pods against the spread
// of the pods they select.
//
// Per constraint, it counts the pods the labelSelector (with matchLabelKeys
// merged) selects in the carrier's namespace, per domain of the topology
// key, over the nodes that count: those with every topology key of the
// carrier's hard constraints that, by the default policies, match the
// carrier's nodeSelector and required node affinity (nodeAffinityPolicy:
// Honor) whatever their taints (nodeTaintsPolicy: Ignore); either policy
// set otherwise is followed. Pods being deleted are not counted, as
// kube-scheduler does not count them. When the fullest domain exceeds the
// emptiest by more than maxSkew (the emptiest counting 0 when there are
// fewer domains than minDomains), each carrier in a fullest domain is
// reported. A carrier on a node without the topology key is reported too.
func (s *snapshot) checkSpread() []Violation {
	var out []Violation
	groups := map[string]*spreadGroup{}
	var order []string
	for _, p := range s.bound {
		node := s.nodes[p.Spec.NodeName]
		if node == nil || p.DeletionTimestamp != nil {
			continue
		}
		hard := hardSpreadConstraints(p)
		keys := make([]string, 0, len(hard))
		for _, c := range hard {
			keys = append(keys, c.TopologyKey)
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		for _, c := range hard {
			if _, ok := node.Labels[c.TopologyKey]; !ok {
				out = append(out, podViolation(p, PodTopologySpread, fmt.Sprintf("node %s has no label %s, the topology key of the pod's DoNotSchedule spread constraint",
					node.Name, c.TopologyKey)))
				continue
			}
			if c.LabelSelector == nil {
				// It selects no pod: every domain counts 0.
				continue
			}
			selector, err := spreadSelector(p, c)
			if err != nil {
				out = append(out, podViolation(p, PodTopologySpread, fmt.Sprintf("the spread constraint over %s cannot be read: %v", c.TopologyKey, err)))
				continue
			}
			id, err := spreadID(p, c, selector, keys)
			if err != nil {
				out = append(out, podViolation(p, PodTopologySpread, fmt.Sprintf("the spread constraint over %s cannot be read: %v", c.TopologyKey, err)))
				continue
			}
			g, ok := groups[id]
			if !ok {
				g = &spreadGroup{rep: p, constraint: c, selector: selector, keys: keys}
				groups[id] = g
				order = append(order, id)
			}
			g.carriers = append(g.carriers, p)
		}
	}
	for _, id := range order {
		out = append(out, s.judgeSpread(groups[id])...)
	}
	return out
}

// hardSpreadConstraints returns the pod's DoNotSchedule constraints.
func hardSpreadConstraints(p *corev1.Pod) []corev1.TopologySpreadConstraint {
	var out []corev1.TopologySpreadConstraint
	for _, c := range p.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.DoNotSchedule {
			out = append(out, c)
		}
	}
	return out
}

// spreadSelector is the constraint's labelSelector with `key in (value)`
// added for each of its matchLabelKeys the pod has a label of.
func spreadSelector(p *corev1.Pod, c corev1.TopologySpreadConstraint) (labels.Selector, error) {
	selector, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	return mergeLabelKeys(selector, p, c.MatchLabelKeys, selection.In)
}

// spreadID identifies what judging the constraint depends on, so that
// carriers that would count alike share one judgement.
func spreadID(p *corev1.Pod, c corev1.TopologySpreadConstraint, selector labels.Selector, keys []string) (string, error) {
	id := struct {
		Namespace    string
		TopologyKey  string
		MaxSkew      int32
		MinDomains   *int32
		Selector     string
		Keys         []string
		NodeSelector map[string]string    `json:",omitempty"`
		Required     *corev1.NodeSelector `json:",omitempty"`
		Tolerations  []corev1.Toleration  `json:",omitempty"`
		Policies     [2]corev1.NodeInclusionPolicy
	}{
		Namespace: p.Namespace, TopologyKey: c.TopologyKey, MaxSkew: c.MaxSkew, MinDomains: c.MinDomains,
		Selector: selector.String(), Keys: keys, Policies: [2]corev1.NodeInclusionPolicy{affinityPolicy(c), taintsPolicy(c)},
	}
	if affinityPolicy(c) == corev1.NodeInclusionPolicyHonor {
		id.NodeSelector, id.Required = p.Spec.NodeSelector, requiredNodeAffinity(p)
	}
	if taintsPolicy(c) == corev1.NodeInclusionPolicyHonor {
		id.Tolerations = p.Spec.Tolerations
	}
	b, err := json.Marshal(id)
	if err != nil {
		return "", fmt.Errorf("encoding the constraint: %w", err)
	}
	return string(b), nil
}

func affinityPolicy(c corev1.TopologySpreadConstraint) corev1.NodeInclusionPolicy {
	if c.NodeAffinityPolicy != nil {
		return *c.NodeAffinityPolicy
	}
	return corev1.NodeInclusionPolicyHonor
}

func taintsPolicy(c corev1.TopologySpreadConstraint) corev1.NodeInclusionPolicy {
	if c.NodeTaintsPolicy != nil {
		return *c.NodeTaintsPolicy
	}
	return corev1.NodeInclusionPolicyIgnore
}

// judgeSpread counts the group's pods per domain and reports its carriers
// in the fullest domains when the skew is above maxSkew.
func (s *snapshot) judgeSpread(g *spreadGroup) []Violation {
	c, rep := g.constraint, g.rep
	counts := map[string]int{}
	for _, name := range s.nodeNames {
		n := s.nodes[name]
		if !hasLabels(n, g.keys) ||
			affinityPolicy(c) == corev1.NodeInclusionPolicyHonor && !nodeFitsSelection(rep, n) ||
			taintsPolicy(c) == corev1.NodeInclusionPolicyHonor && len(untoleratedTaints(rep, n)) > 0 {
			continue
		}
		value := n.Labels[c.TopologyKey]
		count := counts[value]
		for _, q := range s.byNode[name] {
			if q.DeletionTimestamp == nil && q.Namespace == rep.Namespace && g.selector.Matches(labels.Set(q.Labels)) {
				count++
			}
		}
		counts[value] = count
	}
	if len(counts) == 0 {
		return nil
	}
	values := make([]string, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	slices.Sort(values)
	fullest, emptiest := values[0], values[0]
	for _, v := range values {
		if counts[v] > counts[fullest] {
			fullest = v
		}
		if counts[v] < counts[emptiest] {
			emptiest = v
		}
	}
	maxCount, minCount := counts[fullest], counts[emptiest]
	minDesc := fmt.Sprintf("the emptiest, %s=%s, holds %d", c.TopologyKey, emptiest, minCount)
	if c.MinDomains != nil && len(counts) < int(*c.MinDomains) {
		minCount = 0
		minDesc = fmt.Sprintf("there are %d domains, fewer than minDomains %d, so the minimum counts as 0", len(counts), *c.MinDomains)
	}
	skew := maxCount - minCount
	if skew <= int(c.MaxSkew) {
		return nil
	}
	sel := g.selector.String()
	if sel == "" {
		sel = "any labels"
	}
	var out []Violation
	for _, p := range g.carriers {
		value := s.nodes[p.Spec.NodeName].Labels[c.TopologyKey]
		if count, ok := counts[value]; !ok || count != maxCount {
			continue
		}
		out = append(out, podViolation(p, PodTopologySpread, fmt.Sprintf(
			"%s=%s holds %d pods with %s in namespace %s and %s: skew %d is above maxSkew %d",
			c.TopologyKey, value, maxCount, sel, rep.Namespace, minDesc, skew, c.MaxSkew)))
	}
	return out
}

// hasLabels reports whether the node has every label key.
func hasLabels(n *corev1.Node, keys []string) bool {
	for _, k := range keys {
		if _, ok := n.Labels[k]; !ok {
			return false
		}
	}
	return true
}
