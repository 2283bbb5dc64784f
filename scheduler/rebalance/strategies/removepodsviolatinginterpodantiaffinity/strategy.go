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

// Package removepodsviolatinginterpodantiaffinity evicts pods whose required
// inter-pod anti-affinity another pod now violates, as the descheduler's
// RemovePodsViolatingInterPodAntiAffinity plugin.
package removepodsviolatinginterpodantiaffinity

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemovePodsViolatingInterPodAntiAffinity"

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
}

// Default leaves the arguments as written: none has a default.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList { return a.PodScope.Validate(path) }

type strategy struct{ args Args }

// New builds the strategy from its JSON arguments.
func New(raw []byte) (strategies.Strategy, error) {
	a, err := args.Load[Args]("strategy "+string(Name), raw)
	if err != nil {
		return nil, err
	}
	return &strategy{args: *a}, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

// placed is a running pod with the labels of its node.
type placed struct {
	pod     *v1.Pod
	node    *v1.Node
	evicted bool
}

// Run walks the nodes and, on each, the pods from the lowest priority up;
// it evicts a pod when one of its required anti-affinity terms matches
// another pod in the same topology domain. An evicted pod no longer counts
// against the others.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	byNamespace := map[string][]*placed{}
	var perNode [][]*placed
	for _, ni := range h.Nodes() {
		var local []*placed
		for _, pod := range strategies.PodsOf(ni) {
			if strategies.IsTerminal(pod) || pod.DeletionTimestamp != nil {
				continue
			}
			p := &placed{pod: pod, node: ni.Node()}
			byNamespace[pod.Namespace] = append(byNamespace[pod.Namespace], p)
			local = append(local, p)
		}
		perNode = append(perNode, local)
	}
	for _, local := range perNode {
		candidates := make([]*v1.Pod, 0, len(local))
		index := make(map[*v1.Pod]*placed, len(local))
		for _, p := range local {
			if terms := requiredTerms(p.pod); len(terms) > 0 && s.args.Matches(p.pod) {
				candidates = append(candidates, p.pod)
				index[p.pod] = p
			}
		}
		strategies.SortForEviction(candidates)
		for _, pod := range candidates {
			p := index[pod]
			if h.LimitReached(p.node.Name) {
				break
			}
			other, ok := violation(p, byNamespace)
			if !ok || !h.Evictable(pod) {
				continue
			}
			reason := fmt.Sprintf("required pod anti-affinity is violated by pod %s/%s on node %s", other.pod.Namespace, other.pod.Name, other.node.Name)
			if h.Evict(ctx, pod, reason) {
				p.evicted = true
			}
		}
	}
	return nil
}

func requiredTerms(pod *v1.Pod) []v1.PodAffinityTerm {
	if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// violation returns a pod, not yet evicted, that one of p's required
// anti-affinity terms matches in p's topology domain.
func violation(p *placed, byNamespace map[string][]*placed) (*placed, bool) {
	for _, term := range requiredTerms(p.pod) {
		value, ok := p.node.Labels[term.TopologyKey]
		if !ok {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil || term.LabelSelector == nil {
			continue
		}
		for _, ns := range termNamespaces(p.pod, term, byNamespace) {
			for _, q := range byNamespace[ns] {
				if q.evicted || q.pod == p.pod || !sel.Matches(labels.Set(q.pod.Labels)) {
					continue
				}
				if v, ok := q.node.Labels[term.TopologyKey]; ok && v == value {
					return q, true
				}
			}
		}
	}
	return nil, false
}

// termNamespaces returns the namespaces a term applies to: those it lists,
// every namespace for an empty namespaceSelector, or else the pod's own.
// A non-empty namespaceSelector is not evaluated (namespaces' labels are not
// in the snapshot); such a term applies to the namespaces it lists only.
func termNamespaces(pod *v1.Pod, term v1.PodAffinityTerm, byNamespace map[string][]*placed) []string {
	if sel := term.NamespaceSelector; sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		all := make([]string, 0, len(byNamespace))
		for ns := range byNamespace {
			all = append(all, ns)
		}
		slices.Sort(all)
		return all
	}
	if len(term.Namespaces) > 0 || term.NamespaceSelector != nil {
		return term.Namespaces
	}
	return []string{pod.Namespace}
}
