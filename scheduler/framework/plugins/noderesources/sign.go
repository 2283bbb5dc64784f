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

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/extendedresource"
)

var (
	_ framework.SignPlugin = &Fit{}
	_ framework.SignPlugin = &BalancedAllocation{}
)

// reasonDRASignature is SignPod's reason for a pod that requests an
// extended resource a DeviceClass serves.
const reasonDRASignature = "signature disabled when dra extended resources are used in the cluster"

// SignPod signs the pod by everything it requests, as PodRequests counts
// it. Ignored resources are signed too: the profile ignores the same ones
// for every pod. A pod requesting an extended resource that a DeviceClass
// serves is not signed, since whether the node or DynamicResources provides
// it differs from node to node and with the claims in flight.
func (f *Fit) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	req := framework.PodRequests(pod)
	dra, err := requestsDRAResource(f.classes, req)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if dra {
		return nil, framework.NewStatus(framework.Unschedulable, reasonDRASignature)
	}
	return []framework.SignFragment{{Key: framework.ResourcesSignKey, Value: req}}, nil
}

// SignPod signs the pod by everything it requests, as Fit does.
// BalancedAllocation, unlike upstream's, never scores by DRA devices (an
// extended resource the node lacks is left out of its score), so a pod
// requesting one that a DeviceClass serves is still signed here; Fit
// declines it.
func (*BalancedAllocation) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.ResourcesSignKey, Value: framework.PodRequests(pod)}}, nil
}

// requestsDRAResource reports whether one of the extended resources the
// request asks a non-zero amount of is served by a DeviceClass. Without
// classes none is.
func requestsDRAResource(classes *extendedresource.Classes, req *framework.Resource) (bool, error) {
	if classes == nil {
		return false, nil
	}
	var names []v1.ResourceName
	for name, amount := range req.ScalarResources {
		if amount != 0 && extendedresource.IsDRAName(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return false, nil
	}
	served, err := classes.Resolve(names...)
	if err != nil {
		return false, err
	}
	return len(served) > 0, nil
}
