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
	"slices"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/keyedcache"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/nodechanges"
)

// maxCountEntries bounds how many count sets the count cache remembers; the
// least recently used one makes room for a new one.
const maxCountEntries = 8

// maxMissedKeys is how many keys without an entry the cache remembers.
const maxMissedKeys = 16

// share is what one node adds to one topology domain.
type share struct {
	d domain
	n int64
}

// contributeFunc appends to out what the node adds to each domain.
type contributeFunc func(ni *framework.NodeInfo, out []share) []share

// countCache keeps PreFilter's per-domain counts from one cycle to the next:
// a cycle recounts only the nodes whose NodeInfo changed since the last
// cycle that asked for the same counts, and patches the totals with the
// difference, which always gives what a full recount over the same nodes
// gives. Counts are identified by a key that captures everything their
// contribution function reads besides the nodes.
//
// A key gets an entry only when it is asked for the second time within the
// last maxMissedKeys misses: counts that a single pod needs, or that keys
// taking turns would evict before their next use, are cheaper to count
// directly than to keep per node.
type countCache struct {
	mu      sync.Mutex
	entries *keyedcache.Cache[*countEntry]
}

// newCountCache returns an empty count cache.
func newCountCache() *countCache {
	return &countCache{entries: keyedcache.New[*countEntry](maxCountEntries, maxMissedKeys)}
}

// countEntry is one set of counts over a node list, with each position's share.
type countEntry struct {
	key string
	// tracker knows the NodeInfo counted at each position.
	tracker nodechanges.Tracker
	shares  [][]share
	counts  *domainCounts
	// shared is set once counts were handed to a cycle: they are then
	// copied before they change.
	shared bool
	// fresh is scratch space for refresh.
	fresh [][]share
}

// lookup brings the counts with the key up to date with nodes, computing a
// changed node's share with contribute, and returns them; the caller must
// not change them. It returns nil when the key has no entry yet and is not
// admitted (see countCache): the caller counts itself.
func (cc *countCache) lookup(ctx context.Context, par framework.Parallelizer, key string, idx *nodeIndex, nodes []*framework.NodeInfo, contribute contributeFunc) *domainCounts {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.entries.Get(key, func() *countEntry { return &countEntry{key: key} })
	if !ok {
		return nil
	}
	e.refresh(ctx, par, idx, nodes, contribute)
	e.shared = true
	return e.counts
}

// refresh recounts the positions whose NodeInfo changed and patches the
// totals with the difference. Counts over another node index than idx
// (nodes were added, removed, moved or updated) start again from nothing.
func (e *countEntry) refresh(ctx context.Context, par framework.Parallelizer, idx *nodeIndex, nodes []*framework.NodeInfo, contribute contributeFunc) {
	if e.tracker.Len() != len(nodes) || e.counts == nil || e.counts.idx != idx {
		e.tracker.Reset(len(nodes))
		e.shares = make([][]share, len(nodes))
		e.counts = newDomainCounts(idx)
		e.shared = false
	}
	changed := e.tracker.Changed(nodes)
	if len(changed) == 0 {
		return
	}
	if cap(e.fresh) < len(changed) {
		e.fresh = make([][]share, len(changed))
	}
	fresh := e.fresh[:len(changed)]
	count := func(j int) {
		if ni := nodes[changed[j]]; ni.Node() != nil {
			fresh[j] = contribute(ni, nil)
		}
	}
	nodechanges.Recount(ctx, par, Name, len(changed), count)
	if e.shared {
		e.counts = e.counts.share()
		e.shared = false
	}
	for j, n := range changed {
		for _, s := range e.shares[n] {
			e.counts.addDomain(s.d, -s.n)
		}
		for _, s := range fresh[j] {
			e.counts.addDomain(s.d, s.n)
		}
		e.shares[n] = fresh[j]
		e.tracker.Record(n, nodes[n])
	}
	clear(fresh)
}

// addShare appends one more pod or term to the node's domain for key,
// merging it into the last share when that is the same domain.
func addShare(out []share, node *v1.Node, key string) []share {
	return addWeight(out, node, key, 1)
}

// addWeight appends w to the node's domain for key, merging it into the
// last share when that is the same domain.
func addWeight(out []share, node *v1.Node, key string, w int64) []share {
	value, ok := node.Labels[key]
	if !ok {
		return out
	}
	d := domain{key: key, value: value}
	if last := len(out) - 1; last >= 0 && out[last].d == d {
		out[last].n += w
		return out
	}
	return append(out, share{d: d, n: w})
}

// existingAntiKey identifies the existing-anti-affinity counts of a pod:
// existing pods' terms read only its namespace, its labels and its
// namespace's labels.
func existingAntiKey(pod *v1.Pod, nsLabels labels.Set) string {
	var b strings.Builder
	b.WriteString("existing\x00")
	b.WriteString(pod.Namespace)
	b.WriteByte(0)
	b.WriteString(labels.Set(pod.Labels).String())
	b.WriteByte(0)
	b.WriteString(nsLabels.String())
	return b.String()
}

// termsKey identifies counts over the incoming pod's own terms (their
// namespace selectors resolved): per term its topology key, selector,
// namespaces and what is left of its namespace selector.
func termsKey(kind string, terms []framework.AffinityTerm) string {
	var b strings.Builder
	b.WriteString(kind)
	for i := range terms {
		t := &terms[i]
		b.WriteByte(0)
		b.WriteString(t.TopologyKey)
		b.WriteByte(1)
		writeSelector(&b, t.Selector)
		b.WriteByte(1)
		names := t.Namespaces.UnsortedList()
		slices.Sort(names)
		for _, ns := range names {
			b.WriteString(ns)
			b.WriteByte(2)
		}
		b.WriteByte(1)
		writeSelector(&b, t.NamespaceSelector)
	}
	return b.String()
}

// writeSelector writes a selector so that selecting everything and selecting
// nothing, both printed empty, differ.
func writeSelector(b *strings.Builder, sel labels.Selector) {
	switch {
	case sel == nil:
		b.WriteString("nil")
	case sel.Empty():
		b.WriteString("*")
	default:
		b.WriteString("=")
		b.WriteString(sel.String())
	}
}

// existingAntiShares is the contribution function of the existing pods'
// required anti-affinity terms that the incoming pod matches.
func existingAntiShares(pod *v1.Pod, nsLabels labels.Set) contributeFunc {
	return func(ni *framework.NodeInfo, out []share) []share {
		node := ni.Node()
		for _, existing := range ni.PodsWithRequiredAntiAffinity {
			for i := range existing.RequiredAntiAffinityTerms {
				t := &existing.RequiredAntiAffinityTerms[i]
				if t.Matches(pod, nsLabels) {
					out = addShare(out, node, t.TopologyKey)
				}
			}
		}
		return out
	}
}

// affinityShares is the contribution function of existing pods that match
// every one of the incoming pod's required affinity terms.
func affinityShares(terms []framework.AffinityTerm) contributeFunc {
	return func(ni *framework.NodeInfo, out []share) []share {
		node := ni.Node()
		for _, existing := range ni.Pods {
			if !matchesAll(terms, existing.Pod) {
				continue
			}
			for i := range terms {
				out = addShare(out, node, terms[i].TopologyKey)
			}
		}
		return out
	}
}

// antiAffinityShares is the contribution function of existing pods that
// match one of the incoming pod's required anti-affinity terms, per term.
func antiAffinityShares(terms []framework.AffinityTerm) contributeFunc {
	return func(ni *framework.NodeInfo, out []share) []share {
		node := ni.Node()
		for _, existing := range ni.Pods {
			for i := range terms {
				if terms[i].Matches(existing.Pod, nil) {
					out = addShare(out, node, terms[i].TopologyKey)
				}
			}
		}
		return out
	}
}

// existingTermsKey identifies the scoring counts of existing pods' terms
// for a pod without preferred terms of its own: they read its namespace,
// labels and namespace labels, and the weight of required affinity.
func existingTermsKey(kind string, pod *v1.Pod, nsLabels labels.Set, hardWeight int64) string {
	var b strings.Builder
	b.WriteString(kind)
	b.WriteByte(0)
	b.WriteString(existingAntiKey(pod, nsLabels))
	b.WriteByte(0)
	b.WriteString(strconv.FormatInt(hardWeight, 10))
	return b.String()
}

// existingTermsShares is the contribution function of the existing pods'
// terms that select the incoming pod, as PreScore weighs them: required
// affinity by hardWeight (when positive), preferred affinity by its weight
// and preferred anti-affinity by minus its weight. With countOnly each
// matching term adds 1 instead, which tells the domains that got a weight,
// even one that sums to 0.
func existingTermsShares(pod *v1.Pod, nsLabels labels.Set, hardWeight int64, countOnly bool) contributeFunc {
	weight := func(w int64) int64 {
		if countOnly {
			return 1
		}
		return w
	}
	return func(ni *framework.NodeInfo, out []share) []share {
		node := ni.Node()
		for _, existing := range ni.PodsWithAffinity {
			if hardWeight > 0 {
				for i := range existing.RequiredAffinityTerms {
					if t := &existing.RequiredAffinityTerms[i]; t.Matches(pod, nsLabels) {
						out = addWeight(out, node, t.TopologyKey, weight(hardWeight))
					}
				}
			}
			for i := range existing.PreferredAffinityTerms {
				if t := &existing.PreferredAffinityTerms[i]; t.Matches(pod, nsLabels) {
					out = addWeight(out, node, t.TopologyKey, weight(int64(t.Weight)))
				}
			}
			for i := range existing.PreferredAntiAffinityTerms {
				if t := &existing.PreferredAntiAffinityTerms[i]; t.Matches(pod, nsLabels) {
					out = addWeight(out, node, t.TopologyKey, weight(-int64(t.Weight)))
				}
			}
		}
		return out
	}
}
