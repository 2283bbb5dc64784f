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
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
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

	selector labels.Selector
}

// Compile validates the scope and prepares Matches; it returns every problem found.
func (s *PodScope) Compile() []error {
	var errs []error
	if s.Namespaces != nil && len(s.Namespaces.Include) > 0 && len(s.Namespaces.Exclude) > 0 {
		errs = append(errs, fmt.Errorf("only one of namespaces.include or namespaces.exclude may be set"))
	}
	s.selector = labels.Everything()
	if s.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(s.LabelSelector)
		if err != nil {
			errs = append(errs, fmt.Errorf("labelSelector: %w", err))
		} else {
			s.selector = sel
		}
	}
	return errs
}

// Matches reports whether pod is in the scope. Compile must have run.
func (s *PodScope) Matches(pod *v1.Pod) bool {
	if s.Namespaces != nil {
		if len(s.Namespaces.Include) > 0 && !slices.Contains(s.Namespaces.Include, pod.Namespace) {
			return false
		}
		if slices.Contains(s.Namespaces.Exclude, pod.Namespace) {
			return false
		}
	}
	return s.selector == nil || s.selector.Matches(labels.Set(pod.Labels))
}
