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
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const gpuResource = "example.com/gpu"

// extClass is a DeviceClass of the test driver serving example.com/gpu.
func extClass(name string) *resourceapi.DeviceClass {
	c := class(name)
	c.Spec.ExtendedResourceName = ptr.To(gpuResource)
	return c
}

// extEnv is an env whose fake API names created claims from their
// generateName and holds the pods, so that PreBind can patch their status.
func extEnv(t *testing.T, pods []*v1.Pod, objs ...runtime.Object) *env {
	t.Helper()
	e := newEnv(t, objs...)
	e.client.PrependReactor("create", "resourceclaims", func(action k8stesting.Action) (bool, runtime.Object, error) {
		c := action.(k8stesting.CreateAction).GetObject().(*resourceapi.ResourceClaim).DeepCopy()
		if c.Name == "" {
			c.Name = c.GenerateName + "x1"
		}
		c.UID, c.ResourceVersion = types.UID("uid-"+c.Name), "1"
		return true, c, e.client.Tracker().Create(action.GetResource(), c, c.Namespace)
	})
	for _, p := range pods {
		if _, err := e.client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// extNodes: node-a offers devices through DRA only, node-b has a device
// plugin with one example.com/gpu, node-c has neither.
var extNodes = []*v1.Node{
	node("node-a"),
	st.NodeFrom(node("node-b")).Alloc(gpuResource, "1").Obj(),
	node("node-c"),
}

func TestExtendedResourceFilter(t *testing.T) {
	tests := []struct {
		name         string
		pod          *v1.Pod
		objs         []runtime.Object
		wantSkip     bool
		wantFeasible []string
		wantReasons  map[string]string
	}{
		{
			name:         "served by DRA on node-a and by the device plugin on node-b",
			pod:          st.Pod("p").Req(gpuResource, "1").Obj(),
			objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj()},
			wantFeasible: []string{"node-a", "node-b"},
			wantReasons:  map[string]string{"node-c": ErrReasonCannotAllocate},
		},
		{
			name:         "more than node-a's devices",
			pod:          st.Pod("p").Req(gpuResource, "2").Obj(),
			objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj()},
			wantFeasible: []string{"node-b"},
			wantReasons:  map[string]string{"node-a": ErrReasonCannotAllocate, "node-c": ErrReasonCannotAllocate},
		},
		{
			name:         "the implicit name of a class without an extended resource name",
			pod:          st.Pod("p").Req("deviceclass.resource.kubernetes.io/gpu", "1").Obj(),
			objs:         []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj()},
			wantFeasible: []string{"node-a"},
			wantReasons:  map[string]string{"node-b": ErrReasonCannotAllocate, "node-c": ErrReasonCannotAllocate},
		},
		{
			name:     "no class serves the resource: NodeResourcesFit alone judges it",
			pod:      st.Pod("p").Req(gpuResource, "1").Obj(),
			objs:     []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj()},
			wantSkip: true,
		},
		{
			name:         "another extended resource no node has",
			pod:          st.Pod("p").Req(gpuResource, "1", "example.com/nic", "1").Obj(),
			objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj()},
			wantFeasible: nil,
			wantReasons:  map[string]string{"node-a": ErrReasonCannotFitResource, "node-b": ErrReasonCannotFitResource, "node-c": ErrReasonCannotFitResource},
		},
		{
			name: "a claim an earlier attempt left rejects every node",
			pod:  st.Pod("p").Req(gpuResource, "1").Obj(),
			objs: []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj(),
				extendedClaim("p-extended-resources-old", st.Pod("p").Obj()).request("gpu", 1).obj()},
			wantReasons: map[string]string{"node-a": ErrReasonStaleExtendedClaim, "node-b": ErrReasonStaleExtendedClaim, "node-c": ErrReasonStaleExtendedClaim},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.objs...)
			c := e.schedule(e.pl, tt.pod, extNodes...)
			if tt.wantSkip {
				if !c.preStart.IsSkip() {
					t.Fatalf("PreFilter = %v, want Skip", c.preStart)
				}
				return
			}
			if !c.preStart.IsSuccess() {
				t.Fatalf("PreFilter = %v", c.preStart)
			}
			if diff := cmp.Diff(tt.wantFeasible, c.feasible(extNodes)); diff != "" {
				t.Errorf("feasible nodes (-want +got):\n%s", diff)
			}
			reasons := map[string]string{}
			for n, s := range c.byNode {
				if !s.IsSuccess() {
					reasons[n] = s.Message()
				}
			}
			if diff := cmp.Diff(tt.wantReasons, reasons, cmpEmptyMap); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpEmptyMap = cmp.FilterValues(func(a, b map[string]string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

// extendedClaim builds a claim made for the pod's extended resources.
func extendedClaim(name string, pod *v1.Pod) *claimBuilder {
	b := claim(name).ownedBy(pod)
	b.c.Annotations = map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"}
	return b
}

func TestExtendedResourceBinding(t *testing.T) {
	p := st.Pod("p").Req(gpuResource, "1").ContainerName("main").Obj()
	e := extEnv(t, []*v1.Pod{p}, extClass("gpu"), slice("node-a", "gpu-0").obj())
	ctx := context.Background()
	c := e.schedule(e.pl, p, extNodes...)
	if status := e.pl.Reserve(ctx, c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	if n := e.pl.tracker.inFlightCount(); n != 1 {
		t.Fatalf("%d allocations in flight after Reserve, want 1", n)
	}
	if status := e.pl.PreBindPreFlight(ctx, c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBindPreFlight = %v, want Success (PreBind creates the claim)", status)
	}
	if status := e.pl.PreBind(ctx, c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}

	claims, err := e.client.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(claims.Items) != 1 {
		t.Fatalf("claims = %v, %v; want the one created", claims, err)
	}
	got := &claims.Items[0]
	if !isExtendedClaimOf(p, got) || got.GenerateName != "p-extended-resources-" {
		t.Errorf("claim meta = %+v, want annotated, controlled by the pod, generated from p-extended-resources-", got.ObjectMeta)
	}
	wantRequests := []resourceapi.DeviceRequest{{Name: "container-0-request-0", Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
	}}}
	if diff := cmp.Diff(wantRequests, got.Spec.Devices.Requests); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if a := got.Status.Allocation; a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Device != "gpu-0" || a.Devices.Results[0].Request != "container-0-request-0" {
		t.Errorf("allocation = %+v, want gpu-0 for container-0-request-0", a)
	}
	if len(got.Status.ReservedFor) != 1 || got.Status.ReservedFor[0].UID != p.UID {
		t.Errorf("reservedFor = %+v, want the pod", got.Status.ReservedFor)
	}
	if !slices.Contains(got.Finalizers, resourceapi.Finalizer) {
		t.Errorf("finalizers = %v", got.Finalizers)
	}
	pod, err := e.client.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus := &v1.PodExtendedResourceClaimStatus{
		ResourceClaimName: got.Name,
		RequestMappings:   []v1.ContainerExtendedResourceRequest{{ContainerName: "main", ResourceName: gpuResource, RequestName: "container-0-request-0"}},
	}
	if diff := cmp.Diff(wantStatus, pod.Status.ExtendedResourceClaimStatus); diff != "" {
		t.Errorf("extendedResourceClaimStatus (-want +got):\n%s", diff)
	}
	if n := e.pl.tracker.inFlightCount(); n != 0 {
		t.Errorf("%d allocations in flight after PreBind, want 0", n)
	}

	// The informer has not delivered the created claim: its device stays taken.
	other := st.Pod("q").Req(gpuResource, "1").Obj()
	if got := e.schedule(e.pl, other, extNodes...).feasible(extNodes); !slices.Equal(got, []string{"node-b"}) {
		t.Errorf("another pod fits %v before the informer has the claim, want only node-b (device plugin)", got)
	}
	e.syncClaim(got.Name)
	if got := e.schedule(e.pl, other, extNodes...).feasible(extNodes); !slices.Equal(got, []string{"node-b"}) {
		t.Errorf("another pod fits %v after the informer has the claim, want only node-b", got)
	}

	// A failed binding deletes the claim, finalizer first.
	e.pl.Unreserve(ctx, c.state, p, "node-a")
	if _, err := e.client.ResourceV1().ResourceClaims(ns).Get(ctx, got.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("claim after Unreserve: err = %v, want NotFound", err)
	}
}

func TestExtendedResourceOnDevicePluginNode(t *testing.T) {
	p := st.Pod("p").Req(gpuResource, "1").Obj()
	e := extEnv(t, []*v1.Pod{p}, extClass("gpu"), slice("node-a", "gpu-0").obj())
	ctx := context.Background()
	c := e.schedule(e.pl, p, extNodes...)
	if status := e.pl.Reserve(ctx, c.state, p, "node-b"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	if n := e.pl.tracker.inFlightCount(); n != 0 {
		t.Errorf("%d allocations in flight on a device-plugin node, want 0", n)
	}
	if status := e.pl.PreBindPreFlight(ctx, c.state, p, "node-b"); !status.IsSkip() {
		t.Errorf("PreBindPreFlight = %v, want Skip: nothing to write", status)
	}
	if status := e.pl.PreBind(ctx, c.state, p, "node-b"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
	if claims, _ := e.client.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{}); len(claims.Items) != 0 {
		t.Errorf("claims created on a device-plugin node: %v", claims.Items)
	}
}

func TestExtendedResourceWithOwnClaims(t *testing.T) {
	p := st.Pod("p").Req(gpuResource, "1").ResourceClaims("c").Obj()
	e := extEnv(t, []*v1.Pod{p}, extClass("gpu"), slice("node-a", "gpu-0", "gpu-1").obj(), claim("c").request("gpu", 1).obj())
	ctx := context.Background()
	c := e.schedule(e.pl, p, extNodes...)
	if got := c.feasible(extNodes); !slices.Equal(got, []string{"node-a"}) {
		t.Fatalf("feasible = %v, want node-a (the pod's own claim needs a DRA device)", got)
	}
	if status := e.pl.Reserve(ctx, c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	if status := e.pl.PreBind(ctx, c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
	claims, err := e.client.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(claims.Items) != 2 {
		t.Fatalf("claims = %v, %v; want the pod's and the created one", claims, err)
	}
	var devices []string
	for _, claim := range claims.Items {
		if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
			t.Fatalf("claim %s allocation = %+v", claim.Name, claim.Status.Allocation)
		}
		devices = append(devices, claim.Status.Allocation.Devices.Results[0].Device)
	}
	slices.Sort(devices)
	if !slices.Equal(devices, []string{"gpu-0", "gpu-1"}) {
		t.Errorf("devices = %v, want one each", devices)
	}
}

func TestPostFilterDeletesStaleExtendedClaim(t *testing.T) {
	p := st.Pod("p").Req(gpuResource, "1").Obj()
	stale := extendedClaim("p-extended-resources-old", p).request("gpu", 1).allocated("node-a", "gpu-0").reservedFor(p).obj()
	stale.Finalizers = []string{resourceapi.Finalizer}
	e := extEnv(t, []*v1.Pod{p}, extClass("gpu"), slice("node-a", "gpu-0").obj(), stale)
	ctx := context.Background()
	c := e.schedule(e.pl, p, extNodes...)
	if got := c.feasible(extNodes); len(got) != 0 {
		t.Fatalf("feasible = %v, want none while the stale claim exists", got)
	}
	_, status := e.pl.PostFilter(ctx, c.state, p, nil)
	if status.Code() != framework.Unschedulable || status.Message() != ReasonExtendedClaimDeleted {
		t.Errorf("PostFilter = %v, want Unschedulable %q", status, ReasonExtendedClaimDeleted)
	}
	if _, err := e.client.ResourceV1().ResourceClaims(ns).Get(ctx, stale.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("stale claim: err = %v, want NotFound", err)
	}
	// Its deletion retries the pod, allocated or not.
	unallocated := extendedClaim("p-extended-resources-old", p).obj()
	if hint, err := e.pl.isSchedulableAfterClaimChange(klog.Background(), p, unallocated, nil); err != nil || hint != framework.Queue {
		t.Errorf("hint on the stale claim's deletion = %v, %v; want Queue", hint, err)
	}
	if hint, _ := e.pl.isSchedulableAfterClaimChange(klog.Background(), p, claim("unrelated").obj(), nil); hint != framework.QueueSkip {
		t.Errorf("hint on an unrelated unallocated claim's deletion = %v, want QueueSkip", hint)
	}
}

func TestRequestsAndMappings(t *testing.T) {
	classes := map[v1.ResourceName]*resourceapi.DeviceClass{gpuResource: extClass("gpu"), "example.com/nic": class("nic")}
	req := func(name string, count int64, class string) resourceapi.DeviceRequest {
		return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
		}}
	}
	m := func(container, resource, request string) v1.ContainerExtendedResourceRequest {
		return v1.ContainerExtendedResourceRequest{ContainerName: container, ResourceName: resource, RequestName: request}
	}
	tests := []struct {
		name         string
		pod          *v1.Pod
		resources    []v1.ResourceName
		wantRequests []resourceapi.DeviceRequest
		wantMappings []v1.ContainerExtendedResourceRequest
	}{
		{
			name:         "one container; the request index is the resource's among its sorted requests",
			pod:          st.Pod("p").Container("cpu", "1", gpuResource, "2").Obj(),
			resources:    []v1.ResourceName{gpuResource},
			wantRequests: []resourceapi.DeviceRequest{req("container-0-request-1", 2, "gpu")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("c0", gpuResource, "container-0-request-1")},
		},
		{
			name:         "two containers, two resources",
			pod:          st.Pod("p").Container(gpuResource, "1").Container(gpuResource, "1", "example.com/nic", "1").Obj(),
			resources:    []v1.ResourceName{gpuResource, "example.com/nic"},
			wantRequests: []resourceapi.DeviceRequest{req("container-0-request-0", 1, "gpu"), req("container-1-request-0", 1, "gpu"), req("container-1-request-1", 1, "nic")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("c0", gpuResource, "container-0-request-0"), m("c1", gpuResource, "container-1-request-0"), m("c1", "example.com/nic", "container-1-request-1")},
		},
		{
			name:         "an init container reuses the regular container's devices",
			pod:          st.Pod("p").Init(gpuResource, "1").Container(gpuResource, "2").Obj(),
			resources:    []v1.ResourceName{gpuResource},
			wantRequests: []resourceapi.DeviceRequest{req("container-1-request-0", 2, "gpu")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("c0", gpuResource, "container-1-request-0"), m("i0", gpuResource, "container-1-request-0")},
		},
		{
			name:         "an init container asks only for what the regular container lacks",
			pod:          st.Pod("p").Init(gpuResource, "3").Container(gpuResource, "1").Obj(),
			resources:    []v1.ResourceName{gpuResource},
			wantRequests: []resourceapi.DeviceRequest{req("container-0-request-0", 2, "gpu"), req("container-1-request-0", 1, "gpu")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("c0", gpuResource, "container-1-request-0"), m("i0", gpuResource, "container-1-request-0"), m("i0", gpuResource, "container-0-request-0")},
		},
		{
			name:         "init containers run one after the other: the largest request serves both",
			pod:          st.Pod("p").Init(gpuResource, "1").Init(gpuResource, "2").Container("cpu", "1").Obj(),
			resources:    []v1.ResourceName{gpuResource},
			wantRequests: []resourceapi.DeviceRequest{req("container-1-request-0", 2, "gpu")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("i0", gpuResource, "container-1-request-0"), m("i1", gpuResource, "container-1-request-0")},
		},
		{
			name:         "a sidecar declared before an init container runs beside it: no reuse",
			pod:          st.Pod("p").Sidecar(gpuResource, "1").Init(gpuResource, "1").Container("cpu", "1").Obj(),
			resources:    []v1.ResourceName{gpuResource},
			wantRequests: []resourceapi.DeviceRequest{req("container-0-request-0", 1, "gpu"), req("container-1-request-0", 1, "gpu")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("s0", gpuResource, "container-0-request-0"), m("i1", gpuResource, "container-1-request-0")},
		},
		{
			name:         "only the resources asked for",
			pod:          st.Pod("p").Container(gpuResource, "1", "example.com/nic", "1").Obj(),
			resources:    []v1.ResourceName{"example.com/nic"},
			wantRequests: []resourceapi.DeviceRequest{req("container-0-request-1", 1, "nic")},
			wantMappings: []v1.ContainerExtendedResourceRequest{m("c0", "example.com/nic", "container-0-request-1")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requests, mappings := requestsAndMappings(tt.pod, tt.resources, classes)
			if diff := cmp.Diff(tt.wantRequests, requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMappings, mappings); diff != "" {
				t.Errorf("mappings (-want +got):\n%s", diff)
			}
		})
	}
}
