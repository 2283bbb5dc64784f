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

package rebalance

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// SpecError is a problem with one field of a RebalancePolicy's spec, found
// while compiling it. Its text is what the policy's status shows, beginning
// with the section it is about ("schedule", "evictor.minPodAge") unless the
// problem names it (`invalid args of strategy PodLifeTime: ...`); Field
// says where in the spec it is, so that berth validate and berth convert
// report a field path without reading the text.
type SpecError struct {
	// Kind says what the problem is.
	Kind SpecErrorKind
	// Strategy is the index in spec.strategies of the strategy the error
	// is about; -1 when it is about none.
	Strategy int
	// Section is what the text begins with; empty when Err says it all.
	Section string
	// Err is the problem, without the section.
	Err error
	// at is the field's path within the spec: names and list indexes.
	at []any
}

// SpecErrorKind is the kind of a SpecError.
type SpecErrorKind int

const (
	// SpecInvalid is any problem not of the kinds below.
	SpecInvalid SpecErrorKind = iota
	// SpecUnknownStrategy means the strategy's name is not registered.
	SpecUnknownStrategy
	// SpecDuplicateStrategy means the strategy's name appears earlier too.
	SpecDuplicateStrategy
	// SpecInvalidArgs means the strategy's args did not decode or validate;
	// Err is the strategy's error, an *args.InvalidError when they decoded,
	// whose field errors are relative to the args.
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
// path of the spec in its object (e.g. field.NewPath("spec")): for a
// strategy's args, spec.strategies[i].args.
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

// InvalidArgs returns the validation error of the strategy's args, whose
// field errors are relative to the args; nil unless the args decoded and
// did not validate.
func (e *SpecError) InvalidArgs() *args.InvalidError {
	var invalid *args.InvalidError
	if e.Kind == SpecInvalidArgs && errors.As(e.Err, &invalid) {
		return invalid
	}
	return nil
}

// SpecErrors returns the problems of an error ValidateSpec or a
// Rebalancer's SetPolicy or Validate returned, in the spec's order.
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
			out = append(out, &SpecError{Strategy: -1, Err: err})
		}
	}
	walk(err)
	return out
}

// specError returns a SpecError about the field at, not about a strategy.
func specError(section string, err error, at ...any) *SpecError {
	return &SpecError{Strategy: -1, Section: section, Err: err, at: at}
}

// strategyError returns a SpecError about the field name of strategy i.
func strategyError(kind SpecErrorKind, i int, err error, name string) *SpecError {
	return &SpecError{Kind: kind, Strategy: i, Err: err, at: []any{"strategies", i, name}}
}
