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

package removepodsviolatingtopologyspreadconstraint

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

type strategy struct {
	args Args
	// namespaces is the scope's namespaces alone: it chooses the constraints.
	namespaces strategies.PodScope
}

// New builds the strategy from its JSON arguments.
func New(raw []byte) (strategies.Strategy, error) {
	a, err := args.Load[Args]("strategy "+string(Name), raw)
	if err != nil {
		return nil, err
	}
	return &strategy{args: *a, namespaces: strategies.PodScope{Namespaces: a.Namespaces}}, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

// placed is a running pod and its node.
type placed struct {
	pod  *v1.Pod
	node *v1.Node
}

// constraint is one distinct spread constraint of a namespace, with a pod
// that carries it to decide which nodes count.
type constraint struct {
	namespace string
	tsc       v1.TopologySpreadConstraint
	selector  labels.Selector
	sample    *v1.Pod
}

// choice is a pod to evict and why.
type choice struct {
	pod    *v1.Pod
	reason string
}

// domain is one value of a constraint's topology key.
type domain struct {
	value string
	nodes []*v1.Node
	size  int
	// candidates are the pods that may leave, the first to go first.
	candidates []*v1.Pod
	next       int
}

// Run finds the constraints whose skew is above maxSkew, chooses the pods
// that even them out, and evicts them.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	byNamespace := map[string][]placed{}
	var nodes []*v1.Node
	for _, ni := range h.Nodes() {
		nodes = append(nodes, ni.Node())
		for _, pod := range strategies.PodsOf(ni) {
			if !strategies.IsTerminal(pod) && pod.DeletionTimestamp == nil {
				byNamespace[pod.Namespace] = append(byNamespace[pod.Namespace], placed{pod: pod, node: ni.Node()})
			}
		}
	}
	chosen := map[*v1.Pod]bool{}
	var plan []choice
	for _, c := range s.constraints(byNamespace) {
		picked := s.balance(h, c, nodes, byNamespace[c.namespace], chosen)
		for _, ch := range picked {
			chosen[ch.pod] = true
		}
		plan = append(plan, picked...)
	}
	for _, ch := range plan {
		h.Evict(ctx, ch.pod, ch.reason)
	}
	return nil
}

// constraints returns the distinct constraints of the pods in scope, in
// the order they are first seen.
func (s *strategy) constraints(byNamespace map[string][]placed) []*constraint {
	seen := map[string]bool{}
	var out []*constraint
	for _, ns := range sortedKeys(byNamespace) {
		for _, p := range byNamespace[ns] {
			if !s.namespaces.Matches(p.pod) {
				break
			}
			for _, tsc := range p.pod.Spec.TopologySpreadConstraints {
				if !slices.Contains(s.args.Constraints, tsc.WhenUnsatisfiable) {
					continue
				}
				sel, err := selectorOf(p.pod, tsc)
				if err != nil {
					continue
				}
				key := fmt.Sprintf("%s|%s|%d|%s|%s|%v|%v", ns, tsc.TopologyKey, tsc.MaxSkew, tsc.WhenUnsatisfiable, sel, policy(tsc.NodeAffinityPolicy, v1.NodeInclusionPolicyHonor), policy(tsc.NodeTaintsPolicy, v1.NodeInclusionPolicyIgnore))
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, &constraint{namespace: ns, tsc: tsc, selector: sel, sample: p.pod})
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func policy(p *v1.NodeInclusionPolicy, def v1.NodeInclusionPolicy) v1.NodeInclusionPolicy {
	if p == nil {
		return def
	}
	return *p
}

// selectorOf returns the constraint's selector with the matchLabelKeys
// requirements taken from pod's labels.
func selectorOf(pod *v1.Pod, tsc v1.TopologySpreadConstraint) (labels.Selector, error) {
	if tsc.LabelSelector == nil {
		return labels.Nothing(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	for _, key := range tsc.MatchLabelKeys {
		value, ok := pod.Labels[key]
		if !ok {
			continue
		}
		req, err := labels.NewRequirement(key, selection.Equals, []string{value})
		if err != nil {
			return nil, fmt.Errorf("matchLabelKeys: %w", err)
		}
		sel = sel.Add(*req)
	}
	return sel, nil
}

// eligible reports whether node counts for c: it has the topology key and
// passes the node inclusion policies for c's pod.
func (c *constraint) eligible(node *v1.Node) bool {
	if _, ok := node.Labels[c.tsc.TopologyKey]; !ok {
		return false
	}
	if policy(c.tsc.NodeAffinityPolicy, v1.NodeInclusionPolicyHonor) == v1.NodeInclusionPolicyHonor && !strategies.MatchesNodeSelection(c.sample, node) {
		return false
	}
	if policy(c.tsc.NodeTaintsPolicy, v1.NodeInclusionPolicyIgnore) == v1.NodeInclusionPolicyHonor && !strategies.ToleratesHardTaints(c.sample, node) {
		return false
	}
	return true
}

// balance returns the pods to evict, with their reasons, to bring c's
// domains within maxSkew: it takes from the fullest domains down to the
// average and gives to the emptiest up to it, at most half the excess skew
// per pair, as the descheduler does.
func (s *strategy) balance(h strategies.Handle, c *constraint, nodes []*v1.Node, pods []placed, chosen map[*v1.Pod]bool) []choice {
	byValue := map[string]*domain{}
	for _, n := range nodes {
		if !c.eligible(n) {
			continue
		}
		v := n.Labels[c.tsc.TopologyKey]
		d := byValue[v]
		if d == nil {
			d = &domain{value: v}
			byValue[v] = d
		}
		d.nodes = append(d.nodes, n)
	}
	if len(byValue) < 2 {
		return nil
	}
	total := 0
	for _, p := range pods {
		d := byValue[p.node.Labels[c.tsc.TopologyKey]]
		if d == nil || !c.eligible(p.node) || !c.selector.Matches(labels.Set(p.pod.Labels)) {
			continue
		}
		d.size++
		total++
		if !chosen[p.pod] && s.args.Matches(p.pod) && h.Evictable(p.pod) {
			d.candidates = append(d.candidates, p.pod)
		}
	}
	domains := make([]*domain, 0, len(byValue))
	for _, v := range sortedKeys(byValue) {
		d := byValue[v]
		strategies.SortForEviction(d.candidates)
		sort.SliceStable(d.candidates, func(i, j int) bool {
			return !pinned(d.candidates[i]) && pinned(d.candidates[j])
		})
		domains = append(domains, d)
	}
	slices.SortStableFunc(domains, func(a, b *domain) int { return cmp.Compare(a.size, b.size) })
	if int32(domains[len(domains)-1].size-domains[0].size) <= c.tsc.MaxSkew {
		return nil
	}
	avg := float64(total) / float64(len(domains))
	var out []choice
	for i, j := 0, len(domains)-1; i < j; {
		lo, hi := domains[i], domains[j]
		if float64(hi.size) <= avg {
			j--
			continue
		}
		skew := hi.size - lo.size
		if int32(skew) <= c.tsc.MaxSkew {
			i++
			continue
		}
		move := int(min(math.Ceil(float64(hi.size)-avg), math.Ceil(avg-float64(lo.size)), math.Ceil(float64(int32(skew)-c.tsc.MaxSkew)/2)))
		if move <= 0 {
			i++
			continue
		}
		moved := 0
		for moved < move && hi.next < len(hi.candidates) {
			pod := hi.candidates[hi.next]
			hi.next++
			if *s.args.TopologyBalanceNodeFit && !slices.ContainsFunc(lo.nodes, func(n *v1.Node) bool { return strategies.CouldRunOn(pod, n) }) {
				continue
			}
			out = append(out, choice{pod: pod, reason: fmt.Sprintf("topology spread constraint on %s (maxSkew %d, %s): domain %s has %d matching pods, domain %s has %d",
				c.tsc.TopologyKey, c.tsc.MaxSkew, c.tsc.WhenUnsatisfiable, hi.value, hi.size, lo.value, lo.size)})
			hi.size--
			lo.size++
			moved++
		}
		if moved == 0 {
			j--
		}
	}
	return out
}

// pinned reports whether pod selects its nodes, which makes it a poorer
// choice to move.
func pinned(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	return len(pod.Spec.NodeSelector) > 0 || a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}
