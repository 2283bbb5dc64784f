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

package defaultpreemption

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// Defaults of DefaultPreemptionArgs, as in kubescheduler.config.k8s.io/v1.
const (
	// DefaultMinCandidateNodesPercentage is the default share of nodes dry-run for candidates.
	DefaultMinCandidateNodesPercentage int32 = 10
	// DefaultMinCandidateNodesAbsolute is the default least number of candidates looked for.
	DefaultMinCandidateNodesAbsolute int32 = 100
)

// argsKind is the kind a pluginConfig entry may name.
const argsKind = "DefaultPreemptionArgs"

// DefaultPreemptionArgs are the args of DefaultPreemption.
type DefaultPreemptionArgs struct {
	metav1.TypeMeta `json:",inline"`
	// MinCandidateNodesPercentage is the least share of nodes, 0-100, to find candidates on.
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	// MinCandidateNodesAbsolute is the least number of candidate nodes to find.
	MinCandidateNodesAbsolute *int32 `json:"minCandidateNodesAbsolute,omitempty"`
}

// DefaultArgs returns the args a profile without pluginConfig gets.
func DefaultArgs() *DefaultPreemptionArgs {
	a := &DefaultPreemptionArgs{}
	a.Default()
	return a
}

// Default fills unset fields as kube-scheduler's v1 defaulting does; an
// explicit 0 stays 0.
func (a *DefaultPreemptionArgs) Default() {
	if a.MinCandidateNodesPercentage == nil {
		v := DefaultMinCandidateNodesPercentage
		a.MinCandidateNodesPercentage = &v
	}
	if a.MinCandidateNodesAbsolute == nil {
		v := DefaultMinCandidateNodesAbsolute
		a.MinCandidateNodesAbsolute = &v
	}
}

// Validate reports every problem of defaulted args, under path.
func (a *DefaultPreemptionArgs) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, argsKind)
	pct, abs := int32(0), int32(0)
	if a.MinCandidateNodesPercentage != nil {
		pct = *a.MinCandidateNodesPercentage
	}
	if a.MinCandidateNodesAbsolute != nil {
		abs = *a.MinCandidateNodesAbsolute
	}
	if pct < 0 || pct > 100 {
		errs = append(errs, field.Invalid(path.Child("minCandidateNodesPercentage"), pct, "not in valid range [0, 100]"))
	}
	if abs < 0 {
		errs = append(errs, field.Invalid(path.Child("minCandidateNodesAbsolute"), abs, "not in valid range [0, inf)"))
	}
	if pct == 0 && abs == 0 {
		errs = append(errs,
			field.Invalid(path.Child("minCandidateNodesPercentage"), pct, "cannot be zero at the same time as minCandidateNodesAbsolute"),
			field.Invalid(path.Child("minCandidateNodesAbsolute"), abs, "cannot be zero at the same time as minCandidateNodesPercentage"))
	}
	return errs
}
