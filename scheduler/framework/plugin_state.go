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

import "sync"

// SharedPluginState holds what a plugin keeps for the whole scheduler rather
// than for one framework. The scheduler hands the same one to every profile
// and every generation of it, so a profile swap does not forget, and two
// profiles do not each keep their own copy of, state such as the devices
// DynamicResources has allocated but not yet written.
type SharedPluginState struct {
	mu     sync.Mutex
	values map[string]any
}

// NewSharedPluginState returns an empty store.
func NewSharedPluginState() *SharedPluginState {
	return &SharedPluginState{values: make(map[string]any)}
}

// LoadOrStore returns the value stored under key, storing the one newValue
// returns on first use. Keys are plugin names, or start with one.
func (s *SharedPluginState) LoadOrStore(key string, newValue func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v
	}
	v := newValue()
	s.values[key] = v
	return v
}

// Load returns the value stored under key, and whether there is one.
func (s *SharedPluginState) Load(key string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[key]
	return v, ok
}
