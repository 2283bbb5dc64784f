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

package volumebinding

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/args"
)

func TestLoadArgs(t *testing.T) {
	tests := []struct {
		name        string
		raw         string
		wantTimeout int64
		wantShape   []UtilizationShapePoint
		wantErrs    []string
	}{
		{name: "none", wantTimeout: 600, wantShape: defaultShape()},
		{name: "empty object", raw: `{}`, wantTimeout: 600, wantShape: defaultShape()},
		{name: "explicit zero timeout stays", raw: `{"bindTimeoutSeconds": 0}`, wantTimeout: 0, wantShape: defaultShape()},
		{name: "empty shape is defaulted", raw: `{"shape": []}`, wantTimeout: 600, wantShape: defaultShape()},
		{name: "custom shape", raw: `{"bindTimeoutSeconds": 30, "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}`,
			wantTimeout: 30, wantShape: []UtilizationShapePoint{{0, 0}, {100, 10}}},
		{name: "unknown field", raw: `{"bindTimeout": 3}`, wantErrs: []string{`unknown field "bindTimeout"`}},
		{name: "several problems at once",
			raw: `{"kind": "Other", "bindTimeoutSeconds": -1, "shape": [{"utilization": 50, "score": 11}, {"utilization": 40, "score": -1}, {"utilization": 101, "score": 0}]}`,
			wantErrs: []string{
				"kind: Invalid value",
				"bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value",
				"shape[1].utilization: Invalid value: 40: values must be sorted in increasing order",
				"shape[0].score: Invalid value: 11: not in valid range [0, 10]",
				"shape[1].score: Invalid value: -1: not in valid range [0, 10]",
				"shape[2].utilization: Invalid value: 101: not in valid range [0, 100]",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var raw []byte
			if tc.raw != "" {
				raw = []byte(tc.raw)
			}
			got, err := args.Load[VolumeBindingArgs]("plugin "+Name, raw)
			if len(tc.wantErrs) > 0 {
				if err == nil {
					t.Fatal("no error")
				}
				for _, want := range tc.wantErrs {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q lacks %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *got.BindTimeoutSeconds != tc.wantTimeout || !slices.Equal(got.Shape, tc.wantShape) {
				t.Errorf("args = %+v, want timeout %d shape %v", got, tc.wantTimeout, tc.wantShape)
			}
		})
	}
}

func TestValidateArgsRequiresShape(t *testing.T) {
	errs := (&VolumeBindingArgs{BindTimeoutSeconds: ptr.To[int64](1)}).Validate(nil)
	if err := errs.ToAggregate(); err == nil || !strings.Contains(err.Error(), "shape: Required value: at least one point must be specified") {
		t.Fatalf("Validate without shape = %v", err)
	}
	if errs := DefaultArgs().Validate(nil); len(errs) > 0 {
		t.Fatalf("DefaultArgs invalid: %v", errs)
	}
	if d := DefaultArgs(); *d.BindTimeoutSeconds != DefaultBindTimeoutSeconds || len(d.Shape) != 2 {
		t.Fatalf("DefaultArgs = %+v", d)
	}
}
