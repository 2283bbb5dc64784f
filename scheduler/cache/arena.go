package cache

import (
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
// Filter and Score read on every node: its resource sums and a shallow copy
// of its Node. A cycle visits hundreds of nodes, each once, so the cache
// misses per node, not the instructions, bound the cycle: adjacent memory,
// and slots in the order a cycle walks them, turn scattered misses into
// ones the hardware prefetches.
type nodeSlot struct {
	info                                     framework.NodeInfo
	requested, nonZeroRequested, allocatable framework.Resource
	node                                     v1.Node
}

// fill makes the slot a copy of src that points at the slot's own resource
// sums and Node. The copy is shallow: src's pods, ports, images and the
// Node's maps and slices are shared, and nothing in a snapshot changes them.
func (slot *nodeSlot) fill(src *framework.NodeInfo) {
	slot.requested = *src.Requested
	slot.nonZeroRequested = *src.NonZeroRequested
	slot.allocatable = *src.Allocatable
	slot.node = *src.Node()
	slot.info = *src
	slot.info.SetNode(&slot.node)
	slot.info.Requested, slot.info.NonZeroRequested, slot.info.Allocatable = &slot.requested, &slot.nonZeroRequested, &slot.allocatable
}

// compact copies every listed NodeInfo into a fresh arena in list order and
// points the map and the list at the copies; the caller rebuilds the
// affinity lists. The copies are new objects, so NodeInfos handed out
// before stay as they were. Its cost, one copy per node, is paid once per
// len/compactAfter changed NodeInfos (or node set change).
func (s *Snapshot) compact() {
	arena := make([]nodeSlot, len(s.nodeInfoList))
	for i, ni := range s.nodeInfoList {
		arena[i].fill(ni)
		moved := &arena[i].info
		s.nodeInfoList[i] = moved
		s.nodeInfoMap[moved.Node().Name] = moved
	}
	s.arena, s.relocated = arena, 0
}
