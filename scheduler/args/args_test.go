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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// sampleArgs has a defaulted pointer (explicit 0 kept), a defaulted string
// and a validated range.
type sampleArgs struct {
	Kind  string `json:"kind,omitempty"`
	Count *int32 `json:"count,omitempty"`
	Mode  string `json:"mode,omitempty"`
}

func (a *sampleArgs) Default() {
	if a.Count == nil {
		a.Count = ptr.To[int32](3)
	}
	if a.Mode == "" {
		a.Mode = "fast"
	}
}

func (a *sampleArgs) Validate(path *field.Path) field.ErrorList {
	errs := Kind(path, a.Kind, "SampleArgs")
	if *a.Count < 0 || *a.Count > 10 {
		errs = append(errs, field.Invalid(path.Child("count"), *a.Count, "not in valid range [0, 10]"))
	}
	if a.Mode != "fast" && a.Mode != "slow" {
		errs = append(errs, field.NotSupported(path.Child("mode"), a.Mode, []string{"fast", "slow"}))
	}
	return errs
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		want       *sampleArgs
		wantErr    string   // a fragment of the error, for errors that are not field errors
		wantFields []string // the invalid fields, relative to the args
	}{
		{name: "nothing gives the defaults", raw: ``, want: &sampleArgs{Count: ptr.To[int32](3), Mode: "fast"}},
		{name: "null gives the defaults", raw: `null`, want: &sampleArgs{Count: ptr.To[int32](3), Mode: "fast"}},
		{name: "an empty object gives the defaults", raw: ` {} `, want: &sampleArgs{Count: ptr.To[int32](3), Mode: "fast"}},
		{name: "an explicit zero is kept", raw: `{"count":0}`, want: &sampleArgs{Count: ptr.To[int32](0), Mode: "fast"}},
		{name: "set fields are kept", raw: `{"kind":"SampleArgs","count":7,"mode":"slow"}`,
			want: &sampleArgs{Kind: "SampleArgs", Count: ptr.To[int32](7), Mode: "slow"}},
		{name: "an unknown field is refused", raw: `{"cuont":1}`, wantErr: `decoding args of plugin Sample: json: unknown field "cuont"`},
		{name: "a wrong type is refused", raw: `{"count":"many"}`, wantErr: "decoding args of plugin Sample: json: cannot unmarshal"},
		{name: "trailing data is refused", raw: `{"count":1} {}`, wantErr: "decoding args of plugin Sample: trailing data after the args object"},
		{name: "every invalid field, validated after defaulting", raw: `{"kind":"Other","count":11,"mode":"warp"}`,
			wantFields: []string{"kind", "count", "mode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load[sampleArgs]("plugin Sample", []byte(tt.raw))
			var invalid *InvalidError
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				if errors.As(err, &invalid) {
					t.Errorf("a decoding error is an InvalidError: %v", err)
				}
			case tt.wantFields != nil:
				if !errors.As(err, &invalid) {
					t.Fatalf("err = %v (%T), want an *InvalidError", err, err)
				}
				var fields []string
				for _, e := range invalid.Errs {
					fields = append(fields, e.Field)
				}
				if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
					t.Errorf("invalid fields (-want +got):\n%s", diff)
				}
				if !strings.HasPrefix(err.Error(), "invalid args of plugin Sample: ") {
					t.Errorf("err = %q, want it to name the plugin", err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestNone(t *testing.T) {
	for _, raw := range []string{``, `null`, `{}`} {
		if _, err := Load[None]("plugin NoArgs", []byte(raw)); err != nil {
			t.Errorf("Load(%q) = %v, want no error", raw, err)
		}
	}
	if _, err := Load[None]("plugin NoArgs", []byte(`{"weight":1}`)); err == nil ||
		err.Error() != `decoding args of plugin NoArgs: json: unknown field "weight"` {
		t.Errorf("an argument to a plugin that takes none: err = %v", err)
	}
}

func TestInvalidErrorUnder(t *testing.T) {
	invalid := &InvalidError{Owner: "strategy X", Errs: field.ErrorList{
		field.Invalid(field.NewPath("a", "b"), 1, "bad"),
		field.Invalid(nil, field.OmitValueType{}, "bad as a whole"),
		// A key at the root, as args of a map type would have.
		{Type: field.ErrorTypeRequired, Field: "[k]"},
	}}
	var got []string
	for _, e := range invalid.Under(field.NewPath("spec", "strategies").Index(3).Child("args")) {
		got = append(got, e.Error())
	}
	want := []string{
		"spec.strategies[3].args.a.b: Invalid value: 1: bad",
		"spec.strategies[3].args: Invalid value: bad as a whole",
		"spec.strategies[3].args[k]: Required value",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Under (-want +got):\n%s", diff)
	}
	if invalid.Errs[0].Field != "a.b" {
		t.Errorf("Under changed the args' errors: %q", invalid.Errs[0].Field)
	}
}
