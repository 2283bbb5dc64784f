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

package events

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// nodeB builds a node for event tests.
type nodeB struct{ n *v1.Node }

func node() *nodeB {
	return &nodeB{n: &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"zone": "a"}},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")},
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: metav1.Now()}},
		},
	}}
}
func (b *nodeB) cpu(q string) *nodeB {
	b.n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse(q)
	return b
}
func (b *nodeB) label(k, v string) *nodeB { b.n.Labels[k] = v; return b }
func (b *nodeB) taint(key string) *nodeB {
	b.n.Spec.Taints = append(b.n.Spec.Taints, v1.Taint{Key: key, Effect: v1.TaintEffectNoSchedule})
	return b
}
func (b *nodeB) cordon() *nodeB { b.n.Spec.Unschedulable = true; return b }
func (b *nodeB) notReady() *nodeB {
	b.n.Status.Conditions[0].Status = v1.ConditionFalse
	return b
}
func (b *nodeB) heartbeat() *nodeB {
	b.n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(time.Now().Add(time.Minute))
	return b
}
func (b *nodeB) annotate() *nodeB {
	b.n.Annotations = map[string]string{"a": "b"}
	return b
}

func (b *nodeB) declare(features ...string) *nodeB {
	b.n.Status.DeclaredFeatures = features
	return b
}

func TestNodeUpdateActions(t *testing.T) {
	tests := []struct {
		name string
		new  *v1.Node
		want framework.ActionType
	}{
		{name: "heartbeat only changes nothing", new: node().heartbeat().n, want: 0},
		{name: "allocatable", new: node().cpu("8").n, want: framework.UpdateNodeAllocatable},
		{name: "label", new: node().label("disk", "ssd").n, want: framework.UpdateNodeLabel},
		{name: "taint", new: node().taint("dedicated").n, want: framework.UpdateNodeTaint},
		{name: "cordon counts as a taint change", new: node().cordon().n, want: framework.UpdateNodeTaint},
		{name: "condition status", new: node().notReady().n, want: framework.UpdateNodeCondition},
		{name: "annotation", new: node().annotate().n, want: framework.UpdateNodeAnnotation},
		{name: "declared features", new: node().declare("InPlacePodResize").n, want: framework.UpdateNodeDeclaredFeature},
		{name: "several at once", new: node().cpu("8").label("disk", "ssd").n, want: framework.UpdateNodeAllocatable | framework.UpdateNodeLabel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NodeUpdateActions(node().n, tc.new); got != tc.want {
				t.Errorf("NodeUpdateActions = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPodUpdateActions(t *testing.T) {
	base := func(cpu string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)},
			}}}},
		}
	}
	relabelled := base("1")
	relabelled.Labels["app"] = "b"
	tests := []struct {
		name     string
		old, new *v1.Pod
		want     framework.ActionType
	}{
		{name: "labels", old: base("1"), new: relabelled, want: framework.UpdatePodLabel},
		{name: "scale down", old: base("2"), new: base("1"), want: framework.UpdatePodScaleDown},
		{name: "scale up is something else", old: base("1"), new: base("2"), want: framework.UpdateOther},
		{name: "no change is something else", old: base("1"), new: base("1"), want: framework.UpdateOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PodUpdateActions(tc.old, tc.new); got != tc.want {
				t.Errorf("PodUpdateActions = %v, want %v", got, tc.want)
			}
		})
	}
}
