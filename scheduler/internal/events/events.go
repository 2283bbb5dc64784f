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

// Package events turns the changes of an object the scheduler watches into
// the cluster events whose queueing hints decide which pods may now fit.
package events

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/berth-io/berth/scheduler/framework"
)

// NodeUpdateActions lists what changed between two versions of a node that
// could make a pod fit; 0 means nothing that matters to scheduling.
func NodeUpdateActions(oldNode, newNode *v1.Node) framework.ActionType {
	var a framework.ActionType
	if !equality.Semantic.DeepEqual(oldNode.Status.Allocatable, newNode.Status.Allocatable) {
		a |= framework.UpdateNodeAllocatable
	}
	if !equality.Semantic.DeepEqual(oldNode.Labels, newNode.Labels) {
		a |= framework.UpdateNodeLabel
	}
	if !equality.Semantic.DeepEqual(oldNode.Spec.Taints, newNode.Spec.Taints) || oldNode.Spec.Unschedulable != newNode.Spec.Unschedulable {
		a |= framework.UpdateNodeTaint
	}
	if !nodeConditionsEqual(oldNode.Status.Conditions, newNode.Status.Conditions) {
		a |= framework.UpdateNodeCondition
	}
	if !equality.Semantic.DeepEqual(oldNode.Annotations, newNode.Annotations) {
		a |= framework.UpdateNodeAnnotation
	}
	if !slices.Equal(oldNode.Status.DeclaredFeatures, newNode.Status.DeclaredFeatures) {
		a |= framework.UpdateNodeDeclaredFeature
	}
	return a
}

// nodeConditionsEqual compares conditions by type and status only: heartbeat
// times change every few seconds and matter to nobody here.
func nodeConditionsEqual(a, b []v1.NodeCondition) bool {
	if len(a) != len(b) {
		return false
	}
	status := make(map[v1.NodeConditionType]v1.ConditionStatus, len(a))
	for _, c := range a {
		status[c.Type] = c.Status
	}
	for _, c := range b {
		if s, ok := status[c.Type]; !ok || s != c.Status {
			return false
		}
	}
	return true
}

// PodUpdateActions lists what changed between two versions of a bound pod
// that could make another pod fit.
func PodUpdateActions(oldPod, newPod *v1.Pod) framework.ActionType {
	var a framework.ActionType
	if !equality.Semantic.DeepEqual(oldPod.Labels, newPod.Labels) {
		a |= framework.UpdatePodLabel
	}
	if podRequestsShrank(oldPod, newPod) {
		a |= framework.UpdatePodScaleDown
	}
	if a == 0 {
		a = framework.UpdateOther
	}
	return a
}

// podRequestsShrank reports whether any container's requests went down, as
// an in-place resize does.
func podRequestsShrank(oldPod, newPod *v1.Pod) bool {
	oldReq, newReq := framework.PodRequests(oldPod), framework.PodRequests(newPod)
	if newReq.MilliCPU < oldReq.MilliCPU || newReq.Memory < oldReq.Memory || newReq.EphemeralStorage < oldReq.EphemeralStorage {
		return true
	}
	for name, q := range oldReq.ScalarResources {
		if newReq.ScalarResources[name] < q {
			return true
		}
	}
	return false
}
