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

package queue

// entryHeap is a binary min-heap of entries under a less function. Each entry
// remembers its slot, so removal and re-ordering of a known entry are O(log n).
type entryHeap struct {
	items []*entry
	less  func(a, b *entry) bool
}

func newEntryHeap(less func(a, b *entry) bool) *entryHeap {
	return &entryHeap{less: less}
}

func (h *entryHeap) len() int { return len(h.items) }

// peek returns the smallest entry without removing it, or nil.
func (h *entryHeap) peek() *entry {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

// push inserts e, which must not be in any heap.
func (h *entryHeap) push(e *entry) {
	e.slot = len(h.items)
	h.items = append(h.items, e)
	h.up(e.slot)
}

// pop removes and returns the smallest entry, or nil.
func (h *entryHeap) pop() *entry {
	if len(h.items) == 0 {
		return nil
	}
	top := h.items[0]
	h.removeAt(0)
	return top
}

// remove takes e out of the heap; e must be in this heap.
func (h *entryHeap) remove(e *entry) {
	h.removeAt(e.slot)
}

// fix restores order after e's sort key changed.
func (h *entryHeap) fix(e *entry) {
	if !h.down(e.slot) {
		h.up(e.slot)
	}
}

// each calls fn for every entry in no particular order.
func (h *entryHeap) each(fn func(*entry)) {
	for _, e := range h.items {
		fn(e)
	}
}

func (h *entryHeap) removeAt(i int) {
	last := len(h.items) - 1
	gone := h.items[i]
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	gone.slot = -1
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
}

func (h *entryHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].slot = i
	h.items[j].slot = j
}

// up moves the entry at i towards the root while it sorts before its parent.
func (h *entryHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sinks the entry at i below children that sort before it and reports whether it moved.
func (h *entryHeap) down(i int) bool {
	start, n := i, len(h.items)
	for {
		smallest := i
		if l := 2*i + 1; l < n && h.less(h.items[l], h.items[smallest]) {
			smallest = l
		}
		if r := 2*i + 2; r < n && h.less(h.items[r], h.items[smallest]) {
			smallest = r
		}
		if smallest == i {
			return i > start
		}
		h.swap(i, smallest)
		i = smallest
	}
}
