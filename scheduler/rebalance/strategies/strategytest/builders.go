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

package strategytest

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PodBuilder builds a pod owned by a ReplicaSet "rs" in namespace "default".
type PodBuilder struct{ pod *v1.Pod }

// Pod starts a running pod named name with one container of image "app".
func Pod(name string) *PodBuilder {
	return &PodBuilder{pod: &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID(name),
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", APIVersion: "apps/v1"}},
		},
		Spec:   v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "app"}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}}
}

// Node binds the pod to node.
func (b *PodBuilder) Node(node string) *PodBuilder { b.pod.Spec.NodeName = node; return b }

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.pod.Namespace = ns; return b }

// Owner replaces the owner.
func (b *PodBuilder) Owner(kind, name string) *PodBuilder {
	b.pod.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: name}}
	return b
}

// Image sets the container's image.
func (b *PodBuilder) Image(image string) *PodBuilder {
	b.pod.Spec.Containers[0].Image = image
	return b
}

// Req sets the container's requests as name, quantity pairs.
func (b *PodBuilder) Req(pairs ...string) *PodBuilder {
	list := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		list[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	b.pod.Spec.Containers[0].Resources.Requests = list
	return b
}

// Priority sets the priority.
func (b *PodBuilder) Priority(p int32) *PodBuilder { b.pod.Spec.Priority = &p; return b }

// Created sets the creation time.
func (b *PodBuilder) Created(t time.Time) *PodBuilder {
	b.pod.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Phase sets the phase and the pod's status reason.
func (b *PodBuilder) Phase(p v1.PodPhase, reason string) *PodBuilder {
	b.pod.Status.Phase, b.pod.Status.Reason = p, reason
	return b
}

// Container adds a container status.
func (b *PodBuilder) Container(cs v1.ContainerStatus) *PodBuilder {
	b.pod.Status.ContainerStatuses = append(b.pod.Status.ContainerStatuses, cs)
	return b
}

// InitContainer adds an init container status.
func (b *PodBuilder) InitContainer(cs v1.ContainerStatus) *PodBuilder {
	b.pod.Status.InitContainerStatuses = append(b.pod.Status.InitContainerStatuses, cs)
	return b
}

// NodeSelector sets the node selector.
func (b *PodBuilder) NodeSelector(kv ...string) *PodBuilder {
	b.pod.Spec.NodeSelector = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		b.pod.Spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return b
}

// Affinity sets the affinity.
func (b *PodBuilder) Affinity(a *v1.Affinity) *PodBuilder { b.pod.Spec.Affinity = a; return b }

// Toleration adds a toleration of key with any value and effect.
func (b *PodBuilder) Toleration(key string) *PodBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, v1.Toleration{Key: key, Operator: v1.TolerationOpExists})
	return b
}

// Obj returns the pod.
func (b *PodBuilder) Obj() *v1.Pod { return b.pod }

// NodeBuilder builds a node.
type NodeBuilder struct{ node *v1.Node }

// Node starts a node named name with 4 CPUs, 8Gi of memory and room for 110 pods.
func Node(name string) *NodeBuilder {
	return &NodeBuilder{node: &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110"),
		}},
	}}
}

// Label adds a label.
func (b *NodeBuilder) Label(k, v string) *NodeBuilder { b.node.Labels[k] = v; return b }

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect v1.TaintEffect) *NodeBuilder {
	b.node.Spec.Taints = append(b.node.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Unschedulable cordons the node.
func (b *NodeBuilder) Unschedulable() *NodeBuilder { b.node.Spec.Unschedulable = true; return b }

// Obj returns the node.
func (b *NodeBuilder) Obj() *v1.Node { return b.node }
