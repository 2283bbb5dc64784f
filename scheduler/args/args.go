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

// Package args is the one contract of the arguments of scheduling plugins
// and rebalance strategies. Every plugin and strategy that takes arguments
// gives them a type implementing Args; Load turns a profile's or a policy's
// raw JSON into that type, always in the same order: decoded strictly into a
// zero value, then defaulted, then validated. A field whose explicit zero
// must survive defaulting is a pointer, so that Default can tell it from
// unset; a plain field's zero reads as unset.
package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Args is implemented by the pointer to every args type.
type Args interface {
	// Default fills the fields the JSON left unset.
	Default()
	// Validate reports every problem of defaulted args, each with its field
	// path under path (nil for the args themselves).
	Validate(path *field.Path) field.ErrorList
}

// Pointer constrains Load's second type parameter to *A implementing Args.
type Pointer[A any] interface {
	*A
	Args
}

// None is the args type of a plugin or strategy that takes no arguments:
// only nothing, null or an empty object decodes into it.
type None struct{}

// Default does nothing: None has no fields.
func (*None) Default() {}

// Validate reports nothing: None has no fields.
func (*None) Validate(*field.Path) field.ErrorList { return nil }

// InvalidError is returned by Load for args that decoded but did not
// validate. Its field errors' paths are relative to the args, so a caller
// that knows where the args sit (spec.pluginConfig[2].args) can root them.
type InvalidError struct {
	// Owner names whose args they are, e.g. `plugin NodeResourcesFit`.
	Owner string
	// Errs are the problems, with paths relative to the args.
	Errs field.ErrorList
}

// Error names the owner and lists every problem.
func (e *InvalidError) Error() string {
	return "invalid args of " + e.Owner + ": " + e.Errs.ToAggregate().Error()
}

// Under returns the field errors rooted at at, the path of the args in
// their object (spec.pluginConfig[2].args): scoringStrategy.type becomes
// spec.pluginConfig[2].args.scoringStrategy.type, a key of args that are a
// map is appended as is, and an error about the args as a whole is at at.
// The errors of e are left unchanged.
func (e *InvalidError) Under(at *field.Path) field.ErrorList {
	out := make(field.ErrorList, 0, len(e.Errs))
	for _, fe := range e.Errs {
		rooted := *fe
		rooted.Field = at.String()
		switch {
		case fe.Field == "" || fe.Field == "<nil>":
		case strings.HasPrefix(fe.Field, "["):
			rooted.Field += fe.Field
		default:
			rooted.Field += "." + fe.Field
		}
		out = append(out, &rooted)
	}
	return out
}

// Load decodes raw strictly into a new A, applies A's defaults and validates
// the result. owner names whose args they are in errors (`plugin X`,
// `strategy Y`). Nothing, null and an empty object give the defaults.
func Load[A any, P Pointer[A]](owner string, raw []byte) (*A, error) {
	a := P(new(A))
	if err := Decode(owner, raw, a); err != nil {
		return nil, err
	}
	a.Default()
	if errs := a.Validate(nil); len(errs) > 0 {
		return nil, &InvalidError{Owner: owner, Errs: errs}
	}
	return (*A)(a), nil
}

// Decode decodes raw into out strictly: an unknown field or trailing data
// is an error, so a typo in a profile is reported rather than ignored.
// Nothing and null leave out untouched. Load is the way to read args;
// Decode is for the few callers that only need the JSON's shape.
func Decode(owner string, raw []byte, out any) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decoding args of %s: %w", owner, err)
	}
	if dec.More() {
		return fmt.Errorf("decoding args of %s: %w", owner, errTrailing)
	}
	return nil
}

var errTrailing = errors.New("trailing data after the args object")

// Kind reports a kind field that names another type than want; an empty
// kind is accepted, as kube-scheduler's configuration accepts it.
func Kind(path *field.Path, kind, want string) field.ErrorList {
	if kind != "" && kind != want {
		return field.ErrorList{field.Invalid(path.Child("kind"), kind, "must be "+want)}
	}
	return nil
}
