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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/extendedresource"
)

// Extended resources backed by DRA (DRAExtendedResource, GA in v1.37): a
// pod that requests an extended resource a DeviceClass serves (say
// example.com/gpu: 1) gets, on a node without allocatable for it, devices
// of that class from the node's ResourceSlices, through a claim Berth makes
// for the pod as kube-scheduler does:
//
//   - PreFilter finds the classes and starts an in-memory claim, named
//     specialClaimName, owned by the pod; a claim an earlier attempt left
//     (found by its annotation and owner) is stale instead.
//   - Filter rejects every node while a stale claim exists, and otherwise
//     gives the in-memory claim, per node, one request per container and
//     resource that the node's device plugins do not serve, allocated
//     together with the pod's own claims.
//   - PostFilter deletes a stale claim, so the next attempt starts afresh.
//   - Reserve puts the chosen node's allocation in flight.
//   - PreBind creates the claim, writes its allocation and reservation, and
//     records it in the pod's status.extendedResourceClaimStatus, with the
//     request of each container's resource, which the kubelet reads.
//   - Unreserve deletes a claim PreBind created.

const (
	// specialClaimName names the in-memory claim until PreBind creates it;
	// it is not a valid name, so no claim in the API has it.
	specialClaimName = "<extended-resources>"
	// ErrReasonStaleExtendedClaim is Filter's reason while a claim an
	// earlier attempt made for the pod's extended resources exists.
	ErrReasonStaleExtendedClaim = "cannot schedule extended resource claim"
	// ErrReasonCannotFitResource is Filter's reason when the pod requests an
	// extended resource that neither the node's allocatable nor a
	// DeviceClass serves.
	ErrReasonCannotFitResource = "cannot fit resource"
	// ReasonExtendedClaimDeleted is PostFilter's status after it deleted a
	// stale claim for extended resources.
	ReasonExtendedClaimDeleted = "deletion of ResourceClaim completed"
)

// extendedState is what PreFilter learned about the pod's extended
// resources that DeviceClasses serve.
type extendedState struct {
	// index is the claim's place in stateData.claims.
	index int
	// inFlightUID keys the claim's allocation in flight: the in-memory
	// claim's UID, which the created claim does not keep.
	inFlightUID types.UID
	// stale is set when the claim is one an earlier attempt created.
	stale bool
	// requests are the pod's requests of extended resources (and implicit
	// class names), by name.
	requests map[v1.ResourceName]int64
	// classes are the classes serving those of requests a class serves.
	classes map[v1.ResourceName]*resourceapi.DeviceClass
}

// nodeExtended is the extended claim Filter built for one node, with the
// container-to-request mappings PreBind writes into the pod's status.
type nodeExtended struct {
	claim    *resourceapi.ResourceClaim
	mappings []v1.ContainerExtendedResourceRequest
	// allocation is what the allocator chose for claim on the node.
	allocation *resourceapi.AllocationResult
}

// preFilterExtended returns the pod's extended claim: nil when the pod
// requests no extended resource a DeviceClass serves, a claim an earlier
// attempt left (stale), or a new in-memory one. In a relocation the claim
// the pod holds counts as released, as its replacement would get a new one.
func (pl *DynamicResources) preFilterExtended(pod *v1.Pod, relocation bool) (*extendedState, *resourceapi.ResourceClaim, types.UID, error) {
	requests := extendedRequests(pod)
	if len(requests) == 0 {
		return nil, nil, "", nil
	}
	names := make([]v1.ResourceName, 0, len(requests))
	for name := range requests {
		names = append(names, name)
	}
	classes, err := pl.extended.Resolve(names...)
	if err != nil || len(classes) == 0 {
		return nil, nil, "", err
	}
	ext := &extendedState{requests: requests, classes: classes}
	existing, err := pl.findExtendedClaim(pod)
	if err != nil {
		return nil, nil, "", err
	}
	var released types.UID
	switch {
	case existing != nil && relocation:
		released = existing.UID
	case existing != nil:
		ext.stale = true
		ext.inFlightUID = existing.UID
		return ext, existing, "", nil
	}
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    pod.Namespace,
			Name:         specialClaimName,
			UID:          uuid.NewUUID(),
			GenerateName: pod.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true),
			}},
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"},
		},
	}
	ext.inFlightUID = claim.UID
	return ext, claim, released, nil
}

// extendedRequests returns the pod's non-zero requests of resources a
// DeviceClass may serve.
func extendedRequests(pod *v1.Pod) map[v1.ResourceName]int64 {
	if !requestsDRAName(pod.Spec.InitContainers) && !requestsDRAName(pod.Spec.Containers) {
		// Most pods: no need to add up their requests.
		return nil
	}
	var out map[v1.ResourceName]int64
	for name, amount := range framework.PodRequests(pod).ScalarResources {
		if amount == 0 || !extendedresource.IsDRAName(name) {
			continue
		}
		if out == nil {
			out = make(map[v1.ResourceName]int64)
		}
		out[name] = amount
	}
	return out
}

// requestsDRAName reports whether a container requests a resource a
// DeviceClass may serve.
func requestsDRAName(containers []v1.Container) bool {
	for i := range containers {
		for name := range containers[i].Resources.Requests {
			if extendedresource.IsDRAName(name) {
				return true
			}
		}
	}
	return false
}

// isExtendedClaimOf reports whether the claim is one made for the pod's
// extended resources: annotated so and controlled by the pod.
func isExtendedClaimOf(pod *v1.Pod, claim *resourceapi.ResourceClaim) bool {
	if claim.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
		return false
	}
	return slices.ContainsFunc(claim.OwnerReferences, func(o metav1.OwnerReference) bool {
		return o.UID == pod.UID && o.Name == pod.Name && ptr.Deref(o.Controller, false)
	})
}

// findExtendedClaim returns the claim an earlier attempt made for the
// pod's extended resources, or nil.
func (pl *DynamicResources) findExtendedClaim(pod *v1.Pod) (*resourceapi.ResourceClaim, error) {
	claims, err := pl.tracker.lister.ResourceClaims(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing resource claims: %w", err)
	}
	for _, claim := range claims {
		if isExtendedClaimOf(pod, claim) {
			return claim, nil
		}
	}
	return nil, nil
}

// filterExtended returns the extended claim for the node: nil when the
// node's device plugins serve every extended resource the pod requests.
// It rejects the node while a stale claim exists, and when the pod
// requests a resource neither the node nor a DeviceClass serves.
func filterExtended(logger logr.Logger, s *stateData, pod *v1.Pod, nodeInfo *framework.NodeInfo) (*nodeExtended, *framework.Status) {
	ext := s.ext
	if ext.stale {
		return nil, unschedulable(logger, pod, ErrReasonStaleExtendedClaim)
	}
	var fromDRA []v1.ResourceName
	for name := range ext.requests {
		allocatable, onNode := nodeInfo.Allocatable.ScalarResources[name]
		switch {
		case ext.classes[name] != nil && allocatable == 0:
			fromDRA = append(fromDRA, name)
		case !onNode:
			return nil, unschedulable(logger, pod, ErrReasonCannotFitResource)
		}
	}
	if len(fromDRA) == 0 {
		return nil, nil
	}
	slices.Sort(fromDRA)
	claim := s.claims[ext.index].DeepCopy()
	requests, mappings := requestsAndMappings(pod, fromDRA, ext.classes)
	claim.Spec.Devices.Requests = requests
	return &nodeExtended{claim: claim, mappings: mappings}, nil
}

// requestsAndMappings turns the pod's requests of the resources (sorted by
// name) into device requests of their classes, one per container and
// resource, named as upstream names them
// (container-<container index>-request-<resource index>, containers
// counting init containers first, resources in the container's sorted
// requests), and maps each container and resource to its request.
//
// Containers that run together need devices of their own. A regular init
// container runs alone, before the containers after it start: it reuses the
// devices of sidecars declared after it and of the regular containers, and
// asks only for what they lack; regular init containers run one after the
// other, so the largest of their requests serves them all.
func requestsAndMappings(pod *v1.Pod, resources []v1.ResourceName, classes map[v1.ResourceName]*resourceapi.DeviceClass) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	containers := make([]*v1.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		containers = append(containers, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		containers = append(containers, &pod.Spec.Containers[i])
	}
	runsAlone := func(i int) bool {
		return i < len(pod.Spec.InitContainers) && !ptr.Equal(containers[i].RestartPolicy, ptr.To(v1.ContainerRestartPolicyAlways))
	}
	var requests []resourceapi.DeviceRequest
	var mappings []v1.ContainerExtendedResourceRequest
	for _, name := range resources {
		class := classes[name]
		if class == nil {
			continue
		}
		mapping := func(c *v1.Container, request string) v1.ContainerExtendedResourceRequest {
			return v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: request}
		}
		// Containers that run alongside others first: each its own devices.
		lasting := make([]*resourceapi.DeviceRequest, len(containers))
		var lastingMappings []v1.ContainerExtendedResourceRequest
		for i, c := range containers {
			if runsAlone(i) {
				continue
			}
			if count := containerCount(c, name); count > 0 {
				lasting[i] = deviceRequest(i, c, name, class.Name, count)
				lastingMappings = append(lastingMappings, mapping(c, lasting[i].Name))
			}
		}
		var largest *resourceapi.DeviceRequest
		var aloneMappings []v1.ContainerExtendedResourceRequest
		own := sets.New[string]()
		for i, c := range containers {
			if !runsAlone(i) {
				continue
			}
			want := containerCount(c, name)
			if want == 0 {
				continue
			}
			var reused int64
			for _, r := range lasting[i:] {
				if r == nil || reused >= want {
					continue
				}
				reused += r.Exactly.Count
				aloneMappings = append(aloneMappings, mapping(c, r.Name))
			}
			if reused >= want {
				continue
			}
			r := deviceRequest(i, c, name, class.Name, want-reused)
			own.Insert(r.Name)
			aloneMappings = append(aloneMappings, mapping(c, r.Name))
			if largest == nil || r.Exactly.Count > largest.Exactly.Count {
				largest = r
			}
		}
		if largest != nil {
			// The largest request serves every container running alone.
			for i := range aloneMappings {
				if own.Has(aloneMappings[i].RequestName) {
					aloneMappings[i].RequestName = largest.Name
				}
			}
			requests = append(requests, *largest)
		}
		for _, r := range lasting {
			if r != nil {
				requests = append(requests, *r)
			}
		}
		mappings = append(mappings, lastingMappings...)
		mappings = append(mappings, aloneMappings...)
	}
	slices.SortFunc(requests, func(a, b resourceapi.DeviceRequest) int { return strings.Compare(a.Name, b.Name) })
	return requests, mappings
}

// containerCount is how many of the resource the container requests, 0
// when it requests none or a fraction.
func containerCount(c *v1.Container, name v1.ResourceName) int64 {
	q, ok := c.Resources.Requests[name]
	if !ok {
		return 0
	}
	n, ok := q.AsInt64()
	if !ok || n < 0 {
		return 0
	}
	return n
}

// deviceRequest asks for count devices of the class for the container at
// index i, named after the container's index and the resource's index in
// its sorted requests.
func deviceRequest(i int, c *v1.Container, name v1.ResourceName, class string, count int64) *resourceapi.DeviceRequest {
	names := make([]string, 0, len(c.Resources.Requests))
	for n := range c.Resources.Requests {
		names = append(names, string(n))
	}
	slices.Sort(names)
	return &resourceapi.DeviceRequest{
		Name: fmt.Sprintf("container-%d-request-%d", i, slices.Index(names, string(name))),
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: class,
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           count,
		},
	}
}

// createExtendedClaim creates the claim Filter built for the chosen node,
// with the finalizer already set, and returns it as created.
func (pl *DynamicResources) createExtendedClaim(ctx context.Context, chosen *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	claim := chosen.DeepCopy()
	claim.Name, claim.UID = "", ""
	claim.Status = resourceapi.ResourceClaimStatus{}
	claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
	created, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).Create(ctx, claim, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create claim for extended resources %s: %w", klog.KObj(claim), err)
	}
	klog.FromContext(ctx).V(5).Info("Created claim for extended resources", "resourceclaim", klog.KObj(created))
	return created, nil
}

// recordExtendedClaim writes into the pod's status which claim serves its
// extended resources and which of the claim's requests serves each
// container's resource, for the kubelet.
func (pl *DynamicResources) recordExtendedClaim(ctx context.Context, pod *v1.Pod, claim *resourceapi.ResourceClaim, mappings []v1.ContainerExtendedResourceRequest) error {
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"extendedResourceClaimStatus": &v1.PodExtendedResourceClaimStatus{
		RequestMappings:   mappings,
		ResourceClaimName: claim.Name,
	}}})
	if err != nil {
		return err
	}
	if _, err := pl.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("recording extended resource claim %s in the status of pod %s: %w", claim.Name, klog.KObj(pod), err)
	}
	return nil
}

// deleteExtendedClaim removes the finalizer from a claim made for extended
// resources and deletes it; a claim already gone is not an error.
func (pl *DynamicResources) deleteExtendedClaim(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	claims := pl.client.ResourceV1().ResourceClaims(claim.Namespace)
	current := claim.DeepCopy()
	refetch := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if refetch {
			got, err := claims.Get(ctx, claim.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			current = got
		}
		refetch = true
		i := slices.Index(current.Finalizers, resourceapi.Finalizer)
		if i < 0 {
			return nil
		}
		current.Finalizers = slices.Delete(current.Finalizers, i, i+1)
		_, err := claims.Update(ctx, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the finalizer of resource claim %s: %w", klog.KObj(claim), err)
	}
	err = claims.Delete(ctx, claim.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &claim.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting resource claim %s: %w", klog.KObj(claim), err)
	}
	pl.tracker.forget(claim)
	klog.FromContext(ctx).V(5).Info("Deleted claim for extended resources", "resourceclaim", klog.KObj(claim))
	return nil
}
