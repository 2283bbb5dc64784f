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
	"maps"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berth-io/berth/scheduler/framework"
)

// domain is one topology domain: a node label key and its value.
type domain struct {
	key, value string
}

// domainCounts counts matching pods (or matched terms) per topology domain.
// The counts of the domains a node index numbers are kept in one slice per
// topology key; a domain outside the index (a node the index does not
// hold) is kept in extra. A count of 0 is no count: empty reports whether
// nothing matched anywhere.
type domainCounts struct {
	idx *nodeIndex
	// keys holds, per topology key that occurs, its counts by domain
	// number; it may keep a key whose domains all dropped to 0.
	keys []keyCounts
	// extra counts domains outside the index; entries never hold 0.
	extra map[domain]int64
	// nonzero is the number of domains with a count, extra included.
	nonzero int
}

func newDomainCounts(idx *nodeIndex) *domainCounts {
	return &domainCounts{idx: idx}
}

// empty reports whether no domain has a count.
func (c *domainCounts) empty() bool { return c.nonzero == 0 }

// keyCounts returns the counts of key, nil when the key does not occur.
func (c *domainCounts) keyCounts(key string) *keyCounts {
	for i := range c.keys {
		if c.keys[i].dom.key == key {
			return &c.keys[i]
		}
	}
	return nil
}

// add adds delta to the node's domain for key; a node without the label has no such domain.
func (c *domainCounts) add(node *v1.Node, key string, delta int64) {
	value, ok := node.Labels[key]
	if !ok {
		return
	}
	c.addDomain(domain{key: key, value: value}, delta)
}

func (c *domainCounts) addDomain(d domain, delta int64) {
	if delta == 0 {
		return
	}
	kc := c.keyCounts(d.key)
	if kc == nil {
		kd := c.idx.domains(d.key)
		c.keys = append(c.keys, newKeyCounts(kd))
		kc = &c.keys[len(c.keys)-1]
	}
	id, ok := kc.dom.byValue[d.value]
	if !ok {
		c.addExtra(d, delta)
		return
	}
	old := kc.at(id)
	kc.set(id, old+delta)
	c.tally(old, old+delta)
}

func (c *domainCounts) addExtra(d domain, delta int64) {
	if c.extra == nil {
		c.extra = map[domain]int64{}
	}
	old := c.extra[d]
	n := old + delta
	if n == 0 {
		delete(c.extra, d)
	} else {
		c.extra[d] = n
	}
	c.tally(old, n)
}

// tally keeps nonzero up to date with a domain going from old to n.
func (c *domainCounts) tally(old, n int64) {
	switch {
	case old == 0 && n != 0:
		c.nonzero++
	case old != 0 && n == 0:
		c.nonzero--
	}
}

// merge adds every count of o.
func (c *domainCounts) merge(o map[domain]int64) {
	for d, n := range o {
		c.addDomain(d, n)
	}
}

// get returns the count of a domain.
func (c *domainCounts) get(d domain) int64 {
	if kc := c.keyCounts(d.key); kc != nil {
		if id, ok := kc.dom.byValue[d.value]; ok {
			return kc.at(id)
		}
	}
	return c.extra[d]
}

// each calls fn with every domain that has a count.
func (c *domainCounts) each(fn func(d domain, n int64)) {
	for i := range c.keys {
		kc := &c.keys[i]
		for id := range kc.dom.values {
			if n := kc.at(int32(id)); n != 0 {
				fn(domain{key: kc.dom.key, value: kc.dom.values[id]}, n)
			}
		}
	}
	for d, n := range c.extra {
		fn(d, n)
	}
}

// asMap returns the counts as a map of the domains that have one.
func (c *domainCounts) asMap() map[domain]int64 {
	out := make(map[domain]int64, c.nonzero)
	c.each(func(d domain, n int64) { out[d] = n })
	return out
}

// inDomain returns the count of the node's domain for key; ok is false when
// the node lacks the label. pos is the node's position in c's index, or -1
// when the index does not hold it (its label is then looked up).
func (c *domainCounts) inDomain(node *v1.Node, pos int32, key string) (n int64, ok bool) {
	kc := c.keyCounts(key)
	if pos >= 0 && kc != nil {
		id := kc.dom.ids[pos]
		if id < 0 {
			return 0, false
		}
		return kc.at(id), true
	}
	value, ok := node.Labels[key]
	if !ok {
		return 0, false
	}
	return c.get(domain{key: key, value: value}), true
}

// anyInNodeDomains reports whether any of the node's domains has a count;
// pos is as for inDomain.
func (c *domainCounts) anyInNodeDomains(node *v1.Node, pos int32) bool {
	if c.nonzero == 0 {
		return false
	}
	for i := range c.keys {
		kc := &c.keys[i]
		if pos >= 0 {
			if id := kc.dom.ids[pos]; id >= 0 && kc.at(id) > 0 {
				return true
			}
			continue
		}
		if value, ok := node.Labels[kc.dom.key]; ok {
			if id, ok := kc.dom.byValue[value]; ok && kc.at(id) > 0 {
				return true
			}
		}
	}
	if len(c.extra) == 0 {
		return false
	}
	for d, n := range c.extra {
		if value, has := node.Labels[d.key]; has && value == d.value && n > 0 {
			return true
		}
	}
	return false
}

// clone returns a copy that owns its counts.
func (c *domainCounts) clone() *domainCounts {
	out := c.share()
	for i := range out.keys {
		out.keys[i].own()
	}
	return out
}

// share returns a copy whose per-key counts are shared with c and copied
// before they change; c must not change afterwards.
func (c *domainCounts) share() *domainCounts {
	out := &domainCounts{idx: c.idx, keys: append([]keyCounts(nil), c.keys...), nonzero: c.nonzero}
	for i := range out.keys {
		out.keys[i].baseOwned, out.keys[i].overOwned = false, false
	}
	if len(c.extra) > 0 {
		out.extra = maps.Clone(c.extra)
	}
	return out
}

// tally counts per domain while a piece of a parallel scan runs; the
// pieces' tallies are merged into a domainCounts afterwards.
type tally map[domain]int64

// add adds delta to the node's domain for key, if the node has the label.
func (t tally) add(node *v1.Node, key string, delta int64) {
	if value, ok := node.Labels[key]; ok {
		t[domain{key: key, value: value}] += delta
	}
}

// counter is what counting adds to: a domainCounts or a tally.
type counter interface {
	add(node *v1.Node, key string, delta int64)
}

// matchesAll reports whether pod matches every term; no terms match nothing.
// The terms are the incoming pod's, whose namespace selectors are already
// resolved into namespaces, so no namespace labels are needed.
func matchesAll(terms []framework.AffinityTerm, pod *v1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

// matchesAny reports whether pod matches at least one term (see matchesAll).
func matchesAny(terms []framework.AffinityTerm, pod *v1.Pod) bool {
	for i := range terms {
		if terms[i].Matches(pod, nil) {
			return true
		}
	}
	return false
}

// resolveNamespaces folds the namespaces a term's namespace selector picks
// into its namespace set, so the term matches without namespace labels. A
// selector that picks every namespace, or none, stays as it is.
func resolveNamespaces(term *framework.AffinityTerm, list func(labels.Selector) ([]string, error)) error {
	sel := term.NamespaceSelector
	if sel == nil || sel.Empty() {
		return nil
	}
	if _, selectable := sel.Requirements(); !selectable {
		return nil
	}
	names, err := list(sel)
	if err != nil {
		return err
	}
	term.Namespaces.Insert(names...)
	term.NamespaceSelector = labels.Nothing()
	return nil
}

// maxChunks bounds the pieces a scan over nodes is cut into; each piece
// collects its own partial result, merged afterwards.
const maxChunks = 64

// chunked cuts [0, n) into pieces and runs fn on each in parallel. fn gets
// the piece's index and bounds; it returns the number of pieces.
func chunked(ctx context.Context, p framework.Parallelizer, n int, fn func(piece, lo, hi int), operation string) int {
	if n == 0 {
		return 0
	}
	pieces := min(maxChunks, int(math.Ceil(math.Sqrt(float64(n)))))
	size := (n + pieces - 1) / pieces
	pieces = (n + size - 1) / size
	p.Until(ctx, pieces, func(i int) {
		lo := i * size
		fn(i, lo, min(lo+size, n))
	}, operation)
	return pieces
}
