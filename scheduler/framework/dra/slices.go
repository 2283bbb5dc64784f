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

package dra

import (
	"context"
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
)

// DeviceTaintRulesServed says whether the apiserver serves DeviceTaintRules
// in resource.k8s.io/v1 (Kubernetes v1.37 and later), that is whether
// WithDeviceTaintRules may be set: a watch on a resource the apiserver does
// not serve would never sync, and the scheduling loop would never start.
func DeviceTaintRulesServed(dc discovery.DiscoveryInterface) (bool, error) {
	resources, err := dc.ServerResourcesForGroupVersion(resourcev1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the apiserver's %s resources: %w", resourcev1.SchemeGroupVersion, err)
	}
	for _, r := range resources.APIResources {
		if r.Name == "devicetaintrules" {
			return true, nil
		}
	}
	return false, nil
}

// StartSliceTracker builds the view of ResourceSlices that every profile's
// DynamicResources allocates from and that cluster events about slices come
// from: with DeviceTaintRules, the slices with the rules' taints applied, so
// that a rule added or removed is a slice update to the queue too. It uses
// the tracker kube-scheduler uses. Its informers start with factory's.
func StartSliceTracker(ctx context.Context, factory informers.SharedInformerFactory, taintRules bool) (*tracker.Tracker, error) {
	r := factory.Resource().V1()
	opts := tracker.Options{
		EnableDeviceTaintRules:   taintRules,
		EnableConsumableCapacity: true,
		SliceInformer:            resourceinformers.ToTypedResourceSliceInformer(r.ResourceSlices()),
	}
	if taintRules {
		opts.TaintInformer = resourceinformers.ToTypedDeviceTaintRuleInformer(r.DeviceTaintRules())
	}
	t, err := tracker.StartTracker(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("starting the ResourceSlice tracker: %w", err)
	}
	return t, nil
}
