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

package framework

import (
	"errors"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/sets"
)

// ErrNotFound is returned by CycleState.Read when no data is stored under the key.
var ErrNotFound = errors.New("not found")

// StateKey names a piece of per-cycle state; plugins use their own names as keys.
type StateKey string

// StateData is per-cycle plugin state. Clone is used when preemption
// simulates a cycle, so mutable data must be deep-copied.
type StateData interface {
	Clone() StateData
}

// CycleState is the state plugins share during one scheduling cycle. It is
// safe for concurrent use: Filter and Score run in parallel over nodes and
// read it once per node and plugin, so reads take no lock. Writes, a few
// per cycle from PreFilter and PreScore, publish a new view of the entries:
// a new key is appended past the end of the entries already published, a
// replaced or deleted one is written in a copy. The entries are a short
// slice searched in order: with the dozen keys of a cycle, comparing
// constant key strings beats hashing them.
type CycleState struct {
	// mu serialises writers.
	mu sync.Mutex
	// inline holds the first keys of a cycle and inlineLen how many of
	// them are published: a new key is written past the published ones
	// and then counted, so a cycle's usual handful of writes allocates
	// nothing and a state stays small (a group cycle keeps one per member
	// and placement tried). The first write that cannot append in place (a
	// replaced or deleted key, or one more key than inline holds) moves the
	// entries to the heap for good: spilled is set and heap holds them,
	// and readers look there once it is set.
	inline    [inlineStateEntries]stateEntry
	inlineLen atomic.Int32
	heap      atomic.Pointer[[]stateEntry]
	spilled   bool

	// skipFilter and skipScore name the plugins whose PreFilter or
	// PreScore returned Skip. The runtime shares one set between the
	// cycles that skip the same plugins, so they are read, never changed.
	skipFilter, skipScore sets.Set[string]
}

// stateEntry is one key and its data.
type stateEntry struct {
	key  StateKey
	data StateData
}

// NewCycleState returns an empty CycleState.
func NewCycleState() *CycleState {
	return &CycleState{}
}

// Read returns the data stored under key, or ErrNotFound. It searches
// from the newest entry: Score reads what PreScore wrote last, once per
// node, and each key is stored once, so the order changes nothing else.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	entries := c.entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if e := &entries[i]; e.key == key {
			return e.data, nil
		}
	}
	return nil, ErrNotFound
}

// entries returns the published entries, which no writer changes.
func (c *CycleState) entries() []stateEntry {
	if heap := c.heap.Load(); heap != nil {
		return *heap
	}
	return c.inline[:c.inlineLen.Load()]
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, data StateData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.entries()
	if i := find(entries, key); i >= 0 {
		// Readers may be reading slot i: replace it in a copy.
		next := make([]stateEntry, len(entries), max(cap(entries), initialStateEntries))
		copy(next, entries)
		next[i].data = data
		c.spill(next)
		return
	}
	// A new key goes past the end, which no reader looks at (each reads up
	// to the length it loaded): into inline while it has room, then into
	// the spare capacity of a heap array, so that a cycle's dozen writes
	// share one backing array instead of copying it each time.
	if n := len(entries); !c.spilled && n < len(c.inline) {
		c.inline[n] = stateEntry{key: key, data: data}
		c.inlineLen.Store(int32(n + 1))
		return
	}
	if !c.spilled || cap(entries) == len(entries) {
		grown := make([]stateEntry, len(entries), max(2*len(entries), initialStateEntries))
		copy(grown, entries)
		entries = grown
	}
	c.spill(append(entries, stateEntry{key: key, data: data}))
}

// spill publishes entries, on the heap, in place of those published.
func (c *CycleState) spill(entries []stateEntry) {
	c.spilled = true
	c.heap.Store(&entries)
}

// inlineStateEntries is how many keys a CycleState holds before it
// allocates. Under the default profile a plain pod's cycle writes five, one
// with spread constraints six, one with pod (anti-)affinity seven; more
// would make every state bigger, and a group cycle keeps one per member
// and placement tried.
const inlineStateEntries = 7

// initialStateEntries is the least room of the entries once on the heap.
const initialStateEntries = 16

// Delete removes the data stored under key.
func (c *CycleState) Delete(key StateKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.entries()
	i := find(old, key)
	if i < 0 {
		return
	}
	next := make([]stateEntry, 0, max(cap(old), initialStateEntries))
	next = append(next, old[:i]...)
	next = append(next, old[i+1:]...)
	c.spill(next)
}

// find returns the index of key in entries, or -1.
func find(entries []stateEntry, key StateKey) int {
	for i := range entries {
		if entries[i].key == key {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy: every StateData is cloned.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := NewCycleState()
	entries := c.entries()
	if n := len(entries); n > len(out.inline) {
		cloned := make([]stateEntry, 0, n)
		for _, e := range entries {
			cloned = append(cloned, stateEntry{key: e.key, data: e.data.Clone()})
		}
		out.spill(cloned)
	} else {
		for i, e := range entries {
			out.inline[i] = stateEntry{key: e.key, data: e.data.Clone()}
		}
		out.inlineLen.Store(int32(n))
	}
	// Nothing changes the skip sets; the clone shares them.
	out.skipFilter, out.skipScore = c.skipFilter, c.skipScore
	return out
}

// SetSkipFilterPlugins records the plugins whose PreFilter returned Skip, so
// that their Filter does not run this cycle. The CycleState keeps names
// itself, which may be shared with other cycles: the caller must not
// change it afterwards.
func (c *CycleState) SetSkipFilterPlugins(names sets.Set[string]) { c.skipFilter = names }

// SkipsFilter reports whether the named plugin's Filter is skipped this cycle.
func (c *CycleState) SkipsFilter(name string) bool { return c.skipFilter.Has(name) }

// SkipsAnyFilter reports whether any plugin's Filter is skipped this cycle.
func (c *CycleState) SkipsAnyFilter() bool { return len(c.skipFilter) > 0 }

// SkippedFilters returns the names of the plugins whose Filter is skipped
// this cycle, sorted.
func (c *CycleState) SkippedFilters() []string { return sets.List(c.skipFilter) }

// SetSkipScorePlugins records the plugins whose PreScore returned Skip, so
// that their Score does not run this cycle; as with SetSkipFilterPlugins,
// names must not be changed afterwards.
func (c *CycleState) SetSkipScorePlugins(names sets.Set[string]) { c.skipScore = names }

// SkipsScore reports whether the named plugin's Score is skipped this cycle.
func (c *CycleState) SkipsScore(name string) bool { return c.skipScore.Has(name) }

// ReadState reads the data under key and asserts its type.
func ReadState[T StateData](c *CycleState, key StateKey) (T, error) {
	var zero T
	v, err := c.Read(key)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, errors.New("cycle state " + string(key) + " has an unexpected type")
	}
	return t, nil
}
