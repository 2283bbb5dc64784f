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

package queue

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/berth-io/berth/scheduler/framework"
)

// mayHelpScheduling reports whether an update of an unscheduled pod touches
// anything a scheduling decision could depend on. Bookkeeping (resourceVersion,
// generation, managedFields, finalizers) and status, apart from the resource
// claim statuses DRA writes, do not count.
func mayHelpScheduling(oldPod, newPod *v1.Pod) bool {
	a, b := schedulingView(oldPod), schedulingView(newPod)
	return !equality.Semantic.DeepEqual(&a, &b)
}

// schedulingView is a shallow copy of the pod without the fields that never
// change a scheduling decision.
func schedulingView(pod *v1.Pod) v1.Pod {
	out := *pod
	out.ResourceVersion = ""
	out.Generation = 0
	out.ManagedFields = nil
	out.Finalizers = nil
	out.Status = v1.PodStatus{
		ResourceClaimStatuses:       pod.Status.ResourceClaimStatuses,
		ExtendedResourceClaimStatus: pod.Status.ExtendedResourceClaimStatus,
	}
	return out
}

// podUpdateEvents names what changed in an update of an unscheduled pod, as
// the cluster events plugins register for. When no specific change is found the
// event is a general update.
func podUpdateEvents(oldPod, newPod *v1.Pod) []framework.ClusterEvent {
	var actions []framework.ActionType
	if !labels.Equals(oldPod.Labels, newPod.Labels) {
		actions = append(actions, framework.UpdatePodLabel)
	}
	if requestsShrank(oldPod, newPod) {
		actions = append(actions, framework.UpdatePodScaleDown)
	}
	if len(oldPod.Spec.Tolerations) != len(newPod.Spec.Tolerations) {
		// The API only lets tolerations be added, so a length change is a change.
		actions = append(actions, framework.UpdatePodToleration)
	}
	if len(oldPod.Spec.SchedulingGates) > 0 && len(newPod.Spec.SchedulingGates) == 0 {
		actions = append(actions, framework.UpdatePodSchedulingGatesEliminated)
	}
	if !equality.Semantic.DeepEqual(oldPod.Status.ResourceClaimStatuses, newPod.Status.ResourceClaimStatuses) ||
		!equality.Semantic.DeepEqual(oldPod.Status.ExtendedResourceClaimStatus, newPod.Status.ExtendedResourceClaimStatus) {
		actions = append(actions, framework.UpdatePodGeneratedResourceClaim)
	}
	if len(actions) == 0 {
		actions = append(actions, framework.Update)
	}
	events := make([]framework.ClusterEvent, len(actions))
	for i, a := range actions {
		events[i] = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: a}
	}
	return events
}

// requestsShrank reports whether some resource request went down or away.
func requestsShrank(oldPod, newPod *v1.Pod) bool {
	before := resourcehelper.PodRequests(oldPod, resourcehelper.PodResourcesOptions{})
	after := resourcehelper.PodRequests(newPod, resourcehelper.PodResourcesOptions{})
	for name, was := range before {
		is, ok := after[name]
		if !ok || is.MilliValue() < was.MilliValue() {
			return true
		}
	}
	return false
}
