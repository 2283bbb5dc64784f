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

package nodeaffinity

import (
	"errors"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// NodeAffinityArgs are the args of NodeAffinity, as in kubescheduler.config.k8s.io/v1.
type NodeAffinityArgs struct {
	metav1.TypeMeta `json:",inline"`
	// AddedAffinity is applied to every pod on top of its own node affinity:
	// its required terms must match too, and its preferred terms add to the score.
	AddedAffinity *v1.NodeAffinity `json:"addedAffinity,omitempty"`
}

// Default does nothing: NodeAffinityArgs have no defaults.
func (a *NodeAffinityArgs) Default() {}

// Validate checks that the added affinity parses and reports every problem,
// under path.
func (a *NodeAffinityArgs) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "NodeAffinityArgs")
	if a.AddedAffinity == nil {
		return errs
	}
	p := path.Child("addedAffinity")
	if ns := a.AddedAffinity.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		rp := p.Child("requiredDuringSchedulingIgnoredDuringExecution")
		_, termErrs := parseNodeSelector(ns, rp)
		errs = append(errs, fieldErrors(rp, termErrs)...)
	}
	if terms := a.AddedAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) > 0 {
		pp := p.Child("preferredDuringSchedulingIgnoredDuringExecution")
		_, termErrs := parsePreferredTerms(terms, pp)
		errs = append(errs, fieldErrors(pp, termErrs)...)
	}
	return errs
}

// fieldErrors flattens the selector parser's errors into field errors; the
// parser reports field errors, some inside aggregates, and anything else is
// kept at path.
func fieldErrors(path *field.Path, errs []error) field.ErrorList {
	agg := utilerrors.NewAggregate(errs)
	if agg == nil {
		return nil
	}
	var out field.ErrorList
	for _, err := range utilerrors.Flatten(agg).Errors() {
		var fe *field.Error
		if errors.As(err, &fe) {
			out = append(out, fe)
			continue
		}
		out = append(out, field.Invalid(path, nil, err.Error()))
	}
	return out
}
