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

package throughput

import (
	"context"
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

const (
	// DRADriver is the driver of the DynamicResources workload's devices.
	DRADriver = "gpu.bench.berth.io"
	// DeviceClassName is the DeviceClass that the workload's claims ask for.
	DeviceClassName = "bench-gpu"
)

// claimName returns the name of the i-th pod's ResourceClaim.
func claimName(i int) string { return fmt.Sprintf("bench-claim-%d", i) }

// makeDeviceClass returns the DeviceClass selecting DRADriver's devices.
func makeDeviceClass() *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: DeviceClassName},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + DRADriver + `"`},
		}}},
	}
}

// makeSlice returns the ResourceSlice of the i-th node: devices devices in
// one pool named after the node, as a driver's kubelet plugin publishes them.
func makeSlice(i, devices int) *resourcev1.ResourceSlice {
	node := nodeName(i)
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   DRADriver,
			NodeName: ptr.To(node),
			Pool:     resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
			Devices:  make([]resourcev1.Device, 0, devices),
		},
	}
	for d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("gpu-%d", d)})
	}
	return s
}

// makeClaim returns the i-th pod's ResourceClaim: one device of DeviceClassName.
func makeClaim(i int) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claimName(i), Namespace: Namespace},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name:    "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: DeviceClassName},
		}}}},
	}
}

// createDevices creates, for a workload with devices, the DeviceClass, one
// ResourceSlice per node and one ResourceClaim per pod, with workers calls
// at once. Steady arrival creates no claims: its pods must not claim devices.
func (w Workload) createDevices(ctx context.Context, client kubernetes.Interface, workers int) error {
	if w.DevicesPerNode <= 0 {
		return nil
	}
	if w.ArrivalRate > 0 {
		return fmt.Errorf("workload %s: steady arrival with devices is not supported", w.Name)
	}
	resources := client.ResourceV1()
	if _, err := resources.DeviceClasses().Create(ctx, makeDeviceClass(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the DeviceClass: %w", err)
	}
	if err := parallel(ctx, w.Nodes, workers, func(ctx context.Context, i int) error {
		_, err := resources.ResourceSlices().Create(ctx, makeSlice(i, w.DevicesPerNode), metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating ResourceSlices: %w", err)
	}
	if err := parallel(ctx, w.Pods, workers, func(ctx context.Context, i int) error {
		_, err := resources.ResourceClaims(Namespace).Create(ctx, makeClaim(i), metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating ResourceClaims: %w", err)
	}
	return nil
}

// ClaimStats is what a scheduler had done with a DynamicResources workload's
// claims by its last bind: a scheduler that bound pods without allocating
// their claims (as the null binder does) shows it here.
type ClaimStats struct {
	// Claims is how many claims the workload has, one per pod.
	Claims int `json:"claims"`
	// Allocated counts the claims with status.allocation.
	Allocated int `json:"allocated"`
	// DistinctDevices counts the distinct devices allocated.
	DistinctDevices int `json:"distinctDevices"`
	// OnPodsNode counts the bound pods whose claim's device is on the pod's
	// node (the device's pool is named after its node).
	OnPodsNode int `json:"onPodsNode"`
}

// readClaimStats reads the workload's claims and pods, a page at a time.
func readClaimStats(ctx context.Context, client kubernetes.Interface) (*ClaimStats, error) {
	pools := map[string]string{} // claim → pool of its first device
	devices := map[string]bool{}
	st := &ClaimStats{}
	opts := metav1.ListOptions{Limit: 5000}
	for {
		list, err := client.ResourceV1().ResourceClaims(Namespace).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing ResourceClaims: %w", err)
		}
		for _, c := range list.Items {
			st.Claims++
			if c.Status.Allocation == nil || len(c.Status.Allocation.Devices.Results) == 0 {
				continue
			}
			st.Allocated++
			r := c.Status.Allocation.Devices.Results[0]
			pools[c.Name] = r.Pool
			devices[r.Driver+"/"+r.Pool+"/"+r.Device] = true
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	st.DistinctDevices = len(devices)
	opts = metav1.ListOptions{LabelSelector: WorkloadLabel, Limit: 5000}
	for {
		list, err := client.CoreV1().Pods(Namespace).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing pods: %w", err)
		}
		for _, p := range list.Items {
			if p.Spec.NodeName == "" || len(p.Spec.ResourceClaims) == 0 || p.Spec.ResourceClaims[0].ResourceClaimName == nil {
				continue
			}
			if pools[*p.Spec.ResourceClaims[0].ResourceClaimName] == p.Spec.NodeName {
				st.OnPodsNode++
			}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	return st, nil
}
