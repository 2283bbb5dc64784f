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

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
)

// SpecError is a problem with one field of a profile's spec, found while
// compiling it. Its text begins with the section it is about ("Filter",
// "pluginConfig", `initializing plugin "X"`), as status messages show it;
// Field says where in the spec it is, so that the webhook and berth
// validate report a field path without reading the text.
type SpecError struct {
	// Kind says what the problem is, for callers that add to its message.
	Kind SpecErrorKind
	// Point is the extension point the error is about, if any ("Filter").
	Point string
	// Plugin is the plugin the error is about, if any.
	Plugin string
	// Section is what the text begins with; empty when Err says it all.
	Section string
	// Err is the problem, without the section.
	Err error
	// at is the field's path within the spec: names and list indexes.
	at fieldPath
}

// SpecErrorKind is the kind of a SpecError.
type SpecErrorKind int

const (
	// SpecInvalid is any problem not of the kinds below.
	SpecInvalid SpecErrorKind = iota
	// SpecUnknownPlugin means Plugin, enabled at Point, is not registered.
	SpecUnknownPlugin
	// SpecNotImplemented means Plugin, enabled at Point, does not implement it.
	SpecNotImplemented
	// SpecInvalidArgs means Plugin's args did not decode or validate; Err
	// wraps the plugin's error, whose field errors, if any, are relative
	// to the args.
	SpecInvalidArgs
)

// Error returns the section and the problem.
func (e *SpecError) Error() string {
	if e.Section == "" {
		return e.Err.Error()
	}
	return e.Section + ": " + e.Err.Error()
}

// Unwrap returns the problem.
func (e *SpecError) Unwrap() error { return e.Err }

// Field returns the path of the field the error is about, under spec, the
// path of the spec in its object (e.g. field.NewPath("spec")).
func (e *SpecError) Field(spec *field.Path) *field.Path {
	p := spec
	for _, step := range e.at {
		switch s := step.(type) {
		case int:
			p = p.Index(s)
		case string:
			p = p.Child(s)
		}
	}
	return p
}

// fieldPath is a path within a spec: each step a field name (string) or a
// list index (int).
type fieldPath []any

// specErrorf returns a SpecError about the field at.
func specErrorf(at fieldPath, section, format string, args ...any) *SpecError {
	return &SpecError{at: at, Section: section, Err: fmt.Errorf(format, args...)}
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
