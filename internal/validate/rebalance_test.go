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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance"
)

func TestValidateRebalancePolicySpec(t *testing.T) {
	strategy := func(name, args string) v1alpha1.Strategy {
		return v1alpha1.Strategy{Name: v1alpha1.StrategyName(name), Args: k8sruntime.RawExtension{Raw: []byte(args)}}
	}
	every := v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: 10 * time.Minute}}
	tests := []struct {
		name string
		spec v1alpha1.RebalancePolicySpec
		want []string
	}{
		{
			name: "valid",
			spec: v1alpha1.RebalancePolicySpec{Schedule: every, Strategies: []v1alpha1.Strategy{strategy("RemoveDuplicates", "")}},
		},
		{
			name: "args of two strategies",
			spec: v1alpha1.RebalancePolicySpec{Schedule: every, Strategies: []v1alpha1.Strategy{
				strategy("RemoveDuplicates", ""),
				strategy("HighNodeUtilization", `{"thresholds":{"cpu":120},"evictableNamespaces":{"include":["a"]}}`),
				strategy("RemovePodsViolatingNodeTaints", `{"excludedTaints":["=x"],"labelSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}`),
			}},
			want: []string{
				"spec.strategies[1].args.thresholds[cpu]: Invalid value: 120: is not a percentage from 0 to 100",
				"spec.strategies[1].args.evictableNamespaces.include: Forbidden: only exclude is supported",
				"spec.strategies[2].args.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
				`spec.strategies[2].args.excludedTaints[0]: Invalid value: "=x": has no key`,
			},
		},
		{
			name: "args that do not decode, a duplicate, a bad schedule",
			spec: v1alpha1.RebalancePolicySpec{
				Schedule: v1alpha1.RebalanceSchedule{Cron: "every minute"},
				Strategies: []v1alpha1.Strategy{
					strategy("PodLifeTime", `{"maxPodLifeTime":60}`),
					strategy("PodLifeTime", `{"maxPodLifeTimeSeconds":60}`),
				},
			},
			want: []string{
				`spec.schedule.cron: Invalid value: expected exactly 5 fields, found 2: [every minute]`,
				`spec.strategies[0].args: Invalid value: decoding args of strategy PodLifeTime: json: unknown field "maxPodLifeTime"`,
				"spec.strategies[1].name: Invalid value: strategy PodLifeTime appears more than once",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateRebalancePolicySpec(rebalance.NewInTreeRegistry(), &tt.spec, field.NewPath("spec")) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}
}
