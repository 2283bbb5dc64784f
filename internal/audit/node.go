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
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// checkNodeSelection holds the pod's nodeSelector and required node
// affinity against its node.
func checkNodeSelection(p *corev1.Pod, node *corev1.Node) []Violation {
	var out []Violation
	var unmet []string
	for _, k := range sortedKeys(p.Spec.NodeSelector) {
		want := p.Spec.NodeSelector[k]
		switch got, ok := node.Labels[k]; {
		case !ok:
			unmet = append(unmet, fmt.Sprintf("%s=%s (the node has no %s label)", k, want, k))
		case got != want:
			unmet = append(unmet, fmt.Sprintf("%s=%s (the node has %s=%s)", k, want, k, got))
		}
	}
	if len(unmet) > 0 {
		out = append(out, podViolation(p, NodeSelector, fmt.Sprintf("node %s does not match the pod's nodeSelector: %s",
			node.Name, strings.Join(unmet, ", "))))
	}
	if required := requiredNodeAffinity(p); required != nil && !matchesNodeSelector(required, node) {
		terms := make([]string, 0, len(required.NodeSelectorTerms))
		for _, t := range required.NodeSelectorTerms {
			terms = append(terms, "{"+describeTerm(t)+"}")
		}
		out = append(out, podViolation(p, NodeAffinity, fmt.Sprintf("node %s matches none of the pod's required node-affinity terms: %s",
			node.Name, strings.Join(terms, " or "))))
	}
	return out
}

// requiredNodeAffinity returns the pod's required node affinity, or nil.
func requiredNodeAffinity(p *corev1.Pod) *corev1.NodeSelector {
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// nodeFitsSelection reports whether the node matches the pod's
// nodeSelector and required node affinity.
func nodeFitsSelection(p *corev1.Pod, node *corev1.Node) bool {
	for k, v := range p.Spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	required := requiredNodeAffinity(p)
	return required == nil || matchesNodeSelector(required, node)
}

// matchesNodeSelector reports whether the node matches one of the terms,
// with the API's meaning of each operator (k8s.io/component-helpers'
// node selector). A term without requirements, or with one that is
// malformed, matches no node.
func matchesNodeSelector(ns *corev1.NodeSelector, node *corev1.Node) bool {
	ok, err := nodeaffinity.NewLazyErrorNodeSelector(ns).Match(node)
	return err == nil && ok
}

// describeTerm writes a node selector term for a reader.
func describeTerm(t corev1.NodeSelectorTerm) string {
	var parts []string
	for _, r := range t.MatchExpressions {
		parts = append(parts, describeRequirement(r))
	}
	for _, r := range t.MatchFields {
		parts = append(parts, "field "+describeRequirement(r))
	}
	if len(parts) == 0 {
		return "(empty term)"
	}
	return strings.Join(parts, ", ")
}

func describeRequirement(r corev1.NodeSelectorRequirement) string {
	switch r.Operator {
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		return fmt.Sprintf("%s %s", r.Key, r.Operator)
	default:
		return fmt.Sprintf("%s %s (%s)", r.Key, r.Operator, strings.Join(r.Values, ","))
	}
}

// checkTaints reports the node's NoSchedule and NoExecute taints that the
// pod does not tolerate. PreferNoSchedule is not a hard constraint.
func checkTaints(p *corev1.Pod, node *corev1.Node) []Violation {
	untolerated := untoleratedTaints(p, node)
	if len(untolerated) == 0 {
		return nil
	}
	descs := make([]string, len(untolerated))
	for i, t := range untolerated {
		descs[i] = describeTaint(t)
	}
	what := "taint"
	if len(descs) > 1 {
		what = "taints"
	}
	return []Violation{podViolation(p, TaintToleration, fmt.Sprintf("node %s has the %s %s, which the pod does not tolerate",
		node.Name, what, strings.Join(descs, ", ")))}
}

// untoleratedTaints returns the node's NoSchedule and NoExecute taints
// that no toleration of the pod tolerates.
func untoleratedTaints(p *corev1.Pod, node *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		// The apiserver admitted the pod's tolerations, so Gt and Lt are
		// compared as the cluster that accepted them does.
		if !slices.ContainsFunc(p.Spec.Tolerations, func(tol corev1.Toleration) bool {
			return tol.ToleratesTaint(logr.Discard(), t, true)
		}) {
			out = append(out, *t)
		}
	}
	return out
}

func describeTaint(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
