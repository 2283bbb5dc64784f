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

// Package schedtest builds the pods, nodes, NodeInfos and fakes that the
// scheduler's tests share.
package schedtest

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// List turns name/quantity pairs ("cpu", "1", "memory", "1Gi") into a ResourceList.
func List(pairs ...string) v1.ResourceList {
	rl := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		rl[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return rl
}

// PodBuilder builds a pod step by step.
type PodBuilder struct{ pod *v1.Pod }

// Pod starts a pod in namespace "default" with a UID derived from its name.
func Pod(name string) *PodBuilder {
	return &PodBuilder{pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "default", UID: types.UID(name + "-uid"),
	}}}
}

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.pod.Namespace = ns; return b }

// UID sets the UID.
func (b *PodBuilder) UID(uid string) *PodBuilder { b.pod.UID = types.UID(uid); return b }

// Priority sets spec.priority.
func (b *PodBuilder) Priority(p int32) *PodBuilder { b.pod.Spec.Priority = &p; return b }

// Created sets the creation timestamp.
func (b *PodBuilder) Created(t time.Time) *PodBuilder {
	b.pod.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Container adds a container requesting the name/quantity pairs.
func (b *PodBuilder) Container(pairs ...string) *PodBuilder {
	b.pod.Spec.Containers = append(b.pod.Spec.Containers, v1.Container{
		Name: "c" + itoa(len(b.pod.Spec.Containers)), Resources: v1.ResourceRequirements{Requests: List(pairs...)},
	})
	return b
}

// Init adds a run-to-completion init container requesting the pairs.
func (b *PodBuilder) Init(pairs ...string) *PodBuilder {
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{
		Name: "i" + itoa(len(b.pod.Spec.InitContainers)), Resources: v1.ResourceRequirements{Requests: List(pairs...)},
	})
	return b
}

// Sidecar adds a restartable init container requesting the pairs.
func (b *PodBuilder) Sidecar(pairs ...string) *PodBuilder {
	always := v1.ContainerRestartPolicyAlways
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{
		Name: "s" + itoa(len(b.pod.Spec.InitContainers)), RestartPolicy: &always,
		Resources: v1.ResourceRequirements{Requests: List(pairs...)},
	})
	return b
}

// Overhead sets spec.overhead.
func (b *PodBuilder) Overhead(pairs ...string) *PodBuilder {
	b.pod.Spec.Overhead = List(pairs...)
	return b
}

// PodLevel sets pod-level resource requests.
func (b *PodBuilder) PodLevel(pairs ...string) *PodBuilder {
	b.pod.Spec.Resources = &v1.ResourceRequirements{Requests: List(pairs...)}
	return b
}

// NodeName sets spec.nodeName.
func (b *PodBuilder) NodeName(n string) *PodBuilder { b.pod.Spec.NodeName = n; return b }

// Nominated sets status.nominatedNodeName.
func (b *PodBuilder) Nominated(n string) *PodBuilder { b.pod.Status.NominatedNodeName = n; return b }

// Gates adds scheduling gates.
func (b *PodBuilder) Gates(names ...string) *PodBuilder {
	for _, n := range names {
		b.pod.Spec.SchedulingGates = append(b.pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: n})
	}
	return b
}

// Toleration adds a toleration.
func (b *PodBuilder) Toleration(t v1.Toleration) *PodBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, t)
	return b
}

// Obj returns the pod.
func (b *PodBuilder) Obj() *v1.Pod { return b.pod }

// Info returns the pod as a PodInfo.
func (b *PodBuilder) Info() *framework.PodInfo {
	pi, err := framework.NewPodInfo(b.pod)
	if err != nil {
		panic(err)
	}
	return pi
}

// NodeBuilder builds a node step by step.
type NodeBuilder struct{ node *v1.Node }

// Node starts a node with the name.
func Node(name string) *NodeBuilder {
	return &NodeBuilder{node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid")}}}
}

// Alloc sets allocatable (and capacity) from name/quantity pairs.
func (b *NodeBuilder) Alloc(pairs ...string) *NodeBuilder {
	b.node.Status.Allocatable = List(pairs...)
	b.node.Status.Capacity = List(pairs...)
	return b
}

// Unschedulable sets spec.unschedulable.
func (b *NodeBuilder) Unschedulable(u bool) *NodeBuilder { b.node.Spec.Unschedulable = u; return b }

// Obj returns the node.
func (b *NodeBuilder) Obj() *v1.Node { return b.node }

// NodeInfo returns a NodeInfo for the node holding the pods.
func NodeInfo(node *v1.Node, pods ...*v1.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	if node != nil {
		ni.SetNode(node)
	}
	for _, p := range pods {
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			panic(err)
		}
		ni.AddPodInfo(pi)
	}
	return ni
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
