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
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// WeightAssignment is the PluginWeight that sets one plugin's weight in one profile.
type WeightAssignment struct {
	// PluginWeight names the winning PluginWeight object.
	PluginWeight string
	// Weight is the weight it sets.
	Weight int32
}

// WeightTarget is one profile a PluginWeight selects, and who wins there.
type WeightTarget struct {
	// Profile names the selected SchedulingProfile.
	Profile string
	// Winner names the PluginWeight that sets the plugin in Profile: the
	// PluginWeight itself, or an older one it conflicts with.
	Winner string
}

// WeightPlan says, for every profile and plugin, which PluginWeight applies,
// and for every PluginWeight, which profiles it selects. Of two PluginWeights
// on one (profile, plugin) the older wins: earlier creationTimestamp, then the
// smaller name.
type WeightPlan struct {
	byProfile   map[string]map[string]WeightAssignment
	targets     map[string][]WeightTarget
	selectorErr map[string]error
}

// PlanWeights resolves which PluginWeight applies to each (profile, plugin).
// It is pure: it reads only its arguments.
func PlanWeights(profiles []v1alpha1.SchedulingProfile, weights []v1alpha1.PluginWeight) *WeightPlan {
	plan := &WeightPlan{
		byProfile:   make(map[string]map[string]WeightAssignment),
		targets:     make(map[string][]WeightTarget, len(weights)),
		selectorErr: make(map[string]error),
	}
	ordered := make([]*v1alpha1.PluginWeight, len(weights))
	for i := range weights {
		ordered[i] = &weights[i]
	}
	slices.SortFunc(ordered, func(a, b *v1alpha1.PluginWeight) int { return olderFirst(&a.ObjectMeta, &b.ObjectMeta) })

	type key struct{ profile, plugin string }
	winners := make(map[key]string)
	for _, pw := range ordered {
		selected, err := selectedProfiles(pw, profiles)
		if err != nil {
			plan.selectorErr[pw.Name] = err
			continue
		}
		targets := make([]WeightTarget, 0, len(selected))
		for _, profile := range selected {
			k := key{profile, pw.Spec.Plugin}
			winner, taken := winners[k]
			if !taken {
				winner = pw.Name
				winners[k] = winner
				byPlugin := plan.byProfile[profile]
				if byPlugin == nil {
					byPlugin = make(map[string]WeightAssignment)
					plan.byProfile[profile] = byPlugin
				}
				byPlugin[pw.Spec.Plugin] = WeightAssignment{PluginWeight: pw.Name, Weight: pw.Spec.Weight}
			}
			targets = append(targets, WeightTarget{Profile: profile, Winner: winner})
		}
		plan.targets[pw.Name] = targets
	}
	return plan
}

// ForProfile returns the weights that apply to the profile, keyed by plugin.
func (p *WeightPlan) ForProfile(profile string) map[string]WeightAssignment {
	return p.byProfile[profile]
}

// Targets returns the profiles the PluginWeight selects, sorted by name, and
// an error when its profileSelector is invalid.
func (p *WeightPlan) Targets(pluginWeight string) ([]WeightTarget, error) {
	return p.targets[pluginWeight], p.selectorErr[pluginWeight]
}

// scoreWeightOverrides turns a profile's weight assignments into framework options.
func scoreWeightOverrides(assigned map[string]WeightAssignment) map[string]runtime.WeightOverride {
	out := make(map[string]runtime.WeightOverride, len(assigned))
	for plugin, a := range assigned {
		out[plugin] = runtime.WeightOverride{Weight: a.Weight, Source: a.PluginWeight}
	}
	return out
}

// selectedProfiles returns the names of the profiles the PluginWeight selects, sorted.
func selectedProfiles(pw *v1alpha1.PluginWeight, profiles []v1alpha1.SchedulingProfile) ([]string, error) {
	var out []string
	switch {
	case pw.Spec.ProfileRef != nil:
		for i := range profiles {
			if profiles[i].Name == pw.Spec.ProfileRef.Name {
				out = append(out, profiles[i].Name)
			}
		}
	case pw.Spec.ProfileSelector != nil:
		selector, err := metav1.LabelSelectorAsSelector(pw.Spec.ProfileSelector)
		if err != nil {
			return nil, fmt.Errorf("profileSelector is invalid: %w", err)
		}
		for i := range profiles {
			if selector.Matches(labels.Set(profiles[i].Labels)) {
				out = append(out, profiles[i].Name)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// selects reports whether the PluginWeight selects the profile, by reference
// or by label; an invalid selector selects nothing.
func selects(pw *v1alpha1.PluginWeight, profile *v1alpha1.SchedulingProfile) bool {
	switch {
	case pw.Spec.ProfileRef != nil:
		return pw.Spec.ProfileRef.Name == profile.Name
	case pw.Spec.ProfileSelector != nil:
		selector, err := metav1.LabelSelectorAsSelector(pw.Spec.ProfileSelector)
		return err == nil && selector.Matches(labels.Set(profile.Labels))
	}
	return false
}

// olderFirst orders objects by creationTimestamp, then by name.
func olderFirst(a, b *metav1.ObjectMeta) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}
