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

// Package nodechanges tells plugins that keep per-node work across
// scheduling cycles which positions of the snapshot's node list changed.
package nodechanges

import (
	"context"

	"github.com/berth-io/berth/scheduler/framework"
)

// parallelFrom is the number of changed positions from which Recount works
// on the parallelizer rather than one position after another: a cycle
// usually sees one change, and a goroutine hand-off would cost more than
// the count.
const parallelFrom = 64

// Tracker remembers, per position of a node list, the NodeInfo last
// recorded there and its Generation.
type Tracker struct {
	nodes   []*framework.NodeInfo
	gens    []int64
	changed []int
}

// Reset forgets every position and sizes the tracker for n of them.
func (t *Tracker) Reset(n int) {
	t.nodes = make([]*framework.NodeInfo, n)
	t.gens = make([]int64, n)
}

// Position returns the position that holds ni, or -1 when none does. It
// reads the position the snapshot gave ni (NodeInfo.SnapshotIndex) and
// checks that the tracker holds ni there: one slice read. A NodeInfo that
// no snapshot placed, or that is not the one held at its place (a copy made
// for preemption, one Changed reported but not yet recorded), has none.
// The positions are only changed by Changed, Record and Reset, which the
// owner calls between cycles.
func (t *Tracker) Position(ni *framework.NodeInfo) int {
	if ni == nil {
		return -1
	}
	if p := ni.SnapshotIndex(); p >= 0 && p < len(t.nodes) && t.nodes[p] == ni {
		return p
	}
	return -1
}

// Len returns the number of positions tracked.
func (t *Tracker) Len() int { return len(t.nodes) }

// Changed returns the positions of nodes whose NodeInfo is not the one
// recorded there, in order; the slice is reused by the next call. A
// position holding the same NodeInfo is unchanged: the snapshot never
// changes a NodeInfo it handed out, it replaces it. So is one holding a
// copy of it (the snapshot re-lays NodeInfos out without changing them),
// which the cache's generations, unique per change, identify by node name
// and Generation; the tracker then keeps the copy. nodes must have Len
// positions.
func (t *Tracker) Changed(nodes []*framework.NodeInfo) []int {
	t.changed = t.changed[:0]
	for n, ni := range nodes {
		old := t.nodes[n]
		if old == ni && ni != nil {
			continue
		}
		if sameVersion(old, ni, t.gens[n]) {
			t.nodes[n] = ni
			continue
		}
		t.changed = append(t.changed, n)
	}
	return t.changed
}

// Record notes that position n now holds ni, whose work is done.
func (t *Tracker) Record(n int, ni *framework.NodeInfo) {
	t.nodes[n] = ni
	t.gens[n] = 0
	if ni != nil {
		t.gens[n] = ni.Generation
	}
}

// sameVersion reports whether ni is a copy of old, which had generation gen.
func sameVersion(old, ni *framework.NodeInfo, gen int64) bool {
	if old == nil || ni == nil || ni.Generation == 0 || ni.Generation != gen {
		return false
	}
	a, b := old.Node(), ni.Node()
	return a != nil && b != nil && a.Name == b.Name
}

// Recount runs count for each of the changed positions' indexes 0..n-1,
// on par (as operation) once there are enough of them to be worth it.
func Recount(ctx context.Context, par framework.Parallelizer, operation string, n int, count func(j int)) {
	if n >= parallelFrom {
		par.Until(ctx, n, count, operation)
		return
	}
	for j := range n {
		count(j)
	}
}
