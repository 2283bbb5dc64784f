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

package removepodsviolatinginterpodantiaffinity

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

// pod builds a pod on node labelled app=app, avoiding the apps listed
// within topologyKey.
func pod(name, node, app, topologyKey string, avoid ...string) *v1.Pod {
	p := strategytest.Pod(name).NodeName(node).Obj()
	p.Labels = map[string]string{"app": app}
	if len(avoid) > 0 {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: topologyKey,
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: "app", Operator: metav1.LabelSelectorOpIn, Values: avoid,
				}}},
			}},
		}}
	}
	return p
}

// inNamespace moves p to ns.
func inNamespace(p *v1.Pod, ns string) *v1.Pod { p.Namespace = ns; return p }

// withPriority sets p's priority.
func withPriority(p *v1.Pod, prio int32) *v1.Pod { p.Spec.Priority = &prio; return p }
