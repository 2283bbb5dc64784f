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

package interpodaffinity

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// Filter reasons, as upstream.
const (
	// ErrReasonAffinityRulesNotMatch is given when the node's domains hold no pod matching the pod's required affinity.
	ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinityRulesNotMatch is given when the node's domains hold a pod the pod's required anti-affinity rejects.
	ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules"
	// ErrReasonExistingAntiAffinityRulesNotMatch is given when an existing pod's required anti-affinity rejects the pod there.
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
)

const preFilterKey framework.StateKey = "PreFilter" + Name

// filterState is what PreFilter learns once and Filter looks up per node.
type filterState struct {
	// idx numbers the nodes and domains of the cycle's node list; the counts are kept over it.
	idx *nodeIndex
	pod *v1.Pod
	// nsLabels are the labels of the pod's namespace, for existing pods' terms.
	nsLabels labels.Set
	// affinityTerms and antiAffinityTerms are the pod's required terms with
	// namespace selectors resolved.
	affinityTerms     []framework.AffinityTerm
	antiAffinityTerms []framework.AffinityTerm
	// selfMatch is whether the pod matches all of its own affinity terms.
	selfMatch bool

	// existingAnti counts, per domain, existing pods' anti-affinity terms the pod matches.
	existingAnti *domainCounts
	// affinity counts, per domain of each affinity term, existing pods matching all affinity terms.
	affinity *domainCounts
	// antiAffinity counts, per domain of each anti-affinity term, existing pods matching that term.
	antiAffinity *domainCounts
	// shared is set when the counts belong to the count cache: they are
	// copied before AddPod or RemovePod changes them.
	shared bool
}

// Clone copies the counts (counts the cache owns, which never change, are
// shared until they change); the pod and its terms never change.
func (s *filterState) Clone() framework.StateData {
	out := *s
	copyCounts := (*domainCounts).clone
	if s.shared {
		copyCounts = (*domainCounts).share
	}
	out.existingAnti = copyCounts(s.existingAnti)
	out.affinity = copyCounts(s.affinity)
	out.antiAffinity = copyCounts(s.antiAffinity)
	out.shared = false
	return &out
}

// countPod adds (delta 1) or removes (delta -1) what an existing pod on node contributes.
func (s *filterState) countPod(pi *framework.PodInfo, node *v1.Node, delta int64) {
	for i := range pi.RequiredAntiAffinityTerms {
		t := &pi.RequiredAntiAffinityTerms[i]
		if t.Matches(s.pod, s.nsLabels) {
			s.existingAnti.add(node, t.TopologyKey, delta)
		}
	}
	s.countIncoming(pi.Pod, node, delta)
}

// countIncoming counts an existing pod against the incoming pod's own terms.
func (s *filterState) countIncoming(pod *v1.Pod, node *v1.Node, delta int64) {
	countOwnTerms(s.affinityTerms, s.antiAffinityTerms, pod, node, delta, s.affinity, s.antiAffinity)
}

// countOwnTerms counts an existing pod on node against the incoming pod's
// required affinity terms (into aff, when it matches them all) and
// anti-affinity terms (into anti, per matching term).
func countOwnTerms(affTerms, antiTerms []framework.AffinityTerm, pod *v1.Pod, node *v1.Node, delta int64, aff, anti counter) {
	if matchesAll(affTerms, pod) {
		for i := range affTerms {
			aff.add(node, affTerms[i].TopologyKey, delta)
		}
	}
	for i := range antiTerms {
		if antiTerms[i].Matches(pod, nil) {
			anti.add(node, antiTerms[i].TopologyKey, delta)
		}
	}
}

// PreFilter counts, per topology domain, the existing pods whose required
// anti-affinity rejects the pod, and the existing pods that match the pod's
// own required affinity and anti-affinity terms. Filter is skipped when the
// pod has no required terms and no existing pod's anti-affinity matches it.
func (pl *InterPodAffinity) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	lister, err := pl.nodeInfos()
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	withAnti, err := lister.HavePodsWithRequiredAntiAffinityList()
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("listing nodes with required anti-affinity pods: %w", err))
	}
	if len(withAnti) == 0 && !hasRequiredTerms(pod) {
		// No existing pod's anti-affinity and no term of its own can
		// reject the pod; skip without parsing it.
		return nil, framework.Skipped()
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: %v", err))
	}
	if err := pl.resolveAll(pi.RequiredAffinityTerms); err != nil {
		return nil, framework.AsStatus(fmt.Errorf("resolving affinity namespaces: %w", err))
	}
	if err := pl.resolveAll(pi.RequiredAntiAffinityTerms); err != nil {
		return nil, framework.AsStatus(fmt.Errorf("resolving anti-affinity namespaces: %w", err))
	}
	s := &filterState{
		idx:               pl.index.current(nodes),
		pod:               pod,
		nsLabels:          pl.namespaceLabels(klog.FromContext(ctx), pod.Namespace),
		affinityTerms:     pi.RequiredAffinityTerms,
		antiAffinityTerms: pi.RequiredAntiAffinityTerms,
		selfMatch:         matchesAll(pi.RequiredAffinityTerms, pod),
	}
	if pl.counts == nil || !pl.cachedCounts(ctx, s, nodes) {
		s.existingAnti = pl.countExistingAnti(ctx, s, withAnti)
		s.affinity, s.antiAffinity = pl.countIncoming(ctx, s, nodes)
		s.shared = false
	}
	if s.existingAnti.empty() && len(s.affinityTerms) == 0 && len(s.antiAffinityTerms) == 0 {
		return nil, framework.Skipped()
	}
	state.Write(preFilterKey, s)
	return nil, nil
}

// cachedCounts fills the state's counts from the count cache, which
// recounts only the nodes that changed since it last made the same counts.
// The counts are the cache's: the state copies them before changing them.
// It reports false, leaving the counts to the caller, when the cache does
// not keep one of them yet.
func (pl *InterPodAffinity) cachedCounts(ctx context.Context, s *filterState, nodes []*framework.NodeInfo) bool {
	par := pl.handle.Parallelizer()
	s.affinity, s.antiAffinity = newDomainCounts(s.idx), newDomainCounts(s.idx)
	s.existingAnti = pl.counts.lookup(ctx, par, existingAntiKey(s.pod, s.nsLabels), s.idx, nodes, existingAntiShares(s.pod, s.nsLabels))
	if len(s.affinityTerms) > 0 {
		s.affinity = pl.counts.lookup(ctx, par, termsKey("affinity", s.affinityTerms), s.idx, nodes, affinityShares(s.affinityTerms))
	}
	if len(s.antiAffinityTerms) > 0 {
		s.antiAffinity = pl.counts.lookup(ctx, par, termsKey("anti-affinity", s.antiAffinityTerms), s.idx, nodes, antiAffinityShares(s.antiAffinityTerms))
	}
	s.shared = true
	return s.existingAnti != nil && s.affinity != nil && s.antiAffinity != nil
}

// hasRequiredTerms reports whether the pod has required pod affinity or
// anti-affinity terms.
func hasRequiredTerms(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	return (a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0)
}

// countExistingAnti scans the pods with required anti-affinity on nodes.
func (pl *InterPodAffinity) countExistingAnti(ctx context.Context, s *filterState, nodes []*framework.NodeInfo) *domainCounts {
	parts := make([]tally, min(len(nodes), maxChunks))
	n := chunked(ctx, pl.handle.Parallelizer(), len(nodes), func(piece, lo, hi int) {
		var part tally
		for _, ni := range nodes[lo:hi] {
			node := ni.Node()
			if node == nil {
				continue
			}
			for _, existing := range ni.PodsWithRequiredAntiAffinity {
				for i := range existing.RequiredAntiAffinityTerms {
					t := &existing.RequiredAntiAffinityTerms[i]
					if !t.Matches(s.pod, s.nsLabels) {
						continue
					}
					if part == nil {
						part = tally{}
					}
					part.add(node, t.TopologyKey, 1)
				}
			}
		}
		parts[piece] = part
	}, Name)
	return mergeParts(s.idx, parts[:n])
}

// countIncoming scans every pod on nodes against the pod's own required terms.
func (pl *InterPodAffinity) countIncoming(ctx context.Context, s *filterState, nodes []*framework.NodeInfo) (affinity, anti *domainCounts) {
	if len(s.affinityTerms) == 0 && len(s.antiAffinityTerms) == 0 {
		return newDomainCounts(s.idx), newDomainCounts(s.idx)
	}
	affParts := make([]tally, min(len(nodes), maxChunks))
	antiParts := make([]tally, len(affParts))
	n := chunked(ctx, pl.handle.Parallelizer(), len(nodes), func(piece, lo, hi int) {
		aff, anti := tally{}, tally{}
		for _, ni := range nodes[lo:hi] {
			node := ni.Node()
			if node == nil {
				continue
			}
			for _, existing := range ni.Pods {
				countOwnTerms(s.affinityTerms, s.antiAffinityTerms, existing.Pod, node, 1, aff, anti)
			}
		}
		affParts[piece], antiParts[piece] = aff, anti
	}, Name)
	return mergeParts(s.idx, affParts[:n]), mergeParts(s.idx, antiParts[:n])
}

// mergeParts sums the pieces' tallies into counts over idx.
func mergeParts(idx *nodeIndex, parts []tally) *domainCounts {
	out := newDomainCounts(idx)
	for _, p := range parts {
		out.merge(p)
	}
	return out
}

// PreFilterExtensions returns the plugin itself: added and removed pods update the counts.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts podToAdd as if it ran on nodeInfo's node.
func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, _ *v1.Pod, podToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	return pl.updateState(state, podToAdd, nodeInfo, 1)
}

// RemovePod uncounts podToRemove as if it no longer ran on nodeInfo's node.
func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, _ *v1.Pod, podToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	return pl.updateState(state, podToRemove, nodeInfo, -1)
}

func (pl *InterPodAffinity) updateState(state *framework.CycleState, pi *framework.PodInfo, nodeInfo *framework.NodeInfo, delta int64) *framework.Status {
	s, err := framework.ReadState[*filterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("updating %s state: node not found", Name))
	}
	if s.shared {
		s.existingAnti = s.existingAnti.share()
		s.affinity = s.affinity.share()
		s.antiAffinity = s.antiAffinity.share()
		s.shared = false
	}
	s.countPod(pi, node, delta)
	return nil
}

// Filter checks the node's domains against the counts PreFilter made: every
// affinity term's domain must hold a matching pod (unless no pod anywhere
// matches and the pod matches its own terms), no anti-affinity term's domain
// may hold a matching pod, and no existing pod's anti-affinity may reject the
// pod in any of the node's domains.
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	s, err := framework.ReadState[*filterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	pos := s.idx.position(nodeInfo, node)
	if !s.affinitySatisfied(node, pos) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	}
	if s.antiAffinityViolated(node, pos) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	}
	if s.existingAnti.anyInNodeDomains(node, pos) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	}
	return nil
}

// affinitySatisfied reports whether the node has every affinity term's
// topology key and, in each such domain, a matching pod. A pod that is the
// first of its group (nothing matches anywhere, but it matches its own terms)
// may go to any node with all the keys.
func (s *filterState) affinitySatisfied(node *v1.Node, pos int32) bool {
	found := true
	for i := range s.affinityTerms {
		n, ok := s.affinity.inDomain(node, pos, s.affinityTerms[i].TopologyKey)
		if !ok {
			return false
		}
		if n <= 0 {
			found = false
		}
	}
	if found {
		return true
	}
	return s.affinity.empty() && s.selfMatch
}

// antiAffinityViolated reports whether some anti-affinity term's domain of the node holds a matching pod.
func (s *filterState) antiAffinityViolated(node *v1.Node, pos int32) bool {
	if s.antiAffinity.empty() {
		return false
	}
	for i := range s.antiAffinityTerms {
		if n, _ := s.antiAffinity.inDomain(node, pos, s.antiAffinityTerms[i].TopologyKey); n > 0 {
			return true
		}
	}
	return false
}
