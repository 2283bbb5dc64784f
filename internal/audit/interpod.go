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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
)

// podTerm is a pod (anti-)affinity term of its owner, ready to match pods.
type podTerm struct {
	owner       *corev1.Pod
	topologyKey string
	// namespaces are the namespaces listed; with nsSelector nil and none
	// listed, the owner's.
	namespaces sets.Set[string]
	// nsSelector selects more namespaces by their labels; nil selects none.
	nsSelector labels.Selector
	// selector selects the pods, matchLabelKeys and mismatchLabelKeys merged in.
	selector labels.Selector
}

// newPodTerm compiles the owner's term. matchLabelKeys and
// mismatchLabelKeys add `key in (value)` and `key notin (value)` for the
// owner's value of each key it has, as the apiserver merges them into the
// labelSelector when it admits the pod (merging them again changes nothing).
func newPodTerm(owner *corev1.Pod, t corev1.PodAffinityTerm) (*podTerm, error) {
	selector, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	if selector, err = mergeLabelKeys(selector, owner, t.MatchLabelKeys, selection.In); err != nil {
		return nil, err
	}
	if selector, err = mergeLabelKeys(selector, owner, t.MismatchLabelKeys, selection.NotIn); err != nil {
		return nil, err
	}
	term := &podTerm{owner: owner, topologyKey: t.TopologyKey, namespaces: sets.New(t.Namespaces...), selector: selector}
	if t.NamespaceSelector != nil {
		if term.nsSelector, err = metav1.LabelSelectorAsSelector(t.NamespaceSelector); err != nil {
			return nil, fmt.Errorf("namespaceSelector: %w", err)
		}
	} else if len(t.Namespaces) == 0 {
		term.namespaces.Insert(owner.Namespace)
	}
	return term, nil
}

// mergeLabelKeys adds to the selector, for each key the owner has a label
// of, the requirement `key op (its value)`. A nil labelSelector stays one
// that selects nothing.
func mergeLabelKeys(selector labels.Selector, owner *corev1.Pod, keys []string, op selection.Operator) (labels.Selector, error) {
	for _, k := range keys {
		v, ok := owner.Labels[k]
		if !ok {
			continue
		}
		r, err := labels.NewRequirement(k, op, []string{v})
		if err != nil {
			return nil, fmt.Errorf("label key %q: %w", k, err)
		}
		selector = selector.Add(*r)
	}
	return selector, nil
}

// isEverything tells labels.Everything() (empty, matches all) from
// labels.Nothing() (empty too, matches none).
func isEverything(s labels.Selector) bool { return s.Matches(labels.Set{}) }

// matches reports whether the pod is one the term selects.
func (t *podTerm) matches(s *snapshot, p *corev1.Pod) bool {
	if !t.namespaces.Has(p.Namespace) && (t.nsSelector == nil || !t.nsSelector.Matches(s.namespaceLabels(p.Namespace))) {
		return false
	}
	return t.selector.Matches(labels.Set(p.Labels))
}

// describe writes which pods the term selects, for a reader.
func (t *podTerm) describe() string {
	sel := t.selector.String()
	if sel == "" {
		if isEverything(t.selector) {
			sel = "any labels"
		} else {
			sel = "no labels (nil selector)"
		}
	}
	var ns []string
	if t.nsSelector != nil {
		if s := t.nsSelector.String(); s != "" {
			ns = append(ns, "namespaces labelled "+s)
		} else {
			ns = append(ns, "all namespaces")
		}
	}
	if t.namespaces.Len() > 0 {
		ns = append(ns, "namespace "+strings.Join(sets.List(t.namespaces), ", "))
	}
	return fmt.Sprintf("pods with %s in %s", sel, strings.Join(ns, " or "))
}

// checkInterPod holds the pod's required pod affinity and anti-affinity
// terms against the pods around it.
//
// Anti-affinity: a term is broken when another pod it selects is in the
// same domain of its topology key, whichever of the two was placed first;
// each pod's terms are checked, so a pair that breaks both pods' terms is
// reported for both. A node without the topology key is in no domain and
// breaks no anti-affinity term.
//
// Affinity: a term is broken when the node lacks its topology key, or when
// no other pod it selects is in the pod's domain and the pod does not match
// the term itself (the first pod of a group that is affine to itself may go
// anywhere, as kube-scheduler lets it). Each term is judged on its own.
func (s *snapshot) checkInterPod(p *corev1.Pod, node *corev1.Node) []Violation {
	a := p.Spec.Affinity
	if a == nil {
		return nil
	}
	var out []Violation
	if a.PodAntiAffinity != nil {
		for i, raw := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			term, err := newPodTerm(p, raw)
			if err != nil {
				out = append(out, podViolation(p, PodAntiAffinity, fmt.Sprintf("required anti-affinity term %d cannot be read: %v", i+1, err)))
				continue
			}
			value, ok := node.Labels[term.topologyKey]
			if !ok {
				continue
			}
			var others []string
			for _, q := range s.domainPods(term.topologyKey, value) {
				if q != p && term.matches(s, q) {
					others = append(others, podName(q))
				}
			}
			if len(others) > 0 {
				out = append(out, podViolation(p, PodAntiAffinity, fmt.Sprintf("pod %s and %s share %s=%s against %s's required anti-affinity (%s)",
					podName(p), joinLimited(others, 5), term.topologyKey, value, p.Name, term.describe())))
			}
		}
	}
	if a.PodAffinity != nil {
		for i, raw := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			term, err := newPodTerm(p, raw)
			if err != nil {
				out = append(out, podViolation(p, PodAffinity, fmt.Sprintf("required affinity term %d cannot be read: %v", i+1, err)))
				continue
			}
			value, ok := node.Labels[term.topologyKey]
			if !ok {
				out = append(out, podViolation(p, PodAffinity, fmt.Sprintf("node %s has no label %s, the topology key of %s's required affinity (%s)",
					node.Name, term.topologyKey, p.Name, term.describe())))
				continue
			}
			if term.matches(s, p) || slices.ContainsFunc(s.domainPods(term.topologyKey, value), func(q *corev1.Pod) bool {
				return q != p && term.matches(s, q)
			}) {
				continue
			}
			out = append(out, podViolation(p, PodAffinity, fmt.Sprintf("no pod in %s=%s matches %s's required affinity (%s)",
				term.topologyKey, value, p.Name, term.describe())))
		}
	}
	return out
}

// joinLimited joins the names, naming at most limit and counting the rest.
func joinLimited(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:limit], ", "), len(names)-limit)
}
