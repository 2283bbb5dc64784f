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

	"github.com/berth-io/berth/scheduler/framework"
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
	HardPodAffinityWeight int32 `json:"hardPodAffinityWeight"`
	// IgnorePreferredTermsOfExistingPods skips scoring by existing pods'
	// terms when the incoming pod has no preferred pod (anti-)affinity itself.
	IgnorePreferredTermsOfExistingPods bool `json:"ignorePreferredTermsOfExistingPods,omitempty"`
}

// DefaultArgs returns the args kube-scheduler's v1 defaulting produces from empty args.
func DefaultArgs() *Args {
	return &Args{HardPodAffinityWeight: DefaultHardPodAffinityWeight}
}

// DecodeArgs strictly decodes raw JSON args over the defaults and validates
// the result; nil raw gives the defaults. An explicit hardPodAffinityWeight of
// 0 stays 0, as with upstream's pointer field.
func DecodeArgs(raw []byte) (*Args, error) {
	args := DefaultArgs()
	if err := framework.DecodeArgs(Name, raw, args); err != nil {
		return nil, err
	}
	if err := ValidateArgs(args); err != nil {
		return nil, err
	}
	return args, nil
}

// ValidateArgs checks args and reports every problem at once.
func ValidateArgs(a *Args) error {
	if a == nil {
		return fmt.Errorf("invalid args of plugin %s: %w", Name, field.Required(nil, "args are nil"))
	}
	var errs field.ErrorList
	if a.Kind != "" && a.Kind != argsKind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), a.Kind, "must be "+argsKind))
	}
	if a.APIVersion != "" {
		if gv, err := schema.ParseGroupVersion(a.APIVersion); err != nil || gv.Group != configGroup {
			errs = append(errs, field.Invalid(field.NewPath("apiVersion"), a.APIVersion, "must be in group "+configGroup))
		}
	}
	if w := a.HardPodAffinityWeight; w < MinHardPodAffinityWeight || w > MaxHardPodAffinityWeight {
		errs = append(errs, field.Invalid(field.NewPath("hardPodAffinityWeight"), w,
			fmt.Sprintf("not in valid range [%d, %d]", MinHardPodAffinityWeight, MaxHardPodAffinityWeight)))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid args of plugin %s: %w", Name, errs.ToAggregate())
}
