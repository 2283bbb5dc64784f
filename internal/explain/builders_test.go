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

package explain_test

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// t0 is when the builders' objects were created.
var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// readyNode starts a Ready node with cpu cores, memGi GiB and room for 110 pods.
func readyNode(name string, cpu, memGi int64) *st.NodeBuilder {
	return st.Node(name).Hostname().Ready().
		Alloc("cpu", strconv.FormatInt(cpu, 10), "memory", strconv.FormatInt(memGi, 10)+"Gi", "pods", "110")
}

// pendingPod starts a pending pod of the default scheduler requesting
// milliCPU and memMi, with the UID its recorded decisions name.
func pendingPod(ns, name string, milliCPU, memMi int64) *st.PodBuilder {
	return st.Pod(name).Namespace(ns).UID(ns+"-"+name).SchedulerName(v1.DefaultSchedulerName).Image("app").
		Req("cpu", strconv.FormatInt(milliCPU, 10)+"m", "memory", strconv.FormatInt(memMi, 10)+"Mi").Phase(v1.PodPending)
}

// mostAllocated is NodeResourcesFit's args scoring by MostAllocated (bin packing).
const mostAllocated = `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`

// decision returns a recorded placement of pod ns/name on node, scored
// against one runner-up.
func decision(ns, name, node string, generation int64) v1alpha1.SchedulingDecision {
	return v1alpha1.SchedulingDecision{
		Pod: ns + "/" + name, PodUID: types.UID(ns + "-" + name), Node: node, Generation: generation,
		Time: metav1.NewTime(t0), FeasibleNodes: 2, EvaluatedNodes: 3,
		Nodes: []v1alpha1.DecisionNode{
			{Node: node, Total: 180, Scores: []v1alpha1.DecisionScore{{Plugin: "NodeResourcesFit", Score: 90}, {Plugin: "NodeResourcesBalancedAllocation", Score: 90}}},
			{Node: "runner-up", Total: 150, Scores: []v1alpha1.DecisionScore{{Plugin: "NodeResourcesFit", Score: 70}, {Plugin: "NodeResourcesBalancedAllocation", Score: 80}}},
		},
	}
}

// makeWeight returns a PluginWeight setting plugin's weight in profile.
func makeWeight(name, profile, plugin string, weight int32) *v1alpha1.PluginWeight {
	return st.PluginWeight(name, plugin, weight).Created(t0).Profile(profile).Obj()
}

// groupDecision is decision for a member that its PodGroup's cycle placed
// in rack r2, ranked above r1 by PodGroupPodsCount.
func groupDecision(ns, name, node string, generation int64) v1alpha1.SchedulingDecision {
	d := decision(ns, name, node, generation)
	d.PodGroup = &v1alpha1.DecisionPodGroup{Name: ns + "/crew", TopologyKey: "test.berth.io/rack", Placement: "r2", PlacementsTried: 3, PlacementsFeasible: 2,
		Placements: []v1alpha1.DecisionPlacement{
			{Placement: "r2", Total: 100, Scores: []v1alpha1.DecisionScore{{Plugin: "PodGroupPodsCount", Score: 100}}},
			{Placement: "r1", Total: 50, Scores: []v1alpha1.DecisionScore{{Plugin: "PodGroupPodsCount", Score: 50}}},
		}}
	return d
}
