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

package noderesources

import (
	"context"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
)

// EventsToRegister retries a pod the filter rejected when resources may have
// been freed or added: an assigned pod deleted or scaled down, the pod itself
// scaled down, a node added or its allocatable changed, a DeviceClass now
// serving an extended resource the pod requests.
func (f *Fit) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}, QueueingHintFn: f.isSchedulableAfterPodDelete},
		{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.UpdatePodScaleDown}, QueueingHintFn: f.isSchedulableAfterPodScaleDown},
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodScaleDown}, QueueingHintFn: f.isSchedulableAfterOwnScaleDown},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable}, QueueingHintFn: f.isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}, QueueingHintFn: isSchedulableAfterDeviceClassChange},
	}, nil
}

// isSchedulableAfterDeviceClassChange queues the pod when a class added
// serves a resource it requests (by its spec.extendedResourceName or its
// implicit name), or a class changed its extendedResourceName to one.
func isSchedulableAfterDeviceClassChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*resourceapi.DeviceClass](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	name := ptr.Deref(after.Spec.ExtendedResourceName, "")
	if before != nil && ptr.Deref(before.Spec.ExtendedResourceName, "") == name {
		return framework.QueueSkip, nil
	}
	requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	if q, ok := requests[v1.ResourceName(name)]; ok && name != "" && !q.IsZero() {
		logger.V(5).Info("device class now serves an extended resource the pod requests", "pod", klog.KObj(pod), "deviceclass", klog.KObj(after))
		return framework.Queue, nil
	}
	if q, ok := requests[v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+after.Name)]; ok && before == nil && !q.IsZero() {
		logger.V(5).Info("device class added whose implicit extended resource the pod requests", "pod", klog.KObj(pod), "deviceclass", klog.KObj(after))
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterPodDelete queues the pod unless the deleted pod never
// held resources on any node (neither bound nor nominated).
func (*Fit) isSchedulableAfterPodDelete(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil || (deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "") {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("a pod holding resources was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
	return framework.Queue, nil
}

// isSchedulableAfterPodScaleDown queues the pod when an assigned pod lowered
// its request of a resource the pod asks for.
func (*Fit) isSchedulableAfterPodScaleDown(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if before == nil || after == nil || after.Spec.NodeName == "" || !freedWhatPodNeeds(pod, before, after) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("an assigned pod was scaled down", "pod", klog.KObj(pod), "modifiedPod", klog.KObj(after))
	return framework.Queue, nil
}

// isSchedulableAfterOwnScaleDown queues the pod when it lowered its own requests.
func (*Fit) isSchedulableAfterOwnScaleDown(_ logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, after, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil || after.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

func freedWhatPodNeeds(pod, before, after *v1.Pod) bool {
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
	was := framework.NewResource(resourcehelper.PodRequests(before, opts))
	now := framework.NewResource(resourcehelper.PodRequests(after, opts))
	for name, q := range resourcehelper.PodRequests(pod, opts) {
		if q.IsZero() {
			continue
		}
		if was.Get(name) > now.Get(name) {
			return true
		}
	}
	return false
}

// isSchedulableAfterNodeChange queues the pod when an added node could hold it
// on its own, or when an updated node could hold it and grew in a resource
// the pod needs (or in pod capacity).
func (f *Fit) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	req := newFitRequest(pod, nil, nil)
	if err := req.markDRA(f.classes); err != nil {
		return framework.Queue, err
	}
	afterInfo := framework.NewNodeInfo()
	afterInfo.SetNode(after)
	if len(req.check(afterInfo, nil)) > 0 {
		logger.V(5).Info("node cannot hold the pod even when empty", "pod", klog.KObj(pod), "node", klog.KObj(after))
		return framework.QueueSkip, nil
	}
	if before == nil {
		logger.V(5).Info("added node may hold the pod", "pod", klog.KObj(pod), "node", klog.KObj(after))
		return framework.Queue, nil
	}
	if !grewForRequest(req, framework.NewResource(before.Status.Allocatable), afterInfo.Allocatable) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("node's allocatable grew in a resource the pod needs", "pod", klog.KObj(pod), "node", klog.KObj(after))
	return framework.Queue, nil
}

func grewForRequest(req *fitRequest, was, now *framework.Resource) bool {
	if now.AllowedPodNumber > was.AllowedPodNumber {
		return true
	}
	if (req.milliCPU > 0 && now.MilliCPU > was.MilliCPU) ||
		(req.memory > 0 && now.Memory > was.Memory) ||
		(req.ephemeralStorage > 0 && now.EphemeralStorage > was.EphemeralStorage) {
		return true
	}
	for _, s := range req.scalars {
		if now.ScalarResources[s.name] > was.ScalarResources[s.name] {
			return true
		}
		if s.dra && now.ScalarResources[s.name] == 0 {
			// DynamicResources serves it there, from the node's devices.
			return true
		}
	}
	return false
}
