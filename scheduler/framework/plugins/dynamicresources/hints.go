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

package dynamicresources

import (
	"context"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
)

// EventsToRegister lists what may help a pod this plugin rejected: a new
// node or a node's labels or allocatable (device availability may depend on
// them), a change of one of its claims or the deallocation of any claim, its
// own generated claims appearing in its status, a new or changed DeviceClass
// or ResourceSlice, and the deletion of a pod with claims.
func (pl *DynamicResources) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel | framework.UpdateNodeAllocatable}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add | framework.Update | framework.Delete}, QueueingHintFn: pl.isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodGeneratedResourceClaim}, QueueingHintFn: pl.isSchedulableAfterOwnClaimsCreated},
		{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}, QueueingHintFn: isSchedulableAfterPodWithClaimsDeleted},
	}, nil
}

// isSchedulableAfterClaimChange queues the pod when a claim it uses was
// created or had its status changed, when any claim was deallocated or
// deleted with an allocation (its devices are free now), and when a stale
// claim for its extended resources was deleted. A claim deleted in an
// unknown final state queues the pod too.
func (pl *DynamicResources) isSchedulableAfterClaimChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	if _, ok := oldObj.(cache.DeletedFinalStateUnknown); ok && newObj == nil {
		return framework.Queue, nil
	}
	before, after, err := eventobj.Pair[*resourceapi.ResourceClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		if before != nil && before.Status.Allocation != nil {
			logger.V(6).Info("Allocated resource claim deleted", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(before))
			return framework.Queue, nil
		}
		if before != nil && isExtendedClaimOf(pod, before) {
			logger.V(5).Info("Stale claim for the pod's extended resources deleted", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(before))
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	if before != nil && before.Status.Allocation != nil && after.Status.Allocation == nil {
		logger.V(6).Info("Resource claim deallocated", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(after))
		return framework.Queue, nil
	}
	claims, err := pl.podClaims(pod)
	if err != nil {
		// The pod still misses a claim; this one did not complete it.
		return framework.QueueSkip, nil
	}
	uses := false
	for _, c := range claims {
		if c.UID == after.UID {
			uses = true
			break
		}
	}
	switch {
	case !uses:
		return framework.QueueSkip, nil
	case before == nil:
		logger.V(5).Info("Resource claim of the pod created", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(after))
		return framework.Queue, nil
	case equality.Semantic.DeepEqual(&before.Status, &after.Status):
		// A finalizer or label changed, nothing the pod waits for.
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("Status of the pod's resource claim changed", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(after))
	return framework.Queue, nil
}

// isSchedulableAfterOwnClaimsCreated queues the pod when its status now
// names a claim for each of its template claims and those exist.
func (pl *DynamicResources) isSchedulableAfterOwnClaimsCreated(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, after, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil || after.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	if _, err := pl.podClaims(after); err != nil {
		logger.V(6).Info("Pod still misses a resource claim", "pod", klog.KObj(pod), "reason", err.Error())
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// isSchedulableAfterPodWithClaimsDeleted queues the pod when a pod with
// claims was deleted, or its binding failed: the allocation that pod had in
// flight is free again, and its claims may be deallocated soon.
func isSchedulableAfterPodWithClaimsDeleted(_ logr.Logger, _ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil || len(deleted.Spec.ResourceClaims) == 0 {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
