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

package strategytest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// IgnoreScope compares args that inline a PodScope by their fields alone.
var IgnoreScope = cmpopts.IgnoreUnexported(strategies.PodScope{})

// LoadArgs loads raw as a strategy's New does, with args.Load, and returns
// the args, or the text of each field error when they do not validate
// (paths relative to the args), or the decoding error. It also checks that
// validating the same args under a path roots every error there.
func LoadArgs[A any, P args.Pointer[A]](t testing.TB, raw string) (*A, []string, error) {
	t.Helper()
	a, err := args.Load[A, P]("strategy Test", []byte(raw))
	var invalid *args.InvalidError
	if !errors.As(err, &invalid) {
		return a, nil, err
	}
	errs := make([]string, len(invalid.Errs))
	for i, e := range invalid.Errs {
		errs[i] = e.Error()
	}
	// The same args validated where a policy holds them.
	at := field.NewPath("spec", "strategies").Index(2).Child("args")
	b := P(new(A))
	if err := args.Decode("strategy Test", []byte(raw), b); err != nil {
		t.Fatalf("decoding %s again: %v", raw, err)
	}
	b.Default()
	var rooted []string
	for _, e := range b.Validate(at) {
		rooted = append(rooted, strings.TrimPrefix(e.Error(), at.String()+"."))
	}
	if diff := cmp.Diff(errs, rooted); diff != "" {
		t.Errorf("Validate(%s) is not Validate(nil) under %s (-nil +rooted):\n%s", raw, at, diff)
	}
	return nil, errs, nil
}

// ArgsCase is a case of a strategy's args table.
type ArgsCase[A any] struct {
	Name string
	// Args is the JSON.
	Args string
	// Want is what Args loads into, defaults applied, when they validate.
	Want *A
	// WantErrs are the field errors when they do not, paths relative to the args.
	WantErrs []string
	// WantError is part of the decoding error, when they do not decode.
	WantError string
}

// RunArgsCases loads the args of each case with LoadArgs and compares the
// outcome with the case's, args compared with opts.
func RunArgsCases[A any, P args.Pointer[A]](t *testing.T, cases []ArgsCase[A], opts ...cmp.Option) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got, errs, err := LoadArgs[A, P](t, tc.Args)
			if tc.WantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.WantError) {
					t.Fatalf("Load(%s) = %v, want a decoding error containing %q", tc.Args, err, tc.WantError)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%s): %v", tc.Args, err)
			}
			if diff := cmp.Diff(tc.WantErrs, errs); diff != "" {
				t.Errorf("Load(%s) field errors (-want +got):\n%s", tc.Args, diff)
			}
			if diff := cmp.Diff(tc.Want, got, opts...); diff != "" {
				t.Errorf("Load(%s) args (-want +got):\n%s", tc.Args, diff)
			}
		})
	}
}
