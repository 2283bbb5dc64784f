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

package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// ValidateRebalancePolicySpec returns every reason the rebalancer, with the
// strategies of registry, rejects spec, the spec of a RebalancePolicy at
// fldPath: each problem at its field, and each problem of a strategy's args
// at its field in the args (spec.strategies[1].args.thresholds[cpu]).
func ValidateRebalancePolicySpec(registry strategies.Registry, spec *v1alpha1.RebalancePolicySpec, fldPath *field.Path) field.ErrorList {
	return RebalanceErrors(rebalance.ValidateSpec(registry, spec), fldPath)
}

// RebalanceErrors turns an error of rebalance.ValidateSpec, or of a
// Rebalancer's SetPolicy, into field errors under fldPath, the path of the
// spec in its object; nil for no error.
func RebalanceErrors(err error, fldPath *field.Path) field.ErrorList {
	var out field.ErrorList
	for _, se := range args.SpecErrors(err) {
		path := se.Field(fldPath)
		if invalid := se.InvalidArgs(); invalid != nil {
			out = append(out, invalid.Under(path)...)
			continue
		}
		// The path says what the section does.
		msg := se.Err.Error()
		if se.Section == "" {
			msg = se.Error()
		}
		out = append(out, field.Invalid(path, field.OmitValueType{}, msg))
	}
	return out
}
