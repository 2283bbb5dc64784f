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

package berthtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Resources turns name/quantity pairs ("cpu", "2", "memory", "4Gi") into a
// ResourceList; it panics on a malformed quantity, as tests want.
func Resources(pairs ...string) corev1.ResourceList {
	if len(pairs)%2 != 0 {
		panic(fmt.Sprintf("berthtest.Resources: odd number of arguments %q", pairs))
	}
	rl := make(corev1.ResourceList, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		rl[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return rl
}

// NodeBuilder builds a Ready node.
type NodeBuilder struct{ node *corev1.Node }

// NewNode starts a Ready node with 4 CPUs, 16Gi of memory and room for 110
// pods, labelled kubernetes.io/hostname=name.
func NewNode(name string) *NodeBuilder {
	alloc := Resources("cpu", "4", "memory", "16Gi", "pods", "110")
	return &NodeBuilder{node: &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Capacity:    alloc,
			Allocatable: alloc.DeepCopy(),
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		},
	}}
}

// Capacity sets the node's capacity and allocatable, as name/quantity pairs.
func (b *NodeBuilder) Capacity(pairs ...string) *NodeBuilder {
	b.node.Status.Capacity = Resources(pairs...)
	b.node.Status.Allocatable = Resources(pairs...)
	return b
}

// Label adds a label.
func (b *NodeBuilder) Label(key, value string) *NodeBuilder {
	b.node.Labels[key] = value
	return b
}

// Zone sets the topology.kubernetes.io/zone label.
func (b *NodeBuilder) Zone(zone string) *NodeBuilder { return b.Label(corev1.LabelTopologyZone, zone) }

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodeBuilder {
	b.node.Spec.Taints = append(b.node.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Obj returns the node.
func (b *NodeBuilder) Obj() *corev1.Node { return b.node }

// CreateNode creates node with its status. The apiserver's admission taints
// every new node not-ready and envtest runs no node lifecycle controller, so
// CreateNode removes that taint, leaving exactly node's own taints, as the
// controller would for a Ready node.
func (e *Env) CreateNode(ctx context.Context, node *corev1.Node) (*corev1.Node, error) {
	nodes := e.Clientset.CoreV1().Nodes()
	created, err := nodes.Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating node %s: %w", node.Name, err)
	}
	if len(created.Spec.Taints) != len(node.Spec.Taints) {
		created.Spec.Taints = node.Spec.Taints
		if created, err = nodes.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("lifting the not-ready taint of node %s: %w", node.Name, err)
		}
	}
	created.Status = node.Status
	if created, err = nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("setting the status of node %s: %w", node.Name, err)
	}
	return created, nil
}
