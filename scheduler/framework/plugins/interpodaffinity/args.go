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

package interpodaffinity

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// Bounds and default of Args.HardPodAffinityWeight, as in kubescheduler.config.k8s.io/v1.
const (
	// MinHardPodAffinityWeight is the lowest valid HardPodAffinityWeight.
	MinHardPodAffinityWeight int32 = 0
	// MaxHardPodAffinityWeight is the highest valid HardPodAffinityWeight.
	MaxHardPodAffinityWeight int32 = 100
	// DefaultHardPodAffinityWeight is the HardPodAffinityWeight when args leave it unset.
	DefaultHardPodAffinityWeight int32 = 1
)

const (
	argsKind    = "InterPodAffinityArgs"
	configGroup = "kubescheduler.config.k8s.io"
)

// Args are the args of InterPodAffinity, as InterPodAffinityArgs in kubescheduler.config.k8s.io/v1.
type Args struct {
	metav1.TypeMeta `json:",inline"`
	// HardPodAffinityWeight is the score weight of an existing pod's required
	// affinity term that the incoming pod matches; 0 turns that scoring off.
	HardPodAffinityWeight *int32 `json:"hardPodAffinityWeight,omitempty"`
	// IgnorePreferredTermsOfExistingPods skips scoring by existing pods'
	// terms when the incoming pod has no preferred pod (anti-)affinity itself.
	IgnorePreferredTermsOfExistingPods bool `json:"ignorePreferredTermsOfExistingPods,omitempty"`
}

// DefaultArgs returns the args a profile without pluginConfig gets.
func DefaultArgs() *Args {
	a := &Args{}
	a.Default()
	return a
}

// Default sets the hard affinity weight when none is given; an explicit 0
// stays 0, as in kube-scheduler.
func (a *Args) Default() {
	if a.HardPodAffinityWeight == nil {
		w := DefaultHardPodAffinityWeight
		a.HardPodAffinityWeight = &w
	}
}

// Validate reports every problem of defaulted args, under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, argsKind)
	if a.APIVersion != "" {
		if gv, err := schema.ParseGroupVersion(a.APIVersion); err != nil || gv.Group != configGroup {
			errs = append(errs, field.Invalid(path.Child("apiVersion"), a.APIVersion, "must be in group "+configGroup))
		}
	}
	wp := path.Child("hardPodAffinityWeight")
	switch w := a.HardPodAffinityWeight; {
	case w == nil:
		errs = append(errs, field.Required(wp, "must be set"))
	case *w < MinHardPodAffinityWeight || *w > MaxHardPodAffinityWeight:
		errs = append(errs, field.Invalid(wp, *w,
			fmt.Sprintf("not in valid range [%d, %d]", MinHardPodAffinityWeight, MaxHardPodAffinityWeight)))
	}
	return errs
}
