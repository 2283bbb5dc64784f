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

package controllers

import (
	"maps"
	"slices"
	"testing"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPlanWeights(t *testing.T) {
	profiles := []v1alpha1.SchedulingProfile{
		*st.Profile("pack").Created(t0).Label("team", "a").Obj(),
		*st.Profile("spread").Created(t0).Label("team", "a").Obj(),
		*st.Profile("other").Created(t0).Label("team", "b").Obj(),
	}
	tests := []struct {
		name        string
		weights     []v1alpha1.PluginWeight
		wantProfile map[string]map[string]WeightAssignment
		wantTargets map[string][]WeightTarget
		wantErr     []string // weights whose selector is invalid
	}{
		{
			name:    "a reference selects one profile",
			weights: []v1alpha1.PluginWeight{*st.PluginWeight("w", "Fit", 5).Created(t0).Profile("pack").Obj()},
			wantProfile: map[string]map[string]WeightAssignment{
				"pack": {"Fit": {PluginWeight: "w", Weight: 5}},
			},
			wantTargets: map[string][]WeightTarget{"w": {{Profile: "pack", Winner: "w"}}},
		},
		{
			name:    "a selector selects by label",
			weights: []v1alpha1.PluginWeight{*st.PluginWeight("w", "Fit", 5).Created(t0).ProfileSelector(st.Selector("team", "a")).Obj()},
			wantProfile: map[string]map[string]WeightAssignment{
				"pack":   {"Fit": {PluginWeight: "w", Weight: 5}},
				"spread": {"Fit": {PluginWeight: "w", Weight: 5}},
			},
			wantTargets: map[string][]WeightTarget{"w": {{Profile: "pack", Winner: "w"}, {Profile: "spread", Winner: "w"}}},
		},
		{
			name: "the older of two on one plugin wins, whatever the list order",
			weights: []v1alpha1.PluginWeight{
				*st.PluginWeight("young", "Fit", 9).Created(t0).Created(minutes(5)).Profile("pack").Obj(),
				*st.PluginWeight("old", "Fit", 2).Created(t0).Created(minutes(1)).ProfileSelector(st.Selector("team", "a")).Obj(),
			},
			wantProfile: map[string]map[string]WeightAssignment{
				"pack":   {"Fit": {PluginWeight: "old", Weight: 2}},
				"spread": {"Fit": {PluginWeight: "old", Weight: 2}},
			},
			wantTargets: map[string][]WeightTarget{
				"old":   {{Profile: "pack", Winner: "old"}, {Profile: "spread", Winner: "old"}},
				"young": {{Profile: "pack", Winner: "old"}},
			},
		},
		{
			name: "same age: the smaller name wins",
			weights: []v1alpha1.PluginWeight{
				*st.PluginWeight("b", "Fit", 9).Created(t0).Profile("pack").Obj(),
				*st.PluginWeight("a", "Fit", 2).Created(t0).Profile("pack").Obj(),
			},
			wantProfile: map[string]map[string]WeightAssignment{"pack": {"Fit": {PluginWeight: "a", Weight: 2}}},
			wantTargets: map[string][]WeightTarget{
				"a": {{Profile: "pack", Winner: "a"}},
				"b": {{Profile: "pack", Winner: "a"}},
			},
		},
		{
			name: "different plugins do not conflict",
			weights: []v1alpha1.PluginWeight{
				*st.PluginWeight("fit", "Fit", 3).Created(t0).Profile("pack").Obj(),
				*st.PluginWeight("aff", "InterPodAffinity", 7).Created(t0).Created(minutes(9)).Profile("pack").Obj(),
			},
			wantProfile: map[string]map[string]WeightAssignment{"pack": {
				"Fit": {PluginWeight: "fit", Weight: 3}, "InterPodAffinity": {PluginWeight: "aff", Weight: 7},
			}},
			wantTargets: map[string][]WeightTarget{
				"fit": {{Profile: "pack", Winner: "fit"}},
				"aff": {{Profile: "pack", Winner: "aff"}},
			},
		},
		{
			name: "no matching profile, and an invalid selector",
			weights: []v1alpha1.PluginWeight{
				*st.PluginWeight("gone", "Fit", 3).Created(t0).Profile("missing").Obj(),
				*st.PluginWeight("nobody", "Fit", 3).Created(t0).ProfileSelector(st.Selector("team", "z")).Obj(),
				*st.PluginWeight("bad", "Fit", 3).Created(t0).ProfileSelector(badSelector).Obj(),
			},
			wantProfile: map[string]map[string]WeightAssignment{},
			wantTargets: map[string][]WeightTarget{"gone": nil, "nobody": nil, "bad": nil},
			wantErr:     []string{"bad"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := PlanWeights(profiles, tt.weights)
			for _, p := range profiles {
				if got, want := plan.ForProfile(p.Name), tt.wantProfile[p.Name]; !maps.Equal(got, want) {
					t.Errorf("ForProfile(%s) = %v, want %v", p.Name, got, want)
				}
			}
			for name, want := range tt.wantTargets {
				got, err := plan.Targets(name)
				if !slices.Equal(got, want) {
					t.Errorf("Targets(%s) = %v, want %v", name, got, want)
				}
				if wantErr := slices.Contains(tt.wantErr, name); (err != nil) != wantErr {
					t.Errorf("Targets(%s) error = %v, want error %v", name, err, wantErr)
				}
			}
		})
	}
}

func TestOwnerOf(t *testing.T) {
	tests := []struct {
		name     string
		profiles []v1alpha1.SchedulingProfile
		want     string
	}{
		{name: "nobody claims it", profiles: []v1alpha1.SchedulingProfile{*st.Profile("x").Created(t0).Obj()}, want: ""},
		{name: "metadata.name is the default", profiles: []v1alpha1.SchedulingProfile{*st.Profile("sched").Created(t0).Obj()}, want: "sched"},
		{
			name: "the older claimant owns it",
			profiles: []v1alpha1.SchedulingProfile{
				*st.Profile("new").Created(t0).Created(minutes(2)).SchedulerName("sched").Obj(),
				*st.Profile("old").Created(t0).Created(minutes(1)).SchedulerName("sched").Obj(),
			},
			want: "old",
		},
		{
			name: "same age: the smaller name owns it",
			profiles: []v1alpha1.SchedulingProfile{
				*st.Profile("sched").Created(t0).Obj(),
				*st.Profile("another").Created(t0).SchedulerName("sched").Obj(),
			},
			want: "another",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ownerOf("sched", tt.profiles); got != tt.want {
				t.Errorf("ownerOf = %q, want %q", got, tt.want)
			}
		})
	}
}
