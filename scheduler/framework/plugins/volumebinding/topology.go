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

package volumebinding

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// pvAffinity is a PV's required node affinity parsed once, so a Filter call
// matches it against node labels without allocating. It gives the answers
// volume.CheckNodeAffinity gives: terms are ORed, empty terms match nothing,
// a term that does not parse matches nothing, and matchFields are not
// evaluated (upstream checks PVs against a node that has labels only).
type pvAffinity struct {
	// any is true when the PV has no required affinity.
	any   bool
	terms []labels.Selector // nil entry: a term with matchFields only
}

func newPVAffinity(pv *v1.PersistentVolume) *pvAffinity {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return &pvAffinity{any: true}
	}
	a := &pvAffinity{}
	for i := range na.Required.NodeSelectorTerms {
		t := &na.Required.NodeSelectorTerms[i]
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			continue
		}
		sel, ok := termSelector(t)
		if !ok {
			continue
		}
		a.terms = append(a.terms, sel)
	}
	return a
}

// termSelector parses a term's label requirements; ok is false when the
// term is malformed. A term with only matchFields gives a nil selector,
// which matches every node.
func termSelector(t *v1.NodeSelectorTerm) (labels.Selector, bool) {
	for _, r := range t.MatchFields {
		if (r.Operator != v1.NodeSelectorOpIn && r.Operator != v1.NodeSelectorOpNotIn) || len(r.Values) != 1 {
			return nil, false
		}
	}
	if len(t.MatchExpressions) == 0 {
		return nil, true
	}
	sel := labels.NewSelector()
	for _, r := range t.MatchExpressions {
		var op selection.Operator
		switch r.Operator {
		case v1.NodeSelectorOpIn:
			op = selection.In
		case v1.NodeSelectorOpNotIn:
			op = selection.NotIn
		case v1.NodeSelectorOpExists:
			op = selection.Exists
		case v1.NodeSelectorOpDoesNotExist:
			op = selection.DoesNotExist
		case v1.NodeSelectorOpGt:
			op = selection.GreaterThan
		case v1.NodeSelectorOpLt:
			op = selection.LessThan
		default:
			return nil, false
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil {
			return nil, false
		}
		sel = sel.Add(*req)
	}
	return sel, true
}

// matches reports whether the node labels satisfy the affinity.
func (a *pvAffinity) matches(nodeLabels map[string]string) bool {
	if a.any {
		return true
	}
	set := labels.Set(nodeLabels)
	for _, t := range a.terms {
		if t == nil || t.Matches(set) {
			return true
		}
	}
	return false
}

// topologyAllows reports whether a StorageClass's allowedTopologies admit a
// node with the labels: no terms admit every node, terms are ORed, a term's
// expressions are ANDed and each requires the label to hold one of its
// values; empty terms and expressions without values admit nothing.
func topologyAllows(terms []v1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for i := range terms {
		if termAllows(terms[i].MatchLabelExpressions, nodeLabels) {
			return true
		}
	}
	return false
}

func termAllows(exprs []v1.TopologySelectorLabelRequirement, nodeLabels map[string]string) bool {
	if len(exprs) == 0 {
		return false
	}
	for _, e := range exprs {
		v, ok := nodeLabels[e.Key]
		if !ok || !contains(e.Values, v) {
			return false
		}
	}
	return true
}

func contains(values []string, v string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}
