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
// Entries never hold 0: a count that drops to 0 is deleted, so an empty map
// means nothing matched anywhere.
type domainCounts struct {
	counts map[domain]int64
	// keys lists the topology keys that occur in counts, each once; it may
	// keep a key whose domains all dropped to 0.
	keys []string
}

func newDomainCounts() *domainCounts {
	return &domainCounts{counts: make(map[domain]int64)}
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
	old, seen := c.counts[d]
	n := old + delta
	if n == 0 {
		if seen {
			delete(c.counts, d)
		}
		return
	}
	if !seen && !c.hasKey(d.key) {
		c.keys = append(c.keys, d.key)
	}
	c.counts[d] = n
}

func (c *domainCounts) hasKey(key string) bool {
	for _, k := range c.keys {
		if k == key {
			return true
		}
	}
	return false
}

// merge adds every count of o.
func (c *domainCounts) merge(o *domainCounts) {
	if o == nil {
		return
	}
	for d, n := range o.counts {
		c.addDomain(d, n)
	}
}

// inDomain returns the count of the node's domain for key; ok is false when
// the node lacks the label.
func (c *domainCounts) inDomain(node *v1.Node, key string) (n int64, ok bool) {
	value, ok := node.Labels[key]
	if !ok {
		return 0, false
	}
	return c.counts[domain{key: key, value: value}], true
}

// anyInNodeDomains reports whether any of the node's domains has a count.
func (c *domainCounts) anyInNodeDomains(node *v1.Node) bool {
	if len(c.counts) == 0 {
		return false
	}
	for _, key := range c.keys {
		if value, ok := node.Labels[key]; ok && c.counts[domain{key: key, value: value}] > 0 {
			return true
		}
	}
	return false
}

func (c *domainCounts) clone() *domainCounts {
	return &domainCounts{counts: maps.Clone(c.counts), keys: append([]string(nil), c.keys...)}
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
