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

package strategies_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestPodScope(t *testing.T) {
	path := field.NewPath("spec", "strategies").Index(1).Child("args")
	tests := []struct {
		name       string
		scope      strategies.PodScope
		wantErrs   []string
		inScope    []string // namespace/app of the pods it matches
		outOfScope []string
	}{
		{name: "everything", inScope: []string{"a/x", "b/y"}},
		{
			name:       "include and selector",
			scope:      strategies.PodScope{Namespaces: &strategies.Namespaces{Include: []string{"a"}}, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}},
			inScope:    []string{"a/x"},
			outOfScope: []string{"a/y", "b/x"},
		},
		{name: "exclude", scope: strategies.PodScope{Namespaces: &strategies.Namespaces{Exclude: []string{"a"}}}, inScope: []string{"b/x"}, outOfScope: []string{"a/x"}},
		{
			name: "every problem",
			scope: strategies.PodScope{
				Namespaces: &strategies.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
				LabelSelector: &metav1.LabelSelector{
					MatchLabels:      map[string]string{"app": "x"},
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn}},
				},
			},
			wantErrs: []string{
				"spec.strategies[1].args.namespaces.exclude: Forbidden: only one of include or exclude may be set",
				"spec.strategies[1].args.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range tt.scope.Validate(path) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.wantErrs, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			for want, pods := range map[bool][]string{true: tt.inScope, false: tt.outOfScope} {
				for _, p := range pods {
					ns, app, _ := strings.Cut(p, "/")
					pod := strategytest.Pod("p").Namespace(ns).Obj()
					pod.Labels = map[string]string{"app": app}
					if got := tt.scope.Matches(pod); got != want {
						t.Errorf("Matches(%s) = %v, want %v", p, got, want)
					}
				}
			}
		})
	}
}

// A scope that was not validated still applies its label selector.
func TestPodScopeNotValidated(t *testing.T) {
	s := strategies.PodScope{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}
	pod := strategytest.Pod("p").Obj()
	pod.Labels = map[string]string{"app": "y"}
	if s.Matches(pod) {
		t.Error("Matches ignores the label selector of a scope that was not validated")
	}
}

func TestNamespacesValidate(t *testing.T) {
	var none *strategies.Namespaces
	if errs := none.Validate(field.NewPath("namespaces")); len(errs) > 0 {
		t.Errorf("nil namespaces: %v", errs)
	}
}
