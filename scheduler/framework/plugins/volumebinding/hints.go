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

package volumebinding

import (
	"context"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
)

// EventsToRegister lists the events that may let a rejected pod's volumes
// bind, as upstream: StorageClass, PVC and PV creation and updates, new or
// relabelled nodes, CSINode changes, CSIDriver updates and
// CSIStorageCapacity creation and updates.
func (pl *VolumeBinding) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.StorageClass, ActionType: framework.Add | framework.Update}, QueueingHintFn: isSchedulableAfterStorageClassChange},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update}, QueueingHintFn: isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}},
		{Event: framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Add | framework.Update}, QueueingHintFn: isSchedulableAfterCSINodeChange},
		{Event: framework.ClusterEvent{Resource: framework.CSIDriver, ActionType: framework.Update}, QueueingHintFn: isSchedulableAfterCSIDriverChange},
		{Event: framework.ClusterEvent{Resource: framework.CSIStorageCapacity, ActionType: framework.Add | framework.Update}, QueueingHintFn: isSchedulableAfterCapacityChange},
	}, nil
}

// isSchedulableAfterClaimChange queues the pod when one of its own claims
// is created or changes.
func isSchedulableAfterClaimChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := eventobj.Pair[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if pvc == nil || pvc.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for i := range pod.Spec.Volumes {
		if name, _, ok := claimName(pod, &pod.Spec.Volumes[i]); ok && name == pvc.Name {
			logger.V(5).Info("a claim of the pod changed", "pod", klog.KObj(pod), "pvc", klog.KObj(pvc))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterStorageClassChange queues the pod on a new class or a
// change of a class's allowed topologies (the binding mode is immutable).
func isSchedulableAfterStorageClassChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*storagev1.StorageClass](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	if before == nil || !apiequality.Semantic.DeepEqual(before.AllowedTopologies, after.AllowedTopologies) {
		logger.V(5).Info("storage class added or its allowed topologies changed", "pod", klog.KObj(pod), "storageClass", klog.KObj(after))
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterCSINodeChange queues the pod on a new CSINode or a
// change of the plugins migrated to CSI on it.
func isSchedulableAfterCSINodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	if oldObj == nil {
		return framework.Queue, nil
	}
	before, after, err := eventobj.Pair[*storagev1.CSINode](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil || before == nil {
		return framework.Queue, nil
	}
	if before.Annotations[v1.MigratedPluginsAnnotationKey] != after.Annotations[v1.MigratedPluginsAnnotationKey] {
		logger.V(5).Info("CSINode's migrated plugins changed", "pod", klog.KObj(pod), "csiNode", klog.KObj(after))
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterCSIDriverChange queues the pod when a driver of one of
// its inline CSI volumes stops tracking storage capacity.
func isSchedulableAfterCSIDriverChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*storagev1.CSIDriver](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if before == nil || after == nil {
		return framework.QueueSkip, nil
	}
	wasTracked := before.Spec.StorageCapacity != nil && *before.Spec.StorageCapacity
	isTracked := after.Spec.StorageCapacity != nil && *after.Spec.StorageCapacity
	if !wasTracked || isTracked {
		return framework.QueueSkip, nil
	}
	for i := range pod.Spec.Volumes {
		if csi := pod.Spec.Volumes[i].CSI; csi != nil && csi.Driver == after.Name {
			logger.V(5).Info("CSIDriver stopped tracking capacity", "pod", klog.KObj(pod), "csiDriver", klog.KObj(after))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterCapacityChange queues the pod on new capacity or when a
// capacity's volume limit grows.
func isSchedulableAfterCapacityChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*storagev1.CSIStorageCapacity](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	if before == nil {
		return framework.Queue, nil
	}
	oldLimit, newLimit := volumeLimit(before), volumeLimit(after)
	if newLimit != nil && (oldLimit == nil || newLimit.Cmp(*oldLimit) > 0) {
		logger.V(5).Info("storage capacity grew", "pod", klog.KObj(pod), "csiStorageCapacity", klog.KObj(after))
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
