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
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

const preScoreKey framework.StateKey = "PreScore" + Name

// keyScores are the summed term weights of each value of one topology key.
type keyScores struct {
	key    string
	values map[string]int64
}

// scoreState holds the per-domain weights PreScore summed; Score looks them up.
type scoreState struct {
	domains []keyScores
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *scoreState) Clone() framework.StateData { return s }

// domainScores sums weights per topology key and value while scanning.
type domainScores map[string]map[string]int64

func (m domainScores) add(node *v1.Node, key string, weight int64) {
	value, ok := node.Labels[key]
	if !ok {
		return
	}
	values := m[key]
	if values == nil {
		values = make(map[string]int64)
		m[key] = values
	}
	values[value] += weight
}

// addMatching adds sign*weight of every term that pod (in a namespace with nsLabels) matches.
func (m domainScores) addMatching(terms []framework.WeightedAffinityTerm, pod *v1.Pod, nsLabels labels.Set, node *v1.Node, sign int64) {
	for i := range terms {
		if terms[i].Matches(pod, nsLabels) {
			m.add(node, terms[i].TopologyKey, sign*int64(terms[i].Weight))
		}
	}
}

func (m domainScores) merge(o domainScores) {
	for key, oValues := range o {
		values := m[key]
		if values == nil {
			m[key] = oValues
			continue
		}
		for v, w := range oValues {
			values[v] += w
		}
	}
}

// scoreScan is the incoming pod's side of the scoring scan.
type scoreScan struct {
	pod           *v1.Pod
	nsLabels      labels.Set
	preferred     []framework.WeightedAffinityTerm // namespace selectors resolved
	preferredAnti []framework.WeightedAffinityTerm
	hardWeight    int64
}

// scorePod adds what one existing pod on node contributes.
func (s *scoreScan) scorePod(m domainScores, existing *framework.PodInfo, node *v1.Node) {
	// The incoming pod's terms, with namespaces resolved, select the existing pod.
	m.addMatching(s.preferred, existing.Pod, nil, node, 1)
	m.addMatching(s.preferredAnti, existing.Pod, nil, node, -1)
	// The existing pod's terms select the incoming pod.
	if s.hardWeight > 0 {
		for i := range existing.RequiredAffinityTerms {
			t := &existing.RequiredAffinityTerms[i]
			if t.Matches(s.pod, s.nsLabels) {
				m.add(node, t.TopologyKey, s.hardWeight)
			}
		}
	}
	m.addMatching(existing.PreferredAffinityTerms, s.pod, s.nsLabels, node, 1)
	m.addMatching(existing.PreferredAntiAffinityTerms, s.pod, s.nsLabels, node, -1)
}

func hasPreferredTerms(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	return (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
}

// PreScore sums, per topology domain, the weights of the pod's preferred
// terms that existing pods match (anti-affinity negative) and of existing
// pods' terms that the pod matches: preferred ones by their weight, required
// affinity by HardPodAffinityWeight. Without preferred terms of its own, only
// nodes with pods that have affinity are scanned, and with
// IgnorePreferredTermsOfExistingPods nothing is. Score is skipped when no
// domain got a weight.
func (pl *InterPodAffinity) PreScore(ctx context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	own := hasPreferredTerms(pod)
	if pl.ignorePreferred && !own {
		return framework.Skipped()
	}
	lister, err := pl.nodeInfos()
	if err != nil {
		return framework.AsStatus(err)
	}
	var nodes []*framework.NodeInfo
	if own {
		nodes, err = lister.List()
	} else {
		nodes, err = lister.HavePodsWithAffinityList()
	}
	if err != nil {
		return framework.AsStatus(fmt.Errorf("listing nodes: %w", err))
	}
	if len(nodes) == 0 {
		// Nothing to scan: no domain can get a weight.
		return framework.Skipped()
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("parsing pod: %w", err))
	}
	if !own && pl.counts != nil {
		all, err := lister.List()
		if err != nil {
			return framework.AsStatus(fmt.Errorf("listing nodes: %w", err))
		}
		if s, ok := pl.cachedExistingScores(ctx, pod, pl.index.current(all), all); ok {
			if s == nil {
				return framework.Skipped()
			}
			state.Write(preScoreKey, s)
			return nil
		}
	}
	for _, terms := range [][]framework.WeightedAffinityTerm{pi.PreferredAffinityTerms, pi.PreferredAntiAffinityTerms} {
		for i := range terms {
			if err := resolveNamespaces(&terms[i].AffinityTerm, pl.namespacesSelected); err != nil {
				return framework.AsStatus(fmt.Errorf("resolving preferred term namespaces: %w", err))
			}
		}
	}
	scan := &scoreScan{
		pod:           pod,
		nsLabels:      pl.namespaceLabels(klog.FromContext(ctx), pod.Namespace),
		preferred:     pi.PreferredAffinityTerms,
		preferredAnti: pi.PreferredAntiAffinityTerms,
		hardWeight:    pl.hardWeight,
	}
	parts := make([]domainScores, min(len(nodes), maxChunks))
	n := chunked(ctx, pl.handle.Parallelizer(), len(nodes), func(piece, lo, hi int) {
		part := domainScores{}
		for _, ni := range nodes[lo:hi] {
			node := ni.Node()
			if node == nil || len(node.Labels) == 0 {
				continue
			}
			pods := ni.PodsWithAffinity
			if own {
				pods = ni.Pods
			}
			for _, existing := range pods {
				scan.scorePod(part, existing, node)
			}
		}
		if len(part) > 0 {
			parts[piece] = part
		}
	}, Name)
	total := domainScores{}
	for _, p := range parts[:n] {
		total.merge(p)
	}
	if len(total) == 0 {
		return framework.Skipped()
	}
	s := &scoreState{domains: make([]keyScores, 0, len(total))}
	for key, values := range total {
		s.domains = append(s.domains, keyScores{key: key, values: values})
	}
	state.Write(preScoreKey, s)
	return nil
}

// cachedExistingScores builds PreScore's state for a pod without preferred
// terms of its own from the count cache: the weights of existing pods' terms
// per domain, over the domains where any such term selects the pod. It
// returns nil when no domain got a weight, and false when the cache does not
// keep these counts yet.
func (pl *InterPodAffinity) cachedExistingScores(ctx context.Context, pod *v1.Pod, idx *nodeIndex, all []*framework.NodeInfo) (*scoreState, bool) {
	nsLabels := pl.namespaceLabels(klog.FromContext(ctx), pod.Namespace)
	hardWeight := pl.hardWeight
	par := pl.handle.Parallelizer()
	matched := pl.counts.lookup(ctx, par, existingTermsKey("score-terms", pod, nsLabels, hardWeight), idx, all,
		existingTermsShares(pod, nsLabels, hardWeight, true))
	if matched == nil {
		return nil, false
	}
	if matched.empty() {
		return nil, true
	}
	weights := pl.counts.lookup(ctx, par, existingTermsKey("score-weights", pod, nsLabels, hardWeight), idx, all,
		existingTermsShares(pod, nsLabels, hardWeight, false))
	if weights == nil {
		return nil, false
	}
	byKey := map[string]map[string]int64{}
	matched.each(func(d domain, _ int64) {
		values := byKey[d.key]
		if values == nil {
			values = map[string]int64{}
			byKey[d.key] = values
		}
		values[d.value] = weights.get(d)
	})
	s := &scoreState{domains: make([]keyScores, 0, len(byKey))}
	for key, values := range byKey {
		s.domains = append(s.domains, keyScores{key: key, values: values})
	}
	return s, true
}

// Score sums the weights of the node's domains; it may be negative.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, framework.AsStatus(fmt.Errorf("scoring pod %s: node not found", framework.PodKey(pod)))
	}
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return 0, framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	var score int64
	for i := range s.domains {
		if value, ok := node.Labels[s.domains[i].key]; ok {
			score += s.domains[i].values[value]
		}
	}
	return score, nil
}

// ScoreExtensions returns the plugin itself, which normalizes scores.
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the raw scores linearly onto [0, MaxNodeScore], the
// lowest to 0 and the highest to MaxNodeScore; equal scores all become 0.
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, state *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	if len(s.domains) == 0 || len(scores) == 0 {
		return nil
	}
	lowest, highest := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range scores {
		lowest = min(lowest, scores[i].Score)
		highest = max(highest, scores[i].Score)
	}
	spread := highest - lowest
	for i := range scores {
		if spread <= 0 {
			scores[i].Score = 0
			continue
		}
		scores[i].Score = int64(float64(framework.MaxNodeScore) * (float64(scores[i].Score-lowest) / float64(spread)))
	}
	return nil
}
