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
	"context"
	"testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

func TestWithScoreWeights(t *testing.T) {
	scorer := func(name string) framework.Plugin { return scorePlugin{&fake{name: name}} }
	filter := func(name string) framework.Plugin { return filterPlugin{&fake{name: name}} }
	r := registryOf(append(basics(), scorer("Spread"), scorer("Pack"), filter("Fit"))...)

	tests := []struct {
		name      string
		defaults  []v1alpha1.Plugin
		plugins   *v1alpha1.Plugins
		overrides map[string]WeightOverride
		want      map[string]PluginInfo // by plugin: Weight, WeightFromDefault, WeightOverride
		scores    map[string]bool
	}{
		{
			name:     "no overrides keeps default and profile weights",
			defaults: []v1alpha1.Plugin{weighted("Spread", 2), {Name: "Fit"}},
			plugins:  &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{weighted("Pack", 7)}}},
			want: map[string]PluginInfo{
				"Spread": {Weight: 2, WeightFromDefault: true},
				"Pack":   {Weight: 7},
				"Fit":    {},
			},
			scores: map[string]bool{"Spread": true, "Pack": true, "Fit": false},
		},
		{
			name:      "an override beats the default weight and names its source",
			defaults:  []v1alpha1.Plugin{weighted("Spread", 2)},
			overrides: map[string]WeightOverride{"Spread": {Weight: 9, Source: "pw-a"}},
			want:      map[string]PluginInfo{"Spread": {Weight: 9, WeightOverride: "pw-a"}},
		},
		{
			name:      "an override beats the profile's own weight",
			plugins:   &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{weighted("Pack", 7)}}},
			overrides: map[string]WeightOverride{"Pack": {Weight: 1, Source: "pw-b"}},
			want:      map[string]PluginInfo{"Pack": {Weight: 1, WeightOverride: "pw-b"}},
		},
		{
			name:      "an override of a plugin that does not score is ignored",
			defaults:  []v1alpha1.Plugin{{Name: "Fit"}},
			overrides: map[string]WeightOverride{"Fit": {Weight: 5, Source: "pw-c"}, "Absent": {Weight: 5, Source: "pw-d"}},
			want:      map[string]PluginInfo{"Fit": {}},
			scores:    map[string]bool{"Fit": false, "Absent": false},
		},
		{
			name:      "a zero override leaves the weight alone",
			defaults:  []v1alpha1.Plugin{weighted("Spread", 3)},
			overrides: map[string]WeightOverride{"Spread": {Weight: 0, Source: "pw-e"}},
			want:      map[string]PluginInfo{"Spread": {Weight: 3, WeightFromDefault: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &v1alpha1.SchedulingProfileSpec{Plugins: tt.plugins}
			f, err := NewFramework(context.Background(), r, "prof", spec,
				WithDefaultPlugins(basicsSet(tt.defaults...)), WithScoreWeights(tt.overrides))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]PluginInfo{}
			for _, pi := range f.ListPlugins() {
				got[pi.Name] = pi
			}
			for name, want := range tt.want {
				g, ok := got[name]
				if !ok {
					t.Fatalf("plugin %s not listed", name)
				}
				if g.Weight != want.Weight || g.WeightFromDefault != want.WeightFromDefault || g.WeightOverride != want.WeightOverride {
					t.Errorf("%s: weight %d fromDefault %v override %q; want %d %v %q", name,
						g.Weight, g.WeightFromDefault, g.WeightOverride, want.Weight, want.WeightFromDefault, want.WeightOverride)
				}
			}
			for name, want := range tt.scores {
				if f.Scores(name) != want {
					t.Errorf("Scores(%s) = %v, want %v", name, !want, want)
				}
			}
			// The override reaches the weights the Score run multiplies by.
			for i, pl := range f.score {
				if f.scoreWeights[i] != int64(got[pl.Name()].Weight) {
					t.Errorf("run weight of %s = %d, listed %d", pl.Name(), f.scoreWeights[i], got[pl.Name()].Weight)
				}
			}
		})
	}
}
