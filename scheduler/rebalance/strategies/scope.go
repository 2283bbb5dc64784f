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

package strategies

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Namespaces limits a strategy to some namespaces, as the descheduler's
// per-plugin namespaces argument; include and exclude are exclusive.
type Namespaces struct {
	// Include, when set, limits the strategy to these namespaces.
	Include []string `json:"include,omitempty"`
	// Exclude keeps the strategy out of these namespaces.
	Exclude []string `json:"exclude,omitempty"`
}

// PodScope is the namespaces and labelSelector arguments several
// descheduler strategies share.
type PodScope struct {
	// Namespaces limits the strategy to some namespaces.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// LabelSelector limits the strategy to the pods it selects.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// selector is LabelSelector converted by Validate; nil when unset.
	selector labels.Selector
}

// Validate reports every problem of the scope, each under path, the path
// of the args that inline it; it also prepares the label selector for
// Matches, so that args loaded with args.Load match at once.
func (s *PodScope) Validate(path *field.Path) field.ErrorList {
	errs := s.Namespaces.Validate(path.Child("namespaces"))
	s.selector = nil
	if s.LabelSelector != nil {
		at := path.Child("labelSelector")
		invalid := metav1validation.ValidateLabelSelector(s.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, at)
		sel, err := metav1.LabelSelectorAsSelector(s.LabelSelector)
		switch {
		case len(invalid) > 0:
			errs = append(errs, invalid...)
		case err != nil:
			errs = append(errs, field.Invalid(at, field.OmitValueType{}, err.Error()))
		default:
			s.selector = sel
		}
	}
	return errs
}

// Matches reports whether pod is in the scope. Validate prepares the label
// selector; a scope that was not validated converts it on every call.
func (s *PodScope) Matches(pod *v1.Pod) bool {
	if s.Namespaces != nil {
		if len(s.Namespaces.Include) > 0 && !slices.Contains(s.Namespaces.Include, pod.Namespace) {
			return false
		}
		if slices.Contains(s.Namespaces.Exclude, pod.Namespace) {
			return false
		}
	}
	sel := s.selector
	if sel == nil && s.LabelSelector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(s.LabelSelector); err != nil {
			return false
		}
	}
	return sel == nil || sel.Matches(labels.Set(pod.Labels))
}

// Validate reports include and exclude set together, under path, the path
// of the namespaces; no namespaces is valid.
func (n *Namespaces) Validate(path *field.Path) field.ErrorList {
	if n != nil && len(n.Include) > 0 && len(n.Exclude) > 0 {
		return field.ErrorList{field.Forbidden(path.Child("exclude"), "only one of include or exclude may be set")}
	}
	return nil
}
