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
// per cycle from PreFilter and PreScore, copy the map and publish the copy.
type CycleState struct {
	// mu serialises writers.
	mu      sync.Mutex
	storage atomic.Pointer[map[StateKey]StateData]

	// SkipFilterPlugins are plugins whose PreFilter returned Skip.
	SkipFilterPlugins sets.Set[string]
	// SkipScorePlugins are plugins whose PreScore returned Skip.
	SkipScorePlugins sets.Set[string]
}

// NewCycleState returns an empty CycleState.
func NewCycleState() *CycleState {
	return &CycleState{}
}

// Read returns the data stored under key, or ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	if m := c.storage.Load(); m != nil {
		if v, ok := (*m)[key]; ok {
			return v, nil
		}
	}
	return nil, ErrNotFound
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, data StateData) {
	c.update(func(m map[StateKey]StateData) { m[key] = data })
}

// Delete removes the data stored under key.
func (c *CycleState) Delete(key StateKey) {
	c.update(func(m map[StateKey]StateData) { delete(m, key) })
}

// update applies change to a copy of the stored map and publishes the copy;
// readers holding the previous map keep reading it unchanged.
func (c *CycleState) update(change func(m map[StateKey]StateData)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next map[StateKey]StateData
	if m := c.storage.Load(); m != nil {
		next = make(map[StateKey]StateData, len(*m)+1)
		for k, v := range *m {
			next[k] = v
		}
	} else {
		next = make(map[StateKey]StateData, 1)
	}
	change(next)
	c.storage.Store(&next)
}

// Clone returns a deep copy: every StateData is cloned.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := NewCycleState()
	if m := c.storage.Load(); m != nil {
		cloned := make(map[StateKey]StateData, len(*m))
		for k, v := range *m {
			cloned[k] = v.Clone()
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
