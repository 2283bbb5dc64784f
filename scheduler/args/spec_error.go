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

package args

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SpecError is a problem with one field of a spec that names plugins or
// strategies (a SchedulingProfile's or a RebalancePolicy's), found while
// compiling it. Its text is what the object's status shows, beginning with
// the section it is about ("Filter", `initializing plugin "X"`,
// "schedule") unless the problem names it; Field says where in the spec it
// is, so that the webhook, berth validate and berth convert report a field
// path without reading the text.
type SpecError struct {
	// Kind says what the problem is, for callers that add to its message.
	Kind SpecErrorKind
	// Point is the extension point a profile's error is about, if any ("Filter").
	Point string
	// Plugin is the plugin a profile's error is about, if any.
	Plugin string
	// Strategy is the index in spec.strategies of the strategy a policy's
	// error is about; -1 when it is about none.
	Strategy int
	// Section is what the text begins with; empty when Err says it all.
	Section string
	// Err is the problem, without the section.
	Err error
	// Path is the field's path within the spec: each step a field name
	// (string) or a list index (int).
	Path []any
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
	// SpecUnknownStrategy means the strategy's name is not registered.
	SpecUnknownStrategy
	// SpecDuplicateStrategy means the strategy's name appears earlier too.
	SpecDuplicateStrategy
	// SpecInvalidArgs means the plugin's or strategy's args did not decode
	// or validate; Err wraps its error, an *InvalidError when they decoded,
	// whose field errors are relative to the args.
	SpecInvalidArgs
)

// NewSpecError returns a SpecError of kind about the field at path, about
// no strategy.
func NewSpecError(kind SpecErrorKind, section string, err error, path ...any) *SpecError {
	return &SpecError{Kind: kind, Strategy: -1, Section: section, Err: err, Path: path}
}

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
	for _, step := range e.Path {
		switch s := step.(type) {
		case int:
			p = p.Index(s)
		case string:
			p = p.Child(s)
		}
	}
	return p
}

// InvalidArgs returns the validation error of the args, whose field errors
// are relative to the args; nil unless the args decoded and did not
// validate.
func (e *SpecError) InvalidArgs() *InvalidError {
	var invalid *InvalidError
	if e.Kind == SpecInvalidArgs && errors.As(e.Err, &invalid) {
		return invalid
	}
	return nil
}

// SpecErrors returns the problems of a compile error, in the spec's order:
// each SpecError it joins, and any other error as a SpecInvalid without a
// field.
func SpecErrors(err error) []*SpecError {
	var out []*SpecError
	var walk func(error)
	walk = func(err error) {
		var se *SpecError
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				walk(e)
			}
		} else if errors.As(err, &se) {
			out = append(out, se)
		} else if err != nil {
			out = append(out, NewSpecError(SpecInvalid, "", err))
		}
	}
	walk(err)
	return out
}
