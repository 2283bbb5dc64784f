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
// a new key is appended past the end of the views already published, a
// replaced or deleted one is written in a copy. The entries are a short slice searched in order: with the dozen
// keys of a cycle, comparing constant key strings beats hashing them.
type CycleState struct {
	// mu serialises writers.
	mu      sync.Mutex
	storage atomic.Pointer[[]stateEntry]

	// SkipFilterPlugins are plugins whose PreFilter returned Skip. The
	// runtime shares one set between the cycles that skip the same
	// plugins: replace it, never change it.
	SkipFilterPlugins sets.Set[string]
	// SkipScorePlugins are plugins whose PreScore returned Skip.
	SkipScorePlugins sets.Set[string]
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
	if entries := c.storage.Load(); entries != nil {
		for i := len(*entries) - 1; i >= 0; i-- {
			if e := &(*entries)[i]; e.key == key {
				return e.data, nil
			}
		}
	}
	return nil, ErrNotFound
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, data StateData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var entries []stateEntry
	if old := c.storage.Load(); old != nil {
		entries = *old
	}
	if i := find(entries, key); i >= 0 {
		// Readers may be reading slot i: replace it in a copy.
		next := make([]stateEntry, len(entries), cap(entries))
		copy(next, entries)
		next[i].data = data
		c.storage.Store(&next)
		return
	}
	// A new key goes into spare capacity past the end, which no reader
	// looks at (each reads up to the length it loaded), so a cycle's dozen
	// writes share one backing array instead of copying it each time.
	if entries == nil {
		entries = make([]stateEntry, 0, initialStateEntries)
	}
	next := append(entries, stateEntry{key: key, data: data})
	c.storage.Store(&next)
}

// initialStateEntries is room for the keys a default cycle writes.
const initialStateEntries = 16

// Delete removes the data stored under key.
func (c *CycleState) Delete(key StateKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.storage.Load()
	if old == nil {
		return
	}
	i := find(*old, key)
	if i < 0 {
		return
	}
	next := make([]stateEntry, 0, cap(*old))
	next = append(next, (*old)[:i]...)
	next = append(next, (*old)[i+1:]...)
	c.storage.Store(&next)
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
	if entries := c.storage.Load(); entries != nil {
		cloned := make([]stateEntry, len(*entries))
		for i, e := range *entries {
			cloned[i] = stateEntry{key: e.key, data: e.data.Clone()}
		}
		out.storage.Store(&cloned)
	}
	out.SkipFilterPlugins = c.SkipFilterPlugins.Clone()
	out.SkipScorePlugins = c.SkipScorePlugins.Clone()
	return out
}

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
