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
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// Reserve puts the allocations Filter found on the chosen node in flight,
// so that no later pod is given the same devices while this one binds.
func (pl *DynamicResources) Reserve(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	s := readState(cs)
	if s == nil || (len(s.toAllocate) == 0 && s.ext == nil) {
		return nil
	}
	s.mu.Lock()
	allocations, ok := s.byNode[nodeName]
	ext := s.extByNode[nodeName]
	// The binding cycle needs only the chosen node's allocations: let the
	// allocator (with its copy of every device taken) and the other nodes'
	// results go, so that pods waiting to bind, many when the apiserver is
	// slow, do not each hold them. The chosen node's stay, for a Reserve
	// again on the same node after an Unreserve: a PodGroup's cycle
	// reserves its members while it tries a placement, undoes that, and
	// reserves the chosen placement's members again.
	s.allocator, s.byNode, s.extByNode = nil, nil, nil
	if ok {
		s.byNode = map[string][]resourceapi.AllocationResult{nodeName: allocations}
	}
	if ext != nil {
		s.extByNode = map[string]*nodeExtended{nodeName: ext}
	}
	s.mu.Unlock()
	if len(s.toAllocate) > 0 && (!ok || len(allocations) != len(s.toAllocate)) {
		return framework.AsStatus(fmt.Errorf("claim allocation not found for node %s", nodeName))
	}
	s.allocations = make([]*resourceapi.AllocationResult, len(s.claims))
	if ext != nil {
		claim := ext.claim.DeepCopy()
		claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
		claim.Status.Allocation = ext.allocation
		if err := pl.tracker.reserve(claim); err != nil {
			return framework.AsStatus(err)
		}
		s.allocations[s.ext.index] = ext.allocation
		s.chosenExt = ext
		klog.FromContext(ctx).V(5).Info("Reserved devices for extended resources", "pod", klog.KObj(pod), "node", nodeName)
	}
	for j, i := range s.toAllocate {
		claim := s.claims[i].DeepCopy()
		if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
			claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
		}
		claim.Status.Allocation = &allocations[j]
		if err := pl.tracker.reserve(claim); err != nil {
			pl.release(s)
			return framework.AsStatus(err)
		}
		s.allocations[i] = claim.Status.Allocation
		klog.FromContext(ctx).V(5).Info("Reserved devices", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim), "node", nodeName)
	}
	return nil
}

// release ends the allocations this pod put in flight.
func (pl *DynamicResources) release(s *stateData) {
	for i, a := range s.allocations {
		if a == nil {
			continue
		}
		if s.isExt(i) {
			pl.tracker.release(s.ext.inFlightUID)
		} else {
			pl.tracker.release(s.claims[i].UID)
		}
		s.allocations[i] = nil
	}
}

// Unreserve ends the pod's allocations in flight and removes the pod from
// the reservedFor of the claims PreBind reserved for it. The allocation
// written stays: the claim is freed by PostFilter or the resourceclaim
// controller, as upstream. A claim PreBind created for the pod's extended
// resources is deleted.
func (pl *DynamicResources) Unreserve(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, _ string) {
	s := readState(cs)
	if s == nil {
		return
	}
	pl.release(s)
	logger := klog.FromContext(ctx)
	for i, claim := range s.claims {
		if s.isExt(i) {
			if !s.ext.stale && claim.Name != specialClaimName {
				if err := pl.deleteExtendedClaim(ctx, claim); err != nil {
					// The next attempt finds it stale and deletes it in PostFilter.
					logger.Error(err, "Deleting the claim for extended resources", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim))
				}
			}
			continue
		}
		if claim.Status.Allocation == nil || !resourceclaim.IsReservedForPod(pod, claim, false) {
			continue
		}
		patch := fmt.Sprintf(`{"metadata":{"uid":%q},"status":{"reservedFor":[{"$patch":"delete","uid":%q}]}}`, claim.UID, pod.UID)
		if _, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).Patch(ctx, claim.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			// The next attempt finds the pod reserved and goes on from there.
			logger.Error(err, "Removing the pod from a resource claim's reservedFor", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim))
		}
	}
}

// PreBindPreFlight reports that PreBind has work for every pod with
// claims, or with extended resources DRA serves on the node: it writes them and may wait for their devices' binding
// conditions, so the scheduler nominates the pod to its node first.
func (*DynamicResources) PreBindPreFlight(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) *framework.Status {
	s := readState(cs)
	if s == nil || len(s.claims) == 0 || (s.ext != nil && len(s.claims) == 1 && s.chosenExt == nil) {
		// No claims, or only extended resources the node's device plugins serve.
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// PreBind writes each claim's allocation (chosen in Reserve) and adds the
// pod to its reservedFor, then waits up to bindingTimeout for the binding
// conditions of allocated devices that have any.
func (pl *DynamicResources) PreBind(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	s := readState(cs)
	if s == nil || len(s.claims) == 0 {
		return nil
	}
	for i, claim := range s.claims {
		if s.isExt(i) {
			continue
		}
		if resourceclaim.IsReservedForPod(pod, claim, false) {
			continue
		}
		var allocation *resourceapi.AllocationResult
		if s.allocations != nil {
			allocation = s.allocations[i]
		}
		written, err := pl.bindClaim(ctx, pod, claim, allocation, claim.UID)
		if err != nil {
			return framework.AsStatus(err)
		}
		s.claims[i] = written
	}
	if s.chosenExt != nil {
		if err := pl.bindExtendedClaim(ctx, s, pod); err != nil {
			return framework.AsStatus(err)
		}
	}
	if !hasBindingConditions(s.claims) {
		return nil
	}
	if r := pl.handle.EventRecorder(); r != nil {
		r.Eventf(pod, nil, v1.EventTypeNormal, "BindingConditionsPending", "Scheduling", "waiting for binding conditions for device on node %s", nodeName)
	}
	if err := pl.waitForBinding(ctx, s); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}

// bindExtendedClaim creates the claim for the pod's extended resources
// that Filter built for the chosen node, writes its allocation and the
// pod's reservation, and records it in the pod's status.
func (pl *DynamicResources) bindExtendedClaim(ctx context.Context, s *stateData, pod *v1.Pod) error {
	i := s.ext.index
	created, err := pl.createExtendedClaim(ctx, s.chosenExt.claim)
	if err != nil {
		return err
	}
	// From now on Unreserve deletes it.
	s.claims[i] = created
	pl.tracker.created(created)
	written, err := pl.bindClaim(ctx, pod, created, s.allocations[i], s.ext.inFlightUID)
	if err != nil {
		return err
	}
	s.claims[i] = written
	return pl.recordExtendedClaim(ctx, pod, written, s.chosenExt.mappings)
}

// bindClaim writes the allocation, if any, and the pod's reservation into
// the claim's status, refetching the claim on a conflict. It returns the
// claim as written and records it in the tracker, which ends the
// allocation in flight under inFlight.
func (pl *DynamicResources) bindClaim(ctx context.Context, pod *v1.Pod, claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult, inFlight types.UID) (*resourceapi.ResourceClaim, error) {
	claims := pl.client.ResourceV1().ResourceClaims(claim.Namespace)
	consumer := resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID}
	current := claim.DeepCopy()
	refetch := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if refetch {
			got, err := claims.Get(ctx, claim.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("get updated claim %s after conflict: %w", klog.KObj(claim), err)
			}
			current = got
		}
		refetch = true
		if current.DeletionTimestamp != nil {
			return fmt.Errorf("claim %s got deleted in the meantime", klog.KObj(claim))
		}
		if allocation != nil {
			if current.Status.Allocation != nil {
				return fmt.Errorf("claim %s got allocated elsewhere in the meantime", klog.KObj(claim))
			}
			if !slices.Contains(current.Finalizers, resourceapi.Finalizer) {
				current.Finalizers = append(current.Finalizers, resourceapi.Finalizer)
				updated, err := claims.Update(ctx, current, metav1.UpdateOptions{})
				if err != nil {
					return fmt.Errorf("add finalizer to claim %s: %w", klog.KObj(claim), err)
				}
				current = updated
			}
			current.Status.Allocation = allocation.DeepCopy()
		}
		if current.Status.Allocation == nil {
			return fmt.Errorf("claim %s got deallocated elsewhere in the meantime", klog.KObj(claim))
		}
		if current.Status.Allocation.AllocationTimestamp == nil {
			current.Status.Allocation.AllocationTimestamp = &metav1.Time{Time: pl.clock.Now()}
		}
		current.Status.ReservedFor = append(current.Status.ReservedFor, consumer)
		updated, err := claims.UpdateStatus(ctx, current, metav1.UpdateOptions{})
		if err != nil {
			if allocation != nil {
				return fmt.Errorf("add allocation and reservation to claim %s: %w", klog.KObj(claim), err)
			}
			return fmt.Errorf("add reservation to claim %s: %w", klog.KObj(claim), err)
		}
		current = updated
		return nil
	})
	if err != nil {
		return nil, err
	}
	pl.tracker.wrote(current, inFlight)
	klog.FromContext(ctx).V(5).Info("Reserved resource claim", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(current))
	return current, nil
}

// hasBindingConditions reports whether a device allocated to one of the
// claims has binding conditions to wait for.
func hasBindingConditions(claims []*resourceapi.ResourceClaim) bool {
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			if len(r.BindingConditions) > 0 {
				return true
			}
		}
	}
	return false
}

// waitForBinding polls the claims until every device's binding conditions
// are true, one of its failure conditions is, or bindingTimeout passes.
func (pl *DynamicResources) waitForBinding(ctx context.Context, s *stateData) error {
	timeout := pl.clock.NewTimer(pl.bindingTimeout)
	defer timeout.Stop()
	ticker := pl.clock.NewTicker(pl.pollInterval)
	defer ticker.Stop()
	for {
		ready, err := pl.claimsReadyForBinding(s)
		if err != nil || ready {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for binding conditions: %w", context.Cause(ctx))
		case <-timeout.C():
			return fmt.Errorf("%w: waited %v for binding conditions", ErrDeviceBindingTimeout, pl.bindingTimeout)
		case <-ticker.C():
		}
	}
}

// claimsReadyForBinding refreshes the claims and reports whether all their
// devices are ready.
func (pl *DynamicResources) claimsReadyForBinding(s *stateData) (bool, error) {
	for i, claim := range s.claims {
		current, err := pl.tracker.get(claim.Namespace, claim.Name)
		if err != nil {
			return false, fmt.Errorf("reading claim %s: %w", klog.KObj(claim), err)
		}
		s.claims[i] = current
		ready, err := readyForBinding(current)
		if err != nil {
			return false, err
		}
		if !ready {
			if pl.bindingTimedOut(current) {
				return false, fmt.Errorf("%w: claim=%s", ErrDeviceBindingTimeout, current.Name)
			}
			return false, nil
		}
	}
	return true, nil
}

// readyForBinding reports whether every allocated device of the claim that
// has binding conditions has them all true; a true binding failure
// condition is an error. A claim without such devices is ready.
func readyForBinding(claim *resourceapi.ResourceClaim) (bool, error) {
	if claim.Status.Allocation == nil {
		return false, nil
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if len(r.BindingConditions) == 0 {
			continue
		}
		status := deviceStatus(claim, &r)
		if status == nil {
			return false, nil
		}
		for _, c := range r.BindingFailureConditions {
			if failed := meta.FindStatusCondition(status.Conditions, c); failed != nil && failed.Status == metav1.ConditionTrue {
				return false, fmt.Errorf("%w: claim=%s, reason=%s, message=%q", ErrDeviceBindingFailed, claim.Name, failed.Reason, failed.Message)
			}
		}
		for _, c := range r.BindingConditions {
			if !meta.IsStatusConditionTrue(status.Conditions, c) {
				return false, nil
			}
		}
	}
	return true, nil
}

// deviceStatus returns the status the driver reported for an allocated device.
func deviceStatus(claim *resourceapi.ResourceClaim, r *resourceapi.DeviceRequestAllocationResult) *resourceapi.AllocatedDeviceStatus {
	for i := range claim.Status.Devices {
		d := &claim.Status.Devices[i]
		if d.Driver == r.Driver && d.Pool == r.Pool && d.Device == r.Device {
			return d
		}
	}
	return nil
}

// bindingTimedOut reports whether a device of the claim with binding
// conditions was allocated longer than bindingTimeout ago.
func (pl *DynamicResources) bindingTimedOut(claim *resourceapi.ResourceClaim) bool {
	a := claim.Status.Allocation
	if a == nil || a.AllocationTimestamp == nil {
		return false
	}
	if !slices.ContainsFunc(a.Devices.Results, func(r resourceapi.DeviceRequestAllocationResult) bool { return len(r.BindingConditions) > 0 }) {
		return false
	}
	return a.AllocationTimestamp.Add(pl.bindingTimeout).Before(pl.clock.Now())
}
