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

// Package keyedcache keeps a few values by key for plugins that carry work
// from one scheduling cycle to the next. It holds at most a fixed number of
// values, the least recently used making room for a new one, and admits a
// key only when it is asked for a second time within its latest misses: a
// key one pod needs, or keys taking turns that would evict each other
// before their next use, never displace values that are reused.
package keyedcache

import "slices"

// Cache holds values of type V by key. It is not safe for concurrent use;
// callers hold their own lock.
type Cache[V any] struct {
	maxEntries, maxMissed int
	entries               []entry[V]
	// tick orders the entries by last use.
	tick uint64
	// missed are the latest keys asked for without an entry, oldest first.
	missed []string
}

type entry[V any] struct {
	key      string
	lastUsed uint64
	value    V
}

// New returns a Cache of at most maxEntries values that remembers the last
// maxMissed keys it had no value for.
func New[V any](maxEntries, maxMissed int) *Cache[V] {
	return &Cache[V]{maxEntries: max(maxEntries, 1), maxMissed: max(maxMissed, 1)}
}

// Get returns the value for key. A key without one gets a value from create
// when it is admitted; otherwise Get returns false and remembers the miss.
func (c *Cache[V]) Get(key string, create func() V) (V, bool) {
	c.tick++
	for i := range c.entries {
		if e := &c.entries[i]; e.key == key {
			e.lastUsed = c.tick
			return e.value, true
		}
	}
	if !c.admit(key) {
		var zero V
		return zero, false
	}
	e := entry[V]{key: key, lastUsed: c.tick, value: create()}
	if len(c.entries) < c.maxEntries {
		c.entries = append(c.entries, e)
		return e.value, true
	}
	oldest := 0
	for i := range c.entries {
		if c.entries[i].lastUsed < c.entries[oldest].lastUsed {
			oldest = i
		}
	}
	c.entries[oldest] = e
	return e.value, true
}

// admit reports whether key was missed recently, and otherwise remembers it
// as missed.
func (c *Cache[V]) admit(key string) bool {
	if i := slices.Index(c.missed, key); i >= 0 {
		c.missed = slices.Delete(c.missed, i, i+1)
		return true
	}
	if len(c.missed) == c.maxMissed {
		c.missed = slices.Delete(c.missed, 0, 1)
	}
	c.missed = append(c.missed, key)
	return false
}

// Len returns how many values the cache holds.
func (c *Cache[V]) Len() int { return len(c.entries) }

// Has reports whether the cache holds a value for key, without using it.
func (c *Cache[V]) Has(key string) bool {
	return slices.ContainsFunc(c.entries, func(e entry[V]) bool { return e.key == key })
}
