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

package noderesources

import (
	"reflect"
	"strings"
	"testing"

	"github.com/berth-io/berth/scheduler/args"
)

func TestLoadNodeResourcesFitArgsDefaults(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want ScoringStrategy
	}{
		{"no args", ``, ScoringStrategy{Type: LeastAllocated, Resources: defaultResources()}},
		{"strategy without resources", `{"scoringStrategy":{"type":"MostAllocated"}}`,
			ScoringStrategy{Type: MostAllocated, Resources: defaultResources()}},
		{"zero weight becomes 1", `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu"},{"name":"memory","weight":3}]}}`,
			ScoringStrategy{Type: MostAllocated, Resources: []ResourceSpec{{"cpu", 1}, {"memory", 3}}}},
		{"ratio", `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}`,
			ScoringStrategy{Type: RequestedToCapacityRatio, Resources: defaultResources(),
				RequestedToCapacityRatio: &RequestedToCapacityRatioParam{Shape: []UtilizationShapePoint{{0, 0}, {100, 10}}}}},
		{"kind and apiVersion accepted", `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"NodeResourcesFitArgs"}`,
			ScoringStrategy{Type: LeastAllocated, Resources: defaultResources()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := args.Load[NodeResourcesFitArgs]("plugin "+FitName, []byte(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got.ScoringStrategy, tt.want) {
				t.Errorf("strategy = %+v, want %+v", *got.ScoringStrategy, tt.want)
			}
		})
	}
}

func TestLoadNodeResourcesFitArgsErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // every fragment must appear in the one error
	}{
		{"unknown field", `{"ignoredResource":["x"]}`, []string{"unknown field"}},
		{"all errors collected", `{"ignoredResources":["bad name!"],"ignoredResourceGroups":["a/b"],` +
			`"scoringStrategy":{"type":"Bogus","resources":[{"name":"cpu","weight":101},{"name":"memory","weight":-1}]}}`,
			[]string{"ignoredResources[0]", "ignoredResourceGroups[0]: Invalid value: \"a/b\"", `scoringStrategy.type: Unsupported value: "Bogus"`,
				"scoringStrategy.resources[0].weight", "scoringStrategy.resources[1].weight", "not in valid range (0, 100]"}},
		{"ratio without shape param", `{"scoringStrategy":{"type":"RequestedToCapacityRatio"}}`,
			[]string{"scoringStrategy.requestedToCapacityRatio: Required value"}},
		{"ratio with empty shape", `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{}}}`,
			[]string{"scoringStrategy.requestedToCapacityRatio.shape: Required value"}},
		{"bad shape", `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":` +
			`[{"utilization":50,"score":11},{"utilization":40,"score":-1},{"utilization":101,"score":5}]}}}`,
			[]string{"shape[1].utilization: Invalid value: 40: values must be sorted in increasing order",
				"shape[0].score: Invalid value: 11: not in valid range [0, 10]", "shape[1].score", "shape[2].utilization: Invalid value: 101"}},
		{"shape with another strategy", `{"scoringStrategy":{"type":"LeastAllocated","requestedToCapacityRatio":{"shape":[{"utilization":1,"score":1}]}}}`,
			[]string{"scoringStrategy.requestedToCapacityRatio: Forbidden"}},
		{"wrong kind", `{"kind":"NodeAffinityArgs"}`, []string{"kind: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := args.Load[NodeResourcesFitArgs]("plugin "+FitName, []byte(tt.raw))
			if err == nil {
				t.Fatal("want error")
			}
			for _, frag := range tt.want {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q lacks %q", err, frag)
				}
			}
		})
	}
}

func TestLoadNodeResourcesBalancedAllocationArgs(t *testing.T) {
	got, err := args.Load[NodeResourcesBalancedAllocationArgs]("plugin "+BalancedAllocationName, nil)
	if err != nil || !reflect.DeepEqual(got.Resources, defaultResources()) {
		t.Fatalf("defaults = %+v, %v", got, err)
	}
	got, err = args.Load[NodeResourcesBalancedAllocationArgs]("plugin "+BalancedAllocationName, []byte(`{"resources":[{"name":"cpu"},{"name":"example.com/gpu"}]}`))
	if err != nil || !reflect.DeepEqual(got.Resources, []ResourceSpec{{"cpu", 1}, {"example.com/gpu", 1}}) {
		t.Fatalf("weights defaulted = %+v, %v", got, err)
	}
	_, err = args.Load[NodeResourcesBalancedAllocationArgs]("plugin "+BalancedAllocationName, []byte(`{"resources":[{"name":"cpu","weight":2},{"name":"cpu"}]}`))
	if err == nil {
		t.Fatal("want error")
	}
	for _, frag := range []string{"resources[0].weight: Invalid value: 2: must be 1", `resources[1].name: Duplicate value: "cpu"`} {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("error %q lacks %q", err, frag)
		}
	}
}
