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
// Node's slices and maps are shared, and nothing in a snapshot changes
// them; the exception is the Node's labels, which labels copies, or which
// are taken from prev, an earlier snapshot copy, when it holds the same
// version of the Node (a pod change clones a NodeInfo, not its Node).
func (slot *nodeSlot) fill(src, prev *framework.NodeInfo, labels *labelTable) {
	slot.requested = *src.Requested
	slot.nonZeroRequested = *src.NonZeroRequested
	slot.allocatable = *src.Allocatable
	slot.node = *src.Node()
	if prev != nil && sameNodeVersion(prev.Node(), src.Node()) {
		slot.node.Labels = prev.Node().Labels
	} else {
		slot.node.Labels = labels.copyOf(src.Node().Labels)
	}
	slot.info = *src
	slot.info.SetNode(&slot.node)
	slot.info.Requested, slot.info.NonZeroRequested, slot.info.Allocatable = &slot.requested, &slot.nonZeroRequested, &slot.allocatable
}

// sameNodeVersion reports whether a and b are the same version of one Node
// object; without a resource version nothing is known to be the same.
func sameNodeVersion(a, b *v1.Node) bool {
	return a != nil && b != nil && a.UID == b.UID && a.ResourceVersion != "" && a.ResourceVersion == b.ResourceVersion
}

// compact copies every listed NodeInfo into a fresh arena in list order and
// points the map and the list at the copies; the caller rebuilds the
// affinity lists. The copies are new objects, so NodeInfos handed out
// before stay as they were. Its cost, one copy per node, is paid once per
// len/compactAfter changed NodeInfos (or node set change).
func (s *Snapshot) compact() {
	arena := make([]nodeSlot, len(s.nodeInfoList))
	s.labels = newLabelTable()
	for i, ni := range s.nodeInfoList {
		arena[i].fill(ni, nil, s.labels)
		moved := &arena[i].info
		s.nodeInfoList[i] = moved
		s.nodeInfoMap[moved.Node().Name] = moved
	}
	s.arena, s.relocated = arena, 0
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
