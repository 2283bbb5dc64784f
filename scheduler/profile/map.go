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

// Package profile holds the scheduler's live profiles, keyed by the
// schedulerName they serve, and the pending pods no live profile serves yet.
package profile

import (
	"sort"
	"sync"

	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// Profile is one live profile: a compiled framework and where it came from.
type Profile struct {
	// Framework runs the profile's plugins.
	Framework *runtime.Framework
	// Source names the SchedulingProfile object the framework was compiled from.
	Source string
	// Generation is the SchedulingProfile generation compiled into Framework.
	Generation int64
	// Decisions, when set, keeps the profile's last placements
	// (spec.recordDecisions); a new generation may carry it over.
	Decisions *decisions.Recorder
}

// Map holds the live profiles keyed by schedulerName. Replacing a profile
// swaps one pointer: a scheduling cycle that already read the old profile
// finishes with it, the next cycle reads the new one.
type Map struct {
	mu     sync.RWMutex
	byName map[string]*Profile
}

// NewMap returns an empty Map.
func NewMap() *Map {
	return &Map{byName: make(map[string]*Profile)}
}

// Get returns the live profile serving schedulerName, or nil.
func (m *Map) Get(schedulerName string) *Profile {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.byName[schedulerName]
}

// Set makes p the live profile for schedulerName and returns the one it replaced, if any.
func (m *Map) Set(schedulerName string, p *Profile) *Profile {
	m.mu.Lock()
	defer m.mu.Unlock()
	previous := m.byName[schedulerName]
	m.byName[schedulerName] = p
	return previous
}

// Delete removes the profile serving schedulerName and returns it, if any.
func (m *Map) Delete(schedulerName string) *Profile {
	m.mu.Lock()
	defer m.mu.Unlock()
	previous := m.byName[schedulerName]
	delete(m.byName, schedulerName)
	return previous
}

// Names returns the scheduler names served, sorted.
func (m *Map) Names() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := make([]string, 0, len(m.byName))
	for name := range m.byName {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Len returns the number of live profiles.
func (m *Map) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.byName)
}
