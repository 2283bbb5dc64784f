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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/schedtest"
)

// NewNode starts a Ready node as a test creates it in the apiserver: 4
// CPUs, 16Gi of memory and room for 110 pods, labelled
// kubernetes.io/hostname=name, with no UID (the apiserver gives it one).
// It is a scheduler/schedtest builder, the one set of builders of Berth's
// tests and of plugin authors': chain its methods (Label, Alloc, Taint, ...).
func NewNode(name string) *schedtest.NodeBuilder {
	return schedtest.Node(name).UID("").Hostname().Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Ready()
}

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
