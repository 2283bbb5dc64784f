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

package cache

import (
	"unsafe"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// The snapshot re-lays its arena once more than 1/compactAfter of its
// NodeInfos, and at least compactMin, were cloned outside it.
const (
	compactAfter = 4
	compactMin   = 64
)

// needsCompaction reports whether enough NodeInfos live outside the arena.
func (s *Snapshot) needsCompaction() bool {
	return s.relocated >= compactMin && s.relocated > len(s.nodeInfoList)/compactAfter
}

// nodeSlot is a snapshot NodeInfo laid out in one allocation with what
// Filter and Score read on every node: its resource sums. A cycle visits
// hundreds of nodes, each once, so the cache misses per node, not the
// instructions, bound the cycle: adjacent memory, and slots in the order a
// cycle walks them, turn scattered misses into ones the hardware
// prefetches.
//
// The resource sums come first and the NodeInfo, whose hot fields lead it,
// right after them, so that everything the default Filter and Score plugins
// read of a node (the sums, and the NodeInfo's pods, pointers and copies of
// the node's name, taints and unschedulable flag) lies in the slot's first
// four cache lines. The slot holds no Node: a NodeInfo points at the
// snapshot's copy of its Node (snapshotNode), which is made once per
// version of the Node and shared by every slot of that version, so the
// clone of a node whose pods changed, and every re-lay of the arena, copy
// a third of the bytes they would with the Node inside. The padding makes
// the slot a whole number of cache lines, so that every slot of a chunk
// starts on a line as the chunk does (Go aligns allocations of this size
// to at least 64 bytes).
type nodeSlot struct {
	requested, nonZeroRequested, allocatable framework.Resource
	info                                     framework.NodeInfo
	_                                        [slotPadding]byte
}

// cacheLine is the size of a CPU cache line on the machines Berth runs on.
const cacheLine = 64

// slotPadding rounds the size of a nodeSlot up to a whole number of cache lines.
const slotPadding = (cacheLine - (3*unsafe.Sizeof(framework.Resource{})+unsafe.Sizeof(framework.NodeInfo{}))%cacheLine) % cacheLine

// fill makes the slot a copy of src that points at the slot's own resource
// sums and at node, the snapshot's copy of src's Node. The copy is shallow:
// src's pods, ports and images are shared, and nothing in a snapshot
// changes them.
func (slot *nodeSlot) fill(src *framework.NodeInfo, node *v1.Node) {
	slot.requested = *src.Requested
	slot.nonZeroRequested = *src.NonZeroRequested
	slot.allocatable = *src.Allocatable
	slot.info = *src
	slot.info.Requested, slot.info.NonZeroRequested, slot.info.Allocatable = &slot.requested, &slot.nonZeroRequested, &slot.allocatable
	slot.setNode(node)
}

// setNode points the slot's NodeInfo at node, a snapshot copy. The
// NodeInfo's Allocatable, the slot's copy of the sums, already holds the
// node's allocatable resources, so the node's are not parsed again.
func (slot *nodeSlot) setNode(node *v1.Node) {
	slot.info.SetNodeKeepingAllocatable(node)
}

// snapshotNode returns the snapshot's copy of src's Node: that of prev, an
// earlier snapshot copy, when it holds the same version of the Node (a pod
// change clones a NodeInfo, not its Node), or else a new shallow copy whose
// labels labels copies. Snapshot copies are never changed, so slots share
// them.
func snapshotNode(src, prev *framework.NodeInfo, labels *labelTable) *v1.Node {
	if prev != nil && sameNodeVersion(prev.Node(), src.Node()) {
		return prev.Node()
	}
	node := new(v1.Node)
	copyNode(node, src.Node(), labels)
	return node
}

// copyNode makes dst a shallow copy of src whose labels labels copies.
func copyNode(dst, src *v1.Node, labels *labelTable) {
	*dst = *src
	dst.Labels = labels.copyOf(src.Labels)
}

// sameNodeVersion reports whether a and b are the same version of one Node
// object; without a resource version nothing is known to be the same.
func sameNodeVersion(a, b *v1.Node) bool {
	return a != nil && b != nil && a.UID == b.UID && a.ResourceVersion != "" && a.ResourceVersion == b.ResourceVersion
}

// arenaChunk is the number of slots allocated together. A NodeInfo handed
// out keeps its whole allocation alive (a binding in flight holds its
// cycle's NodeInfos, for example), so one arena of every node would keep
// every replaced slot in memory for as long as one of them is held;
// chunks of this size keep the list order a cycle walks, and a held
// NodeInfo keeps about 40 KB of slots alive (and the 100 KB chunk of Node
// copies its Node is in, when a compaction made it), not the whole node
// list.
const arenaChunk = 128

// compact copies every listed NodeInfo into fresh arena chunks in list order
// and points the map and the list at the copies; the caller rebuilds the
// affinity lists. The copies are new objects, so NodeInfos handed out
// before stay as they were. Its cost, one slot copy per node, is paid once
// per len/compactAfter changed NodeInfos (or node set change). copyNodes
// gives the copies fresh Node copies too, with fresh labels, laid out in
// list order in chunks of their own (the node set changed, so the list
// order did); otherwise each copy points at the Node of the NodeInfo it
// copies, which is already the snapshot's own (made by an earlier
// compaction or clone) and never changes, so a compaction copies no Node.
func (s *Snapshot) compact(copyNodes bool) {
	n := len(s.nodeInfoList)
	arena := make([][]nodeSlot, 0, (n+arenaChunk-1)/arenaChunk)
	s.labels = newLabelTable()
	for start := 0; start < n; start += arenaChunk {
		chunk := make([]nodeSlot, min(arenaChunk, n-start))
		var nodes []v1.Node
		if copyNodes {
			nodes = make([]v1.Node, len(chunk))
		}
		for j := range chunk {
			ni := s.nodeInfoList[start+j]
			node := ni.Node()
			if copyNodes {
				copyNode(&nodes[j], node, s.labels)
				node = &nodes[j]
			}
			chunk[j].fill(ni, node)
			moved := &chunk[j].info
			moved.SetSnapshotIndex(start + j)
			s.nodeInfoList[start+j] = moved
			s.nodeInfoMap[moved.Node().Name] = moved
		}
		arena = append(arena, chunk)
	}
	s.arena, s.relocated = arena, 0
}

// slot returns the arena slot of list position i; the arena must hold it.
func (s *Snapshot) slot(i int) *nodeSlot {
	return &s.arena[i/arenaChunk][i%arenaChunk]
}

// labelTable copies node labels for the snapshot with every key and value
// string interned. Plugins such as PodTopologySpread read a label of every
// node in every cycle: with the informer's maps and strings that is several
// scattered cache misses per node, with the copies the maps are allocated
// in list order and the strings shared (topology keys and zones are the
// same few strings on every node) and already cached. The table starts
// afresh with each compaction, so it holds only labels of current nodes.
type labelTable struct {
	strings map[string]string
}

func newLabelTable() *labelTable {
	return &labelTable{strings: map[string]string{}}
}

// copyOf returns a copy of labels whose strings are the table's.
func (t *labelTable) copyOf(labels map[string]string) map[string]string {
	if labels == nil {
		return nil
	}
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[t.intern(k)] = t.intern(v)
	}
	return out
}

func (t *labelTable) intern(s string) string {
	if own, ok := t.strings[s]; ok {
		return own
	}
	t.strings[s] = s
	return s
}
