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

package schedtest

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RandomNode returns a node of a random size, zone and taint, named after i.
func RandomNode(rng *rand.Rand, i int) *v1.Node {
	name := fmt.Sprintf("node-%02d", i)
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(int64(2+rng.IntN(15)), resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(int64(4+rng.IntN(60))<<30, resource.BinarySI),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname: name, v1.LabelTopologyZone: fmt.Sprintf("zone-%d", rng.IntN(3)),
			"disk": []string{"ssd", "hdd"}[rng.IntN(2)],
		}},
		Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc},
	}
	if rng.IntN(6) == 0 {
		n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "batch", Effect: v1.TaintEffectNoSchedule}}
	}
	return n
}

// RandomPod returns a pod with random requests, and sometimes a node
// selector, a toleration, a topology spread constraint or anti-affinity.
func RandomPod(rng *rand.Rand, i int) *v1.Pod {
	name := fmt.Sprintf("pod-%03d", i)
	app := fmt.Sprintf("app-%d", rng.IntN(5))
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), Labels: map[string]string{"app": app}},
		Spec: v1.PodSpec{
			SchedulerName: v1.DefaultSchedulerName,
			Containers: []v1.Container{{Name: "c", Image: fmt.Sprintf("image-%d", rng.IntN(4)), Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU:    *resource.NewMilliQuantity(int64(100*(1+rng.IntN(30))), resource.DecimalSI),
				v1.ResourceMemory: *resource.NewQuantity(int64(128*(1+rng.IntN(40)))<<20, resource.BinarySI),
			}}}},
		},
	}
	switch rng.IntN(6) {
	case 0:
		pod.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	case 1:
		pod.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "batch", Effect: v1.TaintEffectNoSchedule}}
	case 2:
		pod.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		}}
	case 3:
		pod.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: v1.PodAffinityTerm{
				TopologyKey: v1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			}}},
		}}
	}
	return pod
}
