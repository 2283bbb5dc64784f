package framework

import (
	"errors"
	"sync"

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
// safe for concurrent use: Filter and Score run in parallel over nodes.
type CycleState struct {
	mu      sync.RWMutex
	storage map[StateKey]StateData

	// SkipFilterPlugins are plugins whose PreFilter returned Skip.
	SkipFilterPlugins sets.Set[string]
	// SkipScorePlugins are plugins whose PreScore returned Skip.
	SkipScorePlugins sets.Set[string]
}

// NewCycleState returns an empty CycleState.
func NewCycleState() *CycleState {
	return &CycleState{storage: make(map[StateKey]StateData)}
}

// Read returns the data stored under key, or ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if v, ok := c.storage[key]; ok {
		return v, nil
	}
	return nil, ErrNotFound
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, data StateData) {
	c.mu.Lock()
	c.storage[key] = data
	c.mu.Unlock()
}

// Delete removes the data stored under key.
func (c *CycleState) Delete(key StateKey) {
	c.mu.Lock()
	delete(c.storage, key)
	c.mu.Unlock()
}

// Clone returns a deep copy: every StateData is cloned.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := NewCycleState()
	c.mu.RLock()
	for k, v := range c.storage {
		out.storage[k] = v.Clone()
	}
	c.mu.RUnlock()
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
