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

// Package runtime runs a profile's plugins at each extension point of the
// scheduling framework: it builds a Framework from a SchedulingProfileSpec
// and a Registry of plugin factories, and drives Filter and Score in
// parallel over nodes.
package runtime

import (
	"fmt"

	"github.com/berth-io/berth/scheduler/framework"
)

// Registry maps plugin names to the factories that build them.
type Registry map[string]framework.PluginFactory

// Register adds a factory; a name already registered is an error.
func (r Registry) Register(name string, f framework.PluginFactory) error {
	if _, ok := r[name]; ok {
		return fmt.Errorf("plugin %q is already registered", name)
	}
	r[name] = f
	return nil
}

// Merge registers every factory of other; any name already present is an error
// and leaves r unchanged.
func (r Registry) Merge(other Registry) error {
	for name := range other {
		if _, ok := r[name]; ok {
			return fmt.Errorf("plugin %q is already registered", name)
		}
	}
	for name, f := range other {
		r[name] = f
	}
	return nil
}
