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

// Package removepodsviolatingtopologyspreadconstraint evens out the
// topology domains of pods' spread constraints, as the descheduler's
// RemovePodsViolatingTopologySpreadConstraint plugin: for every constraint
// whose skew exceeds maxSkew it evicts pods from the fullest domains so that
// the scheduler can place them in the emptiest.
package removepodsviolatingtopologyspreadconstraint

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemovePodsViolatingTopologySpreadConstraint"

// Args are the strategy's arguments.
type Args struct {
	// PodScope limits the constraints to the pods' namespaces and the
	// evicted pods to those the label selector matches.
	strategies.PodScope `json:",inline"`
	// Constraints lists the whenUnsatisfiable values whose constraints are
	// balanced; by default DoNotSchedule only.
	Constraints []v1.UnsatisfiableConstraintAction `json:"constraints,omitempty"`
	// TopologyBalanceNodeFit, by default true, evicts a pod only when some
	// node outside its domain could run it.
	TopologyBalanceNodeFit *bool `json:"topologyBalanceNodeFit,omitempty"`
}

// Default fills the unset arguments: an empty list of constraints is
// DoNotSchedule, as unset.
func (a *Args) Default() {
	if len(a.Constraints) == 0 {
		a.Constraints = []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule}
	}
	if a.TopologyBalanceNodeFit == nil {
		fit := true
		a.TopologyBalanceNodeFit = &fit
	}
}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.PodScope.Validate(path)
	for i, c := range a.Constraints {
		if c != v1.DoNotSchedule && c != v1.ScheduleAnyway {
			errs = append(errs, field.Invalid(path.Child("constraints").Index(i), c,
				fmt.Sprintf("is neither %s nor %s", v1.DoNotSchedule, v1.ScheduleAnyway)))
		}
	}
	return errs
}
