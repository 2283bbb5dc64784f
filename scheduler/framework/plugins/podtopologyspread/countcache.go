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

package podtopologyspread

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/keyedcache"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/nodechanges"
)

// maxCountEntries bounds how many distinct constraint sets the count cache
// remembers; the least recently used one makes room for a new one.
const maxCountEntries = 8

// countCache keeps PreFilter's per-domain counts of recently seen hard
// constraint sets from one cycle to the next. A cycle only recounts the
// nodes whose NodeInfo changed since the last cycle that used the same set,
// instead of every node of the snapshot; the result is always what a full
// recount over the same nodes gives.
//
// Only constraint sets whose node inclusion is the same for every pod are
// cached: no constraint honours taints, and none honours node affinity
// unless the pod has no required node affinity. Then whether a node takes
// part depends on its labels alone. A set gets an entry only when it is
// asked for the second time within the last maxMissedKeys misses: a set
// that one pod uses, or sets taking turns faster than the cache holds them,
// are cheaper to count directly than to keep per node.
type countCache struct {
	mu      sync.Mutex
	entries *keyedcache.Cache[*countEntry]
}

// newCountCache returns an empty count cache.
func newCountCache() *countCache {
	return &countCache{entries: keyedcache.New[*countEntry](maxCountEntries, maxMissedKeys)}
}

// maxMissedKeys is how many keys without an entry the cache remembers.
const maxMissedKeys = 16

// countEntry is the counts of one constraint set over a node list,
// remembered per list position so that a changed node's old share can be
// taken out and its new one added.
type countEntry struct {
	key string
	// cs are the constraints, inclusion policies dropped (they always hold).
	cs []constraint
	// probe stands in for the pods: only its namespace is read.
	probe *v1.Pod
	// tracker knows the NodeInfo counted at each position.
	tracker nodechanges.Tracker
	// slots[n*k+i] is position n's count for constraint i, -1 when the node
	// does not take part, and domains[n*k+i] its domain.
	slots   []int32
	domains []string
	// counts[i] maps the domains of constraint i to their matching pods and
	// members[i] to their nodes that take part; a domain leaves both maps
	// when its last such node goes.
	counts  []map[string]int
	members []map[string]int
	// histogram[i] maps each count of constraint i to its number of domains.
	histogram []map[int]int
	// numbers[i] numbers the values of constraint i's topology key, ids[n*k+i]
	// is the number of position n's value, -1 when its node lacks the key,
	// and byID[i][id] is counts[i] of the value numbered id (0 when no node
	// of it takes part): Filter reads a node's counts from these by
	// position, see domainView.
	numbers []domainNumbers
	ids     []int32
	byID    [][]int
	// shared is set once counts were handed to a cycle: they are then
	// copied before they change.
	shared bool
	// freshSlots and freshDomains are scratch space for refresh.
	freshSlots   []int32
	freshDomains []string
}

// domainNumbers numbers the values of one topology key.
type domainNumbers map[string]int32

// domainView gives Filter the counts of a node's domains by the node's
// position in the node list of the cycle's PreFilter, without reading the
// node's labels or hashing a domain. It is valid until the count cache's
// next lookup, that is for the cycle that made it: cycles do not overlap.
type domainView struct {
	tracker *nodechanges.Tracker
	ids     []int32
	byID    [][]int
}

// cacheable reports whether the pod's hard constraints can use the count
// cache: node inclusion must not depend on the pod.
func cacheable(pod *v1.Pod, cs []constraint) bool {
	for i := range cs {
		if cs[i].honorTaints {
			return false
		}
		if cs[i].honorAffinity && hasRequiredNodeAffinity(pod) {
			return false
		}
	}
	return true
}

// hasRequiredNodeAffinity reports whether the pod restricts its nodes by a
// node selector or required node affinity.
func hasRequiredNodeAffinity(pod *v1.Pod) bool {
	if len(pod.Spec.NodeSelector) > 0 {
		return true
	}
	a := pod.Spec.Affinity
	return a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

// cacheKey identifies a constraint set within a namespace: the topology keys
// and selectors in order. Selectors that select nothing and ones that select
// everything may share a key; both count no pods.
func cacheKey(ns string, cs []constraint) string {
	var b strings.Builder
	b.WriteString(ns)
	for i := range cs {
		b.WriteByte(0)
		b.WriteString(cs[i].topologyKey)
		b.WriteByte(1)
		b.WriteString(cs[i].selector.String())
	}
	return b.String()
}

// lookup brings the entry for the constraints up to date with nodes and
// returns its count maps, which the caller must not change, each
// constraint's smallest count (math.MaxInt32 without domains, as
// lowestTwo) and the same counts by node position. It returns nils when
// the constraints have no entry yet and are not admitted (see countCache):
// the caller counts itself.
func (cc *countCache) lookup(ctx context.Context, logger logr.Logger, par framework.Parallelizer, ns string, cs []constraint, nodes []*framework.NodeInfo) ([]map[string]int, []int, *domainView) {
	key := cacheKey(ns, cs)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.entries.Get(key, func() *countEntry { return newCountEntry(key, ns, cs) })
	if !ok {
		return nil, nil, nil
	}
	e.refresh(ctx, logger, par, nodes)
	e.shared = true
	minimums := make([]int, len(e.cs))
	for i, h := range e.histogram {
		minimums[i] = math.MaxInt32
		for n := range h {
			minimums[i] = min(minimums[i], n)
		}
	}
	view := &domainView{tracker: &e.tracker, ids: e.ids, byID: append([][]int(nil), e.byID...)}
	return append([]map[string]int(nil), e.counts...), minimums, view
}

// newCountEntry makes an empty entry for the constraints, which it copies.
func newCountEntry(key, ns string, cs []constraint) *countEntry {
	own := make([]constraint, len(cs))
	for i := range cs {
		own[i] = cs[i]
		own[i].honorAffinity, own[i].honorTaints = false, false
	}
	return &countEntry{key: key, cs: own, probe: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns}}}
}

// reset forgets every position and sizes the entry for n nodes.
func (e *countEntry) reset(n int) {
	k := len(e.cs)
	e.tracker.Reset(n)
	e.slots = make([]int32, n*k)
	for i := range e.slots {
		e.slots[i] = -1
	}
	e.domains = make([]string, n*k)
	e.counts = make([]map[string]int, k)
	e.members = make([]map[string]int, k)
	e.histogram = make([]map[int]int, k)
	e.ids = make([]int32, n*k)
	for i := range e.ids {
		e.ids[i] = -1
	}
	e.numbers = make([]domainNumbers, k)
	e.byID = make([][]int, k)
	for i := range e.cs {
		e.numbers[i] = domainNumbers{}
		size := 0
		if e.cs[i].topologyKey == v1.LabelHostname {
			size = n
		}
		e.counts[i] = make(map[string]int, size)
		e.members[i] = make(map[string]int, size)
		e.histogram[i] = map[int]int{}
	}
	e.shared = false
}

// refresh recounts the positions whose NodeInfo changed and patches the
// per-domain counts with the difference.
func (e *countEntry) refresh(ctx context.Context, logger logr.Logger, par framework.Parallelizer, nodes []*framework.NodeInfo) {
	if e.tracker.Len() != len(nodes) || e.counts == nil {
		e.reset(len(nodes))
	}
	changed := e.tracker.Changed(nodes)
	if len(changed) == 0 {
		return
	}
	k := len(e.cs)
	if cap(e.freshSlots) < len(changed)*k {
		e.freshSlots = make([]int32, len(changed)*k)
		e.freshDomains = make([]string, len(changed)*k)
	}
	fresh, freshDomains := e.freshSlots[:len(changed)*k], e.freshDomains[:len(changed)*k]
	count := func(j int) {
		countNode(logger, e.probe, e.cs, nodeaffinity.RequiredNodeAffinity{}, nodes[changed[j]], fresh[j*k:(j+1)*k], freshDomains[j*k:(j+1)*k])
	}
	nodechanges.Recount(ctx, par, Name, len(changed), count)
	if e.shared {
		for i := range e.counts {
			e.counts[i] = maps.Clone(e.counts[i])
			e.byID[i] = slices.Clone(e.byID[i])
		}
		e.shared = false
	}
	for j, n := range changed {
		e.apply(n, -1)
		copy(e.slots[n*k:(n+1)*k], fresh[j*k:(j+1)*k])
		copy(e.domains[n*k:(n+1)*k], freshDomains[j*k:(j+1)*k])
		e.number(n, nodes[n])
		e.apply(n, 1)
		e.tracker.Record(n, nodes[n])
	}
	clear(freshDomains)
}

// number sets the domain numbers of position n, which now holds ni.
func (e *countEntry) number(n int, ni *framework.NodeInfo) {
	k := len(e.cs)
	var node *v1.Node
	if ni != nil {
		node = ni.Node()
	}
	for i := range e.cs {
		e.ids[n*k+i] = -1
		if node == nil {
			continue
		}
		value, ok := node.Labels[e.cs[i].topologyKey]
		if !ok {
			continue
		}
		id, seen := e.numbers[i][value]
		if !seen {
			id = int32(len(e.byID[i]))
			e.numbers[i][value] = id
			e.byID[i] = append(e.byID[i], 0)
		}
		e.ids[n*k+i] = id
	}
}

// apply adds (sign 1) or takes out (sign -1) position n's share.
func (e *countEntry) apply(n, sign int) {
	k := len(e.cs)
	for i := range k {
		c := e.slots[n*k+i]
		if c < 0 {
			continue
		}
		d := e.domains[n*k+i]
		e.byID[i][e.ids[n*k+i]] += sign * int(c)
		before, had := e.counts[i][d]
		if had {
			e.count(i, before, -1)
		}
		members := e.members[i][d] + sign
		if members <= 0 {
			delete(e.members[i], d)
			delete(e.counts[i], d)
			continue
		}
		after := before + sign*int(c)
		e.members[i][d] = members
		e.counts[i][d] = after
		e.count(i, after, 1)
	}
}

// count adds delta domains with n matching pods to constraint i's histogram.
func (e *countEntry) count(i, n, delta int) {
	h := e.histogram[i]
	if h[n] += delta; h[n] == 0 {
		delete(h, n)
	}
}
