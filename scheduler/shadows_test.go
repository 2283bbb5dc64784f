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

package scheduler

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
)

const mostAllocated = `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`

// TestFiltersLike checks which profile changes leave a shadow's search for
// feasible nodes the live profile's, so that it may take the live cycle's.
func TestFiltersLike(t *testing.T) {
	fit := func(args string) v1alpha1.PluginConfig {
		return v1alpha1.PluginConfig{Name: "NodeResourcesFit", Args: runtimeRaw(args)}
	}
	tests := []struct {
		name string
		spec v1alpha1.SchedulingProfileSpec
		want bool
	}{
		{name: "the same profile", want: true},
		{name: "other score weights", want: true, spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NodeResourcesFit", Weight: ptr.To[int32](9)}}}}}},
		{name: "a scorer disabled", want: true, spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "ImageLocality"}}}}}},
		{name: "another scoring strategy: Fit filters alike", want: true, spec: v1alpha1.SchedulingProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{fit(mostAllocated)}}},
		{name: "resources Fit ignores", want: false, spec: v1alpha1.SchedulingProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{fit(`{"ignoredResources":["example.com/foo"]}`)}}},
		{name: "a filter disabled", want: false, spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Filter: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "TaintToleration"}}}}}},
		{name: "another share of nodes to find", want: false, spec: v1alpha1.SchedulingProfileSpec{PercentageOfNodesToScore: ptr.To[int32](100)}},
		{name: "filter args", want: false, spec: v1alpha1.SchedulingProfileSpec{PluginConfig: []v1alpha1.PluginConfig{
			{Name: "PodTopologySpread", Args: runtimeRaw(`{"defaultingType":"List"}`)}}}},
	}
	h := newHarness(t, withoutProfile())
	ctx, s := h.ctx, h.s
	live, err := s.CompileProfile(ctx, "live", &v1alpha1.SchedulingProfileSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.ShadowOf = "live"
			candidate, err := s.CompileShadow(ctx, "candidate", &spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := candidate.FiltersLike(live); got != tt.want {
				t.Errorf("FiltersLike = %v, want %v", got, tt.want)
			}
		})
	}
}
