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
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// CompileFunc compiles a profile without installing it, as
// ProfileHost.CompileProfile does.
type CompileFunc func(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error)

// OfflineStatuses returns the status the SchedulingProfile and PluginWeight
// controllers would write, by name, for profiles and weights that are all
// the cluster holds, compiling each profile with compile instead of
// installing it. It is how `berth validate` finds what only several objects
// together get wrong: two profiles claiming one schedulerName, two weights
// on one plugin of one profile, a weight on a plugin a profile does not score with.
func OfflineStatuses(ctx context.Context, compile CompileFunc, profiles []v1alpha1.SchedulingProfile, weights []v1alpha1.PluginWeight, now metav1.Time) (map[string]v1alpha1.SchedulingProfileStatus, map[string]v1alpha1.PluginWeightStatus) {
	plan := PlanWeights(profiles, weights)
	withStatus := make(map[string]*v1alpha1.SchedulingProfile, len(profiles))
	profileStatuses := make(map[string]v1alpha1.SchedulingProfileStatus, len(profiles))
	for i := range profiles {
		p := profiles[i].DeepCopy()
		name := schedulerNameOf(p)
		out := profileOutcome{schedulerName: name}
		if isShadow(p) {
			out.shadowOf = p.Spec.ShadowOf
		}
		if owner := ownerOf(name, profiles); owner != p.Name && !isShadow(p) {
			out.servedBy = owner
		} else {
			assigned := plan.ForProfile(p.Name)
			fwk, err := compileWithWeights(ctx, compile, p, assigned)
			if err != nil {
				out.compileErr = err
			} else {
				out.live = &liveProfile{schedulerName: name, generation: p.Generation, uid: string(p.UID), weights: assigned, plugins: fwk.ListPlugins()}
			}
		}
		p.Status = profileStatus(p, out, now)
		profileStatuses[p.Name] = p.Status
		withStatus[p.Name] = p
	}
	weightStatuses := make(map[string]v1alpha1.PluginWeightStatus, len(weights))
	for i := range weights {
		pw := &weights[i]
		targets, selectorErr := plan.Targets(pw.Name)
		weightStatuses[pw.Name] = pluginWeightStatus(pw, targets, selectorErr, withStatus, now)
	}
	return profileStatuses, weightStatuses
}

// ServingProfile returns the profile among profiles that serves
// schedulerName, as the SchedulingProfile controller decides (the oldest
// claiming it), or nil when none claims it.
func ServingProfile(schedulerName string, profiles []v1alpha1.SchedulingProfile) *v1alpha1.SchedulingProfile {
	owner := ownerOf(schedulerName, profiles)
	for i := range profiles {
		if owner != "" && profiles[i].Name == owner {
			return &profiles[i]
		}
	}
	return nil
}

// SchedulerNameOf returns the schedulerName a profile claims: its
// spec.schedulerName, or else its name.
func SchedulerNameOf(p *v1alpha1.SchedulingProfile) string { return schedulerNameOf(p) }

// CompileWithWeights compiles a profile as the SchedulingProfile controller
// does before it installs it: for the schedulerName it claims, with the
// weights of the PluginWeights that apply to it among weights (resolved
// against profiles, the older PluginWeight winning a conflict).
func CompileWithWeights(ctx context.Context, compile CompileFunc, p *v1alpha1.SchedulingProfile, profiles []v1alpha1.SchedulingProfile, weights []v1alpha1.PluginWeight) (*runtime.Framework, error) {
	return compileWithWeights(ctx, compile, p, PlanWeights(profiles, weights).ForProfile(p.Name))
}

// compileWithWeights compiles p with the weight assignments given.
func compileWithWeights(ctx context.Context, compile CompileFunc, p *v1alpha1.SchedulingProfile, assigned map[string]WeightAssignment) (*runtime.Framework, error) {
	name := schedulerNameOf(p)
	if isShadow(p) {
		// A shadow serves no schedulerName; its framework is named after it.
		name = p.Name
	}
	return compile(ctx, name, &p.Spec, runtime.WithScoreWeights(scoreWeightOverrides(assigned)))
}
