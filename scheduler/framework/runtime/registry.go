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
