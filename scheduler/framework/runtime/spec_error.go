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

package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
)

// fieldPath is a path within a spec: each step a field name (string) or a
// list index (int).
type fieldPath = []any

// specErrorf returns a SpecError about the field at.
func specErrorf(at fieldPath, section, format string, a ...any) *args.SpecError {
	return args.NewSpecError(args.SpecInvalid, section, fmt.Errorf(format, a...), at...)
}

// pointField returns the path of an extension point's set in the spec,
// e.g. plugins.filter for "Filter".
func pointField(point string) fieldPath {
	return fieldPath{"plugins", strings.ToLower(point[:1]) + point[1:]}
}

// enabledField returns the path of plugin's entry in the profile's own
// enabled list at point, or of the point's set when the profile does not
// name it there (it comes from the defaults).
func enabledField(user *v1alpha1.Plugins, point, plugin string) fieldPath {
	path := pointField(point)
	var set *v1alpha1.PluginSet
	if point == "MultiPoint" {
		set = user.MultiPoint
	} else {
		for _, ep := range extensionPoints() {
			if ep.name == point {
				set = ep.set(user)
			}
		}
	}
	if set == nil {
		return path
	}
	if i := slices.IndexFunc(set.Enabled, func(p v1alpha1.Plugin) bool { return p.Name == plugin }); i >= 0 {
		return append(path, "enabled", i, "name")
	}
	return path
}

// pluginConfigField returns the path of plugin's args in the spec's
// pluginConfig, or of the plugins when it has none there.
func pluginConfigField(spec *v1alpha1.SchedulingProfileSpec, plugin string) fieldPath {
	if i := slices.IndexFunc(spec.PluginConfig, func(pc v1alpha1.PluginConfig) bool { return pc.Name == plugin }); i >= 0 {
		return fieldPath{"pluginConfig", i, "args"}
	}
	return fieldPath{"plugins"}
}
