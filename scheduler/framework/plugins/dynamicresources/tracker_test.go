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
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

func withRV(c *resourceapi.ResourceClaim, rv string) *resourceapi.ResourceClaim {
	c.ResourceVersion = rv
	return c
}

func TestTrackerWrittenClaimUntilInformerCatchesUp(t *testing.T) {
	e := newEnv(t, withRV(claim("c").request("gpu", 1).obj(), "5"))
	tr := e.pl.tracker
	written := withRV(claim("c").request("gpu", 1).allocated("node-a", "gpu-0").obj(), "6")
	tr.wrote(written, written.UID)

	got, err := tr.get(ns, "c")
	if err != nil || got.Status.Allocation == nil {
		t.Fatalf("get = %v, %v; want the written, allocated claim", got, err)
	}
	if n := taken(t, tr); n != 1 {
		t.Errorf("%d devices taken while the informer lags, want 1", n)
	}

	// The informer catches up with a later version, deallocated by someone else.
	e.put(withRV(claim("c").request("gpu", 1).obj(), "7"))
	if got, _ := tr.get(ns, "c"); got.Status.Allocation != nil {
		t.Errorf("get returned the stale written copy after the informer moved on")
	}
	if n := taken(t, tr); n != 0 {
		t.Errorf("%d devices taken after deallocation, want 0", n)
	}
	d := withRV(claim("d").obj(), "1")
	tr.wrote(d, d.UID)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if _, ok := tr.written[types.NamespacedName{Namespace: ns, Name: "c"}]; ok {
		t.Error("the written copy of c was not pruned once the informer caught up")
	}
}

func TestTrackerAllocatedState(t *testing.T) {
	admin := claim("admin").allocated("node-a", "gpu-1").obj()
	admin.Status.Allocation.Devices.Results[0].AdminAccess = ptr.To(true)
	shared := claim("shared").allocated("node-a", "gpu-2").obj()
	shared.Status.Allocation.Devices.Results[0].ShareID = ptr.To(types.UID("share-1"))
	e := newEnv(t, claim("plain").allocated("node-a", "gpu-0").obj(), admin, shared, claim("free").obj())
	if err := e.pl.tracker.reserve(claim("flight").allocated("node-b", "gpu-0").obj()); err != nil {
		t.Fatal(err)
	}
	state, err := e.pl.tracker.allocatedState(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDevices := []structured.DeviceID{
		structured.MakeDeviceID(driver, "node-a", "gpu-0"),
		structured.MakeDeviceID(driver, "node-b", "gpu-0"),
	}
	if state.AllocatedDevices.Len() != len(wantDevices) || !state.AllocatedDevices.HasAll(wantDevices...) {
		t.Errorf("allocated devices = %v, want %v (admin access takes none)", state.AllocatedDevices.UnsortedList(), wantDevices)
	}
	wantShared := structured.MakeSharedDeviceID(structured.MakeDeviceID(driver, "node-a", "gpu-2"), ptr.To(types.UID("share-1")))
	if state.AllocatedSharedDeviceIDs.Len() != 1 || !state.AllocatedSharedDeviceIDs.Has(wantShared) {
		t.Errorf("shared devices = %v, want %v", state.AllocatedSharedDeviceIDs.UnsortedList(), wantShared)
	}
}

func taken(t *testing.T, tr *claimTracker) int {
	t.Helper()
	state, err := tr.allocatedState(nil)
	if err != nil {
		t.Fatal(err)
	}
	return state.AllocatedDevices.Len()
}
