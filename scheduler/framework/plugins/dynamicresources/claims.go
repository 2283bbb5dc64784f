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
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// podClaims returns the pod's ResourceClaims in the order of
// spec.resourceClaims, skipping entries for which no claim was meant to be
// created. Claims made from a ResourceClaimTemplate are found through
// status.resourceClaimStatuses and must be owned by the pod. The error
// explains why the pod cannot be scheduled yet: a claim not created, not
// found, being deleted or not the pod's.
func (pl *DynamicResources) podClaims(pod *v1.Pod) ([]*resourceapi.ResourceClaim, error) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil, nil
	}
	claims := make([]*resourceapi.ResourceClaim, 0, len(pod.Spec.ResourceClaims))
	for i := range pod.Spec.ResourceClaims {
		podClaim := &pod.Spec.ResourceClaims[i]
		name, mustCheckOwner, err := resourceclaim.Name(pod, podClaim)
		if err != nil {
			return nil, err
		}
		if name == nil {
			continue
		}
		claim, err := pl.tracker.get(pod.Namespace, *name)
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("could not find ResourceClaim %q", pod.Namespace+"/"+*name)
		}
		if err != nil {
			return nil, fmt.Errorf("reading ResourceClaim %s/%s: %w", pod.Namespace, *name, err)
		}
		if claim.DeletionTimestamp != nil {
			return nil, fmt.Errorf("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, claim, false); err != nil {
				return nil, err
			}
		}
		claims = append(claims, claim)
	}
	return claims, nil
}

// classLister gives the allocator the informer's DeviceClasses.
type classLister struct {
	lister resourcelisters.DeviceClassLister
}

// List returns every DeviceClass.
func (l classLister) List() ([]*resourceapi.DeviceClass, error) {
	return l.lister.List(labels.Everything())
}

// Get returns the named DeviceClass, or a NotFound error.
func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	return l.lister.Get(name)
}
