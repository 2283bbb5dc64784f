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
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/framework"
)

// NodeAffinityArgs are the args of NodeAffinity, as in kubescheduler.config.k8s.io/v1.
type NodeAffinityArgs struct {
	metav1.TypeMeta `json:",inline"`
	// AddedAffinity is applied to every pod on top of its own node affinity:
	// its required terms must match too, and its preferred terms add to the score.
	AddedAffinity *v1.NodeAffinity `json:"addedAffinity,omitempty"`
}

// DecodeNodeAffinityArgs strictly decodes raw JSON args and validates them;
// nil raw gives empty args. NodeAffinityArgs have no defaults.
func DecodeNodeAffinityArgs(raw []byte) (*NodeAffinityArgs, error) {
	args := &NodeAffinityArgs{}
	if err := framework.DecodeArgs(Name, raw, args); err != nil {
		return nil, err
	}
	if err := ValidateNodeAffinityArgs(nil, args); err != nil {
		return nil, fmt.Errorf("invalid args of plugin %s: %w", Name, err)
	}
	return args, nil
}

// ValidateNodeAffinityArgs checks that the added affinity parses and reports
// every problem at once; path prefixes the field paths and may be nil.
func ValidateNodeAffinityArgs(path *field.Path, a *NodeAffinityArgs) error {
	var errs []error
	if a.Kind != "" && a.Kind != "NodeAffinityArgs" {
		errs = append(errs, field.Invalid(path.Child("kind"), a.Kind, "must be NodeAffinityArgs"))
	}
	if a.AddedAffinity == nil {
		return utilerrors.NewAggregate(errs)
	}
	p := path.Child("addedAffinity")
	if ns := a.AddedAffinity.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		_, termErrs := parseNodeSelector(ns, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))
		errs = append(errs, termErrs...)
	}
	if terms := a.AddedAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) > 0 {
		_, termErrs := parsePreferredTerms(terms, p.Child("preferredDuringSchedulingIgnoredDuringExecution"))
		errs = append(errs, termErrs...)
	}
	return utilerrors.Flatten(utilerrors.NewAggregate(errs))
}
