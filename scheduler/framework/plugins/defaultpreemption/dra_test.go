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

package defaultpreemption

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// draDriver is the driver of the test's devices.
const draDriver = "gpu.example.com"

// gpuClass is a DeviceClass selecting every device.
func gpuClass() *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu", ResourceVersion: "1"}}
}

// gpuSlice publishes the named devices on a node.
func gpuSlice(node string, devices ...string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus", ResourceVersion: "1"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: draDriver, NodeName: ptr.To(node),
			Pool: resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
	}
	return s
}

// gpuClaim asks for one device of gpuClass; with a pod it is allocated the
// device on the pod's node and reserved for the pod, as a running pod's claim is.
func gpuClaim(name string, holder *v1.Pod, device string) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), ResourceVersion: "1"},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name:    "gpu",
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1},
		}}}},
	}
	if holder == nil {
		return c
	}
	node := holder.Spec.NodeName
	c.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
			Request: "gpu", Driver: draDriver, Pool: node, Device: device,
		}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
		}}},
	}
	c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: holder.Name, UID: holder.UID}}
	return c
}

// TestPostFilterWithDeviceClaims checks preemption beside DynamicResources
// as kube-scheduler v1.37 has it: DynamicResources has no
// PreFilterExtensions and rejects a node whose devices are all taken as
// UnschedulableAndUnresolvable, so preemption never evicts a pod to free
// its devices; it still evicts pods (with claims or not) for other
// resources on nodes where the preemptor's devices are free.
func TestPostFilterWithDeviceClaims(t *testing.T) {
	low := st.Pod("low").Priority(1).Container("cpu", "2").NodeName("n1").ResourceClaims("low-gpu").Obj()
	lowNoClaim := st.Pod("low").Priority(1).Container("cpu", "2").NodeName("n1").Obj()
	tests := []struct {
		name        string
		cluster     cluster
		pod         *v1.Pod
		wantNode    string
		wantDeleted []string
		wantCode    framework.Code
		wantMsg     string
	}{
		{
			name: "a device held by a lower-priority pod is not freed",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "4")}, pods: []*v1.Pod{low},
				dra: []runtime.Object{gpuClass(), gpuSlice("n1", "gpu-0"), gpuClaim("low-gpu", low, "gpu-0"), gpuClaim("urgent-gpu", nil, "")}},
			pod:      st.Pod("urgent").Priority(100).Container("cpu", "1").ResourceClaims("urgent-gpu").Obj(),
			wantCode: framework.Unschedulable,
			wantMsg:  "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			// NodeResourcesFit rejects the node first (resolvable); with the
			// lower-priority pod removed the dry run meets DynamicResources,
			// whose reason the node then reports.
			name: "nor when it also lacks CPU there: the dry run reports the devices",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{low},
				dra: []runtime.Object{gpuClass(), gpuSlice("n1", "gpu-0"), gpuClaim("low-gpu", low, "gpu-0"), gpuClaim("urgent-gpu", nil, "")}},
			pod:      st.Pod("urgent").Priority(100).Container("cpu", "2").ResourceClaims("urgent-gpu").Obj(),
			wantCode: framework.Unschedulable,
			wantMsg:  "preemption: 0/1 nodes are available: 1 cannot allocate all claims.",
		},
		{
			name: "a pod holding a device is evicted for CPU where the preemptor's device is free",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{low},
				dra: []runtime.Object{gpuClass(), gpuSlice("n1", "gpu-0", "gpu-1"), gpuClaim("low-gpu", low, "gpu-0"), gpuClaim("urgent-gpu", nil, "")}},
			pod:         st.Pod("urgent").Priority(100).Container("cpu", "2").ResourceClaims("urgent-gpu").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"low"},
			wantCode:    framework.Success,
		},
		{
			name: "a pod without claims preempts a pod holding a device",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{low},
				dra: []runtime.Object{gpuClass(), gpuSlice("n1", "gpu-0"), gpuClaim("low-gpu", low, "gpu-0")}},
			pod:         st.Pod("urgent").Priority(100).Container("cpu", "2").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"low"},
			wantCode:    framework.Success,
		},
		{
			name: "a released claim's device counts as free: only CPU is preempted",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{lowNoClaim},
				dra: []runtime.Object{gpuClass(), gpuSlice("n1", "gpu-0"), gpuClaim("low-gpu", nil, ""), gpuClaim("urgent-gpu", nil, "")}},
			pod:         st.Pod("urgent").Priority(100).Container("cpu", "2").ResourceClaims("urgent-gpu").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"low"},
			wantCode:    framework.Success,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cluster
			c.sync = true
			c.pods = append(slices.Clone(c.pods), tt.pod)
			e := newEnv(t, c)
			result, status := e.schedule(t, tt.pod)
			if status.Code() != tt.wantCode {
				t.Fatalf("status %v, want code %v", status, tt.wantCode)
			}
			if tt.wantMsg != "" && status.Message() != tt.wantMsg {
				t.Errorf("message\n got %q\nwant %q", status.Message(), tt.wantMsg)
			}
			if tt.wantNode != "" && (result == nil || result.NominatedNodeName != tt.wantNode) {
				t.Errorf("result %+v, want nomination %q", result, tt.wantNode)
			}
			if got := e.deleted(); !slices.Equal(got, tt.wantDeleted) {
				t.Errorf("deleted %v, want %v", got, tt.wantDeleted)
			}
		})
	}
}
