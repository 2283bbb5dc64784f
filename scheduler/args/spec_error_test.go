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
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSpecError(t *testing.T) {
	invalid := &InvalidError{Owner: "plugin X", Errs: field.ErrorList{field.Required(field.NewPath("a"), "")}}
	tests := []struct {
		name        string
		err         error
		wantText    []string
		wantField   []string
		wantKind    []SpecErrorKind
		wantInvalid []bool
	}{
		{
			name:      "a section and a path with an index",
			err:       NewSpecError(SpecInvalid, "Filter", errors.New("unknown plugin"), "plugins", "filter", "enabled", 1, "name"),
			wantText:  []string{"Filter: unknown plugin"},
			wantField: []string{"spec.plugins.filter.enabled[1].name"},
			wantKind:  []SpecErrorKind{SpecInvalid}, wantInvalid: []bool{false},
		},
		{
			name: "joined and wrapped, args that did not validate first",
			err: errors.Join(
				fmt.Errorf("compiling: %w", NewSpecError(SpecInvalidArgs, "", invalid, "strategies", 0, "args")),
				NewSpecError(SpecDuplicateStrategy, "", errors.New("twice"), "strategies", 1, "name")),
			wantText:  []string{invalid.Error(), "twice"},
			wantField: []string{"spec.strategies[0].args", "spec.strategies[1].name"},
			wantKind:  []SpecErrorKind{SpecInvalidArgs, SpecDuplicateStrategy}, wantInvalid: []bool{true, false},
		},
		{
			name:      "an error that is no SpecError is about the spec",
			err:       errors.New("boom"),
			wantText:  []string{"boom"},
			wantField: []string{"spec"},
			wantKind:  []SpecErrorKind{SpecInvalid}, wantInvalid: []bool{false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SpecErrors(tt.err)
			if len(got) != len(tt.wantText) {
				t.Fatalf("SpecErrors = %v, want %d errors", got, len(tt.wantText))
			}
			for i, se := range got {
				if se.Error() != tt.wantText[i] {
					t.Errorf("[%d] Error() = %q, want %q", i, se.Error(), tt.wantText[i])
				}
				if f := se.Field(field.NewPath("spec")).String(); f != tt.wantField[i] {
					t.Errorf("[%d] Field = %s, want %s", i, f, tt.wantField[i])
				}
				if se.Kind != tt.wantKind[i] {
					t.Errorf("[%d] Kind = %v, want %v", i, se.Kind, tt.wantKind[i])
				}
				if (se.InvalidArgs() != nil) != tt.wantInvalid[i] {
					t.Errorf("[%d] InvalidArgs = %v", i, se.InvalidArgs())
				}
				if !errors.Is(se, se.Err) {
					t.Errorf("[%d] does not unwrap to its problem", i)
				}
			}
		})
	}
}
