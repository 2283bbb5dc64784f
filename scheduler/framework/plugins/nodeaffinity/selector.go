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

package nodeaffinity

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	labelOperators = []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists,
		v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt}
	fieldOperators = []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn}
)

// fieldRequirement is one parsed matchFields requirement: the node's field
// under key must (in) or must not (!in) equal value.
type fieldRequirement struct {
	key, value string
	in         bool
}

// term is a parsed NodeSelectorTerm. Matching it reads the node without
// allocating, unlike component-helpers' selector, which builds a field set
// per node.
type term struct {
	labels labels.Selector // nil when the term has no matchExpressions
	fields []fieldRequirement
}

// matches reports whether the node satisfies every requirement of the term.
// As upstream, field requirements are ignored for a node without a name.
func (t *term) matches(node *v1.Node) bool {
	if t.labels != nil && !t.labels.Matches(labels.Set(node.Labels)) {
		return false
	}
	if node.Name == "" {
		return true
	}
	for i := range t.fields {
		var got string
		if t.fields[i].key == metav1.ObjectNameField {
			got = node.Name
		}
		if (got == t.fields[i].value) != t.fields[i].in {
			return false
		}
	}
	return true
}

// parseTerm parses a non-empty term, returning every problem found.
func parseTerm(nst *v1.NodeSelectorTerm, path *field.Path) (term, []error) {
	var t term
	var errs []error
	if len(nst.MatchExpressions) > 0 {
		p := path.Child("matchExpressions")
		sel := labels.NewSelector()
		for i := range nst.MatchExpressions {
			r, err := labelRequirement(&nst.MatchExpressions[i], p.Index(i))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sel = sel.Add(*r)
		}
		t.labels = sel
	}
	p := path.Child("matchFields")
	for i, r := range nst.MatchFields {
		rp := p.Index(i)
		if r.Operator != v1.NodeSelectorOpIn && r.Operator != v1.NodeSelectorOpNotIn {
			errs = append(errs, field.NotSupported(rp.Child("operator"), r.Operator, fieldOperators))
			continue
		}
		if len(r.Values) != 1 {
			errs = append(errs, field.Invalid(rp.Child("values"), r.Values, "must have one element"))
			continue
		}
		t.fields = append(t.fields, fieldRequirement{key: r.Key, value: r.Values[0], in: r.Operator == v1.NodeSelectorOpIn})
	}
	return t, errs
}

func labelRequirement(r *v1.NodeSelectorRequirement, path *field.Path) (*labels.Requirement, error) {
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
		return nil, field.NotSupported(path.Child("operator"), r.Operator, labelOperators)
	}
	return labels.NewRequirement(r.Key, op, r.Values, field.WithPath(path))
}

func isEmptyTerm(t *v1.NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

// nodeSelector is a parsed v1.NodeSelector: its terms are ORed. Terms that
// are empty or fail to parse never match.
type nodeSelector struct {
	terms []term
}

// parseNodeSelector parses ns; the selector is usable even when errors are
// returned, holding only the terms that parsed.
func parseNodeSelector(ns *v1.NodeSelector, path *field.Path) (*nodeSelector, []error) {
	out := &nodeSelector{terms: make([]term, 0, len(ns.NodeSelectorTerms))}
	var errs []error
	p := path.Child("nodeSelectorTerms")
	for i := range ns.NodeSelectorTerms {
		if isEmptyTerm(&ns.NodeSelectorTerms[i]) {
			continue
		}
		t, termErrs := parseTerm(&ns.NodeSelectorTerms[i], p.Index(i))
		if len(termErrs) > 0 {
			errs = append(errs, termErrs...)
			continue
		}
		out.terms = append(out.terms, t)
	}
	return out, errs
}

// matches reports whether any term matches the node.
func (s *nodeSelector) matches(node *v1.Node) bool {
	for i := range s.terms {
		if s.terms[i].matches(node) {
			return true
		}
	}
	return false
}

// weightedTerm is a parsed preferred term with its weight.
type weightedTerm struct {
	term
	weight int64
}

// preferredTerms are parsed preferred scheduling terms.
type preferredTerms []weightedTerm

// parsePreferredTerms parses the terms, skipping those with weight 0 or no
// requirements, and returns every problem found.
func parsePreferredTerms(terms []v1.PreferredSchedulingTerm, path *field.Path) (preferredTerms, []error) {
	out := make(preferredTerms, 0, len(terms))
	var errs []error
	for i := range terms {
		if terms[i].Weight == 0 || isEmptyTerm(&terms[i].Preference) {
			continue
		}
		t, termErrs := parseTerm(&terms[i].Preference, path.Index(i))
		if len(termErrs) > 0 {
			errs = append(errs, termErrs...)
			continue
		}
		out = append(out, weightedTerm{term: t, weight: int64(terms[i].Weight)})
	}
	return out, errs
}

// score sums the weights of the terms the node matches.
func (p preferredTerms) score(node *v1.Node) int64 {
	var sum int64
	for i := range p {
		if p[i].matches(node) {
			sum += p[i].weight
		}
	}
	return sum
}

// requiredAffinity is a pod's nodeSelector ANDed with its required node
// affinity.
type requiredAffinity struct {
	labels   labels.Selector // nil when the pod has no nodeSelector
	affinity *nodeSelector   // nil when the pod has no required node affinity
}

// newRequiredAffinity parses the pod's hard node constraints; terms that do
// not parse are dropped, so they never match, as upstream.
func newRequiredAffinity(pod *v1.Pod) *requiredAffinity {
	r := &requiredAffinity{}
	if len(pod.Spec.NodeSelector) > 0 {
		r.labels = labels.SelectorFromSet(pod.Spec.NodeSelector)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.affinity, _ = parseNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, nil)
	}
	return r
}

// matches reports whether the node satisfies the pod's hard node constraints.
func (r *requiredAffinity) matches(node *v1.Node) bool {
	if r.labels != nil && !r.labels.Matches(labels.Set(node.Labels)) {
		return false
	}
	return r.affinity == nil || r.affinity.matches(node)
}
