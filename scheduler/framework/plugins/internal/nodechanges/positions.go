package nodechanges

import (
	"unsafe"

	"github.com/berth-io/berth/scheduler/framework"
)

// positionTable maps NodeInfo pointers to positions: an open-addressing
// table probed linearly, at most half full. Filter asks it once per node
// per cycle, from thousands of nodes whose other data already fill the
// caches: a lookup here usually reads one slot, where a Go map reads its
// directory, a control word and then the slot.
type positionTable struct {
	slots []positionSlot
	// shift turns a multiplied pointer into a slot index (64 minus the
	// table's bits); count is the number of occupied slots.
	shift uint
	count int
}

// positionSlot is one table entry; a nil ni is an empty slot.
type positionSlot struct {
	ni  *framework.NodeInfo
	pos int32
}

// newPositionTable returns a table sized for n entries.
func newPositionTable(n int) *positionTable {
	bits := uint(4)
	for 1<<bits < 2*n {
		bits++
	}
	return &positionTable{slots: make([]positionSlot, 1<<bits), shift: 64 - bits}
}

// home is the slot a pointer's probe starts at (Fibonacci hashing: the top
// bits of the product, which depend on every bit of the address).
func (t *positionTable) home(ni *framework.NodeInfo) int {
	return int((uint64(uintptr(unsafe.Pointer(ni))) * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns ni's position, or -1.
func (t *positionTable) get(ni *framework.NodeInfo) int {
	mask := len(t.slots) - 1
	for i := t.home(ni); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ni == ni {
			return int(s.pos)
		}
		if s.ni == nil {
			return -1
		}
	}
}

// put maps ni, which must not be nil, to pos.
func (t *positionTable) put(ni *framework.NodeInfo, pos int32) {
	if 2*(t.count+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := t.home(ni); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ni == ni {
			s.pos = pos
			return
		}
		if s.ni == nil {
			*s = positionSlot{ni: ni, pos: pos}
			t.count++
			return
		}
	}
}

// grow doubles the table.
func (t *positionTable) grow() {
	old := t.slots
	t.slots = make([]positionSlot, 2*len(old))
	t.shift--
	t.count = 0
	for _, s := range old {
		if s.ni != nil {
			t.put(s.ni, s.pos)
		}
	}
}

// remove forgets ni if the table holds it, shifting back the entries of
// the probe run after it so that no lookup stops early at the hole.
func (t *positionTable) remove(ni *framework.NodeInfo) {
	mask := len(t.slots) - 1
	i := t.home(ni)
	for ; t.slots[i].ni != ni; i = (i + 1) & mask {
		if t.slots[i].ni == nil {
			return
		}
	}
	for j := (i + 1) & mask; t.slots[j].ni != nil; j = (j + 1) & mask {
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j]: its probe would then not pass i.
		h := t.home(t.slots[j].ni)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = positionSlot{}
	t.count--
}
