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

package load

import (
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/usage"
)

// Memo keeps, for each node of the snapshot by its position, a value a
// plugin computed from a usage view and the node's NodeInfo, and hands it
// back while both are as they were: a view of the same read of the store
// (usage.ReadView) in which the node's sample is still as fresh, and the
// same NodeInfo at the same generation (a node whose pods change gets a
// new one). A node's sample and the pods its sample does not show are thus
// gone through once per read and change, not once per cycle. Views that
// are not ReadViews are never kept. It is safe for concurrent use, as
// Filter and Score run on many nodes at once.
type Memo[T any] struct {
	mu      sync.Mutex
	entries atomic.Pointer[[]atomic.Pointer[memoEntry[T]]]
}

// memoEntry is one node's value and what it was computed from. The
// NodeInfo is held weakly: a node replaced in the snapshot must not be
// kept alive by the memo until its position is computed again.
type memoEntry[T any] struct {
	node weak.Pointer[framework.NodeInfo]
	gen  int64
	read uint64
	// fresh is the node's freshness in that read, as of sampledAt.
	fresh     usage.Freshness
	sampledAt time.Time
	val       T
}

// Get returns the value of nodeInfo under view, if the memo holds one.
func (m *Memo[T]) Get(view usage.View, nodeInfo *framework.NodeInfo) (T, bool) {
	var zero T
	rv, ok := view.(usage.ReadView)
	i := nodeInfo.SnapshotIndex()
	s := m.entries.Load()
	if !ok || i < 0 || s == nil || i >= len(*s) {
		return zero, false
	}
	e := (*s)[i].Load()
	if e == nil || e.node.Value() != nodeInfo || e.gen != nodeInfo.Generation || e.read != rv.Read() {
		return zero, false
	}
	if e.fresh != usage.Missing && (e.fresh == usage.Stale) != rv.StaleAt(e.sampledAt) {
		return zero, false
	}
	return e.val, true
}

// Put keeps val as the value of nodeInfo under view, computed with the
// node's sample taken at sampledAt and of freshness fresh in view. A
// NodeInfo outside a snapshot's list (a copy made for preemption) is not
// kept.
func (m *Memo[T]) Put(view usage.View, nodeInfo *framework.NodeInfo, fresh usage.Freshness, sampledAt time.Time, val T) {
	rv, ok := view.(usage.ReadView)
	i := nodeInfo.SnapshotIndex()
	if !ok || i < 0 {
		return
	}
	s := m.entries.Load()
	if s == nil || i >= len(*s) {
		s = m.grow(i + 1)
	}
	(*s)[i].Store(&memoEntry[T]{node: weak.Make(nodeInfo), gen: nodeInfo.Generation, read: rv.Read(), fresh: fresh, sampledAt: sampledAt, val: val})
}

// grow returns the entries, at least n of them.
func (m *Memo[T]) grow(n int) *[]atomic.Pointer[memoEntry[T]] {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.entries.Load()
	if cur != nil && len(*cur) >= n {
		return cur
	}
	size := n
	if cur != nil {
		size = max(n, 2*len(*cur))
	}
	next := make([]atomic.Pointer[memoEntry[T]], size)
	if cur != nil {
		for i := range *cur {
			next[i].Store((*cur)[i].Load())
		}
	}
	m.entries.Store(&next)
	return &next
}
