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
	"math/bits"
	"slices"
)

// maxOverlay is how many changed domains a key's counts keep beside their
// shared base before they copy the base with the changes applied.
const maxOverlay = 64

// keyCounts are the counts of one topology key's domains, by domain number.
// Counts handed to a cycle never change, so a change after that must not
// touch what they share; instead of copying every domain's count per
// change, the changed domains go into a small sorted overlay over the
// shared base (copied per change, a few hundred bytes), and the base is
// copied with the overlay applied once the overlay holds maxOverlay
// domains. A cycle's reads stay a slice load, plus a bit test.
type keyCounts struct {
	dom *keyDomains
	// base holds the count of every domain not in over.
	base []int64
	// over holds the changed domains' counts, sorted by id; changed has
	// the bit of each id in over set (nil when over is empty).
	over    []overlaid
	changed []uint64
	// baseOwned and overOwned are false while base, or over and changed,
	// are shared with another keyCounts: they are copied before a change.
	baseOwned, overOwned bool
}

// overlaid is one domain's count in an overlay.
type overlaid struct {
	id int32
	n  int64
}

func newKeyCounts(kd *keyDomains) keyCounts {
	return keyCounts{dom: kd, base: make([]int64, len(kd.values)), baseOwned: true, overOwned: true}
}

// at returns the count of domain id.
func (kc *keyCounts) at(id int32) int64 {
	if kc.changed != nil && kc.changed[id>>6]&(1<<(uint(id)&63)) != 0 {
		if i, ok := kc.find(id); ok {
			return kc.over[i].n
		}
	}
	return kc.base[id]
}

// find returns where id is, or belongs, in the overlay.
func (kc *keyCounts) find(id int32) (int, bool) {
	return slices.BinarySearchFunc(kc.over, id, func(o overlaid, id int32) int { return int(o.id - id) })
}

// set sets the count of domain id.
func (kc *keyCounts) set(id int32, n int64) {
	if kc.baseOwned || len(kc.over) >= maxOverlay {
		kc.own()
		kc.base[id] = n
		return
	}
	if !kc.overOwned {
		kc.over = slices.Clone(kc.over)
		if kc.changed != nil {
			kc.changed = slices.Clone(kc.changed)
		}
		kc.overOwned = true
	}
	if kc.changed == nil {
		kc.changed = make([]uint64, (len(kc.base)+63)/64)
	}
	kc.changed[id>>6] |= 1 << (uint(id) & 63)
	i, ok := kc.find(id)
	if ok {
		kc.over[i].n = n
		return
	}
	kc.over = slices.Insert(kc.over, i, overlaid{id: id, n: n})
}

// own gives kc a base of its own with the overlay applied, and no overlay.
func (kc *keyCounts) own() {
	if !kc.baseOwned {
		kc.base = slices.Clone(kc.base)
		kc.baseOwned = true
	}
	for _, o := range kc.over {
		kc.base[o.id] = o.n
	}
	kc.over, kc.changed, kc.overOwned = nil, nil, true
}

// overlaidDomains is the number of domains in the overlay (for tests).
func (kc *keyCounts) overlaidDomains() int {
	n := 0
	for _, w := range kc.changed {
		n += bits.OnesCount64(w)
	}
	return n
}
