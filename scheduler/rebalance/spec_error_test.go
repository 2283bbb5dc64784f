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

package rebalance

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
)

// problem is what a test compares of a SpecError.
type problem struct {
	Kind     args.SpecErrorKind
	Strategy int
	Field    string
	Message  string
	// ArgsErrs are the args' field errors, relative to the args.
	ArgsErrs []string
}

func TestValidateSpecErrors(t *testing.T) {
	strategy := func(name, args string) v1alpha1.Strategy {
		return v1alpha1.Strategy{Name: v1alpha1.StrategyName(name), Args: k8sruntime.RawExtension{Raw: []byte(args)}}
	}
	spec := func(mutate func(*v1alpha1.RebalancePolicySpec)) *v1alpha1.RebalancePolicySpec {
		s := lifetimePolicy(true, every(time.Minute))
		mutate(s)
		return s
	}
	tests := []struct {
		name string
		spec *v1alpha1.RebalancePolicySpec
		want []problem
	}{
		{name: "valid", spec: lifetimePolicy(true, every(time.Minute))},
		{
			name: "args that do not validate, second strategy",
			spec: spec(func(s *v1alpha1.RebalancePolicySpec) {
				s.Strategies = append(s.Strategies, strategy("LowNodeUtilization", `{"thresholds":{"cpu":120},"targetThresholds":{"cpu":50},"numberOfNodes":-1}`))
			}),
			want: []problem{{
				Kind: args.SpecInvalidArgs, Strategy: 1, Field: "spec.strategies[1].args",
				Message: "invalid args of strategy LowNodeUtilization: [thresholds[cpu]: Invalid value: 120: is not a percentage from 0 to 100, " +
					"thresholds[cpu]: Invalid value: 120: is above targetThresholds[cpu] 50, numberOfNodes: Invalid value: -1: must not be negative]",
				ArgsErrs: []string{
					"thresholds[cpu]: Invalid value: 120: is not a percentage from 0 to 100",
					"thresholds[cpu]: Invalid value: 120: is above targetThresholds[cpu] 50",
					"numberOfNodes: Invalid value: -1: must not be negative",
				},
			}},
		},
		{
			name: "args that do not decode",
			spec: spec(func(s *v1alpha1.RebalancePolicySpec) {
				s.Strategies[0].Args.Raw = []byte(`{"maxPodLifeTimeSecondz":60}`)
			}),
			want: []problem{{
				Kind: args.SpecInvalidArgs, Strategy: 0, Field: "spec.strategies[0].args",
				Message: `decoding args of strategy PodLifeTime: json: unknown field "maxPodLifeTimeSecondz"`,
			}},
		},
		{
			name: "no args where some are required",
			spec: spec(func(s *v1alpha1.RebalancePolicySpec) { s.Strategies[0].Args.Raw = nil }),
			want: []problem{{
				Kind: args.SpecInvalidArgs, Strategy: 0, Field: "spec.strategies[0].args",
				Message:  "invalid args of strategy PodLifeTime: maxPodLifeTimeSeconds: Required value",
				ArgsErrs: []string{"maxPodLifeTimeSeconds: Required value"},
			}},
		},
		{
			name: "duplicate strategy",
			spec: spec(func(s *v1alpha1.RebalancePolicySpec) { s.Strategies = append(s.Strategies, s.Strategies[0]) }),
			want: []problem{{Kind: args.SpecDuplicateStrategy, Strategy: 1, Field: "spec.strategies[1].name", Message: "strategy PodLifeTime appears more than once"}},
		},
		{
			name: "unknown strategy",
			spec: spec(func(s *v1alpha1.RebalancePolicySpec) { s.Strategies[0].Name = "RemovePodsViolatingEverything" }),
			want: []problem{{Kind: args.SpecUnknownStrategy, Strategy: 0, Field: "spec.strategies[0].name", Message: `strategy "RemovePodsViolatingEverything" is not implemented`}},
		},
		{
			name: "every section",
			spec: spec(func(s *v1alpha1.RebalancePolicySpec) {
				s.Schedule = v1alpha1.RebalanceSchedule{Cron: "61 * * * *"}
				s.Strategies = nil
				s.Evictor = &v1alpha1.EvictorOptions{
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Nope"}}},
					MinPodAge:     &metav1.Duration{Duration: -time.Second},
				}
				s.Namespaces = &v1alpha1.NamespaceFilter{Include: []string{"a"}, Exclude: []string{"b"}}
			}),
			want: []problem{
				{Kind: args.SpecInvalid, Strategy: -1, Field: "spec.schedule.cron", Message: `schedule.cron "61 * * * *": end of range (61) above maximum (59): 61`},
				{Kind: args.SpecInvalid, Strategy: -1, Field: "spec.strategies", Message: "strategies: at least one strategy is required"},
				{Kind: args.SpecInvalid, Strategy: -1, Field: "spec.evictor.labelSelector", Message: `evictor.labelSelector: "Nope" is not a valid label selector operator`},
				{Kind: args.SpecInvalid, Strategy: -1, Field: "spec.evictor.minPodAge", Message: "evictor.minPodAge: -1s must not be negative"},
				{Kind: args.SpecInvalid, Strategy: -1, Field: "spec.namespaces", Message: "namespaces: only one of include or exclude may be set"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateSpec(NewInTreeRegistry(), tt.spec)
			var got []problem
			for _, se := range args.SpecErrors(err) {
				p := problem{Kind: se.Kind, Strategy: se.Strategy, Field: se.Field(field.NewPath("spec")).String(), Message: se.Error()}
				if invalid := se.InvalidArgs(); invalid != nil {
					for _, e := range invalid.Errs {
						p.ArgsErrs = append(p.ArgsErrs, e.Error())
					}
				}
				got = append(got, p)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidateSpec problems (-want +got):\n%s", diff)
			}
		})
	}
}
