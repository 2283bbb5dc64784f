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

package removepodsviolatingtopologyspreadconstraint

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

// spreadPod builds a pod labelled app=web spread over zones with maxSkew 1
// and the given whenUnsatisfiable.
func spreadPod(name, node string, when v1.UnsatisfiableConstraintAction) *v1.Pod {
	p := strategytest.Pod(name).NodeName(node).Obj()
	p.Labels = map[string]string{"app": "web"}
	p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
	}}
	return p
}

// zones builds one node per zone, named after it.
func zones(names ...string) []*v1.Node {
	var out []*v1.Node
	for _, z := range names {
		out = append(out, strategytest.Node(z).Label("zone", z).Obj())
	}
	return out
}

// spread puts counts[i] web pods on the i-th node.
func spread(nodes []*v1.Node, when v1.UnsatisfiableConstraintAction, counts ...int) []*v1.Pod {
	var pods []*v1.Pod
	for i, c := range counts {
		for j := range c {
			pods = append(pods, spreadPod(fmt.Sprintf("%s-%d", nodes[i].Name, j), nodes[i].Name, when))
		}
	}
	return pods
}
