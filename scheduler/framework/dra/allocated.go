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

// Package dra holds what the scheduler shares with every profile's
// DynamicResources plugin: the index of the devices that allocated
// ResourceClaims hold, fed by the scheduler's own ResourceClaim handler, and
// the ResourceSlices devices are allocated from. The scheduler builds them
// once; plugins read them through framework.Handle.
package dra

import (
	"maps"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// AllocatedDevices indexes the devices the informer's ResourceClaims hold
// through their allocations, so that PreFilter copies a set instead of
// walking every claim. The scheduler feeds it from its own ResourceClaim
// event handler, before that handler asks the queue which pods the event
// helps: a pod retried because a claim released its devices always finds
// them released here, which an index behind a handler of its own could not
// promise.
//
// Every claim is recorded with its resourceVersion, allocated or not, so
// that the claim tracker can tell whether a claim it wrote is already
// reflected.
type AllocatedDevices struct {
	mu     sync.RWMutex
	claims map[types.UID]*Claim
	// devices and shared count the claims holding each device or share;
	// deviceSet and sharedSet hold those counted at least once, ready to copy.
	devices   map[structured.DeviceID]int
	deviceSet sets.Set[structured.DeviceID]
	shared    map[structured.SharedDeviceID]int
	sharedSet sets.Set[structured.SharedDeviceID]
	capacity  structured.ConsumedCapacityCollection
}

// Claim is what one claim's allocation holds, as the index has it.
type Claim struct {
	resourceVersion string
	devices         []structured.DeviceID
	shared          []structured.SharedDeviceID
	capacity        []structured.DeviceConsumedCapacity
}

// NewAllocatedDevices returns an empty index.
func NewAllocatedDevices() *AllocatedDevices {
	return &AllocatedDevices{
		claims:    make(map[types.UID]*Claim),
		devices:   make(map[structured.DeviceID]int),
		deviceSet: sets.New[structured.DeviceID](),
		shared:    make(map[structured.SharedDeviceID]int),
		sharedSet: sets.New[structured.SharedDeviceID](),
		capacity:  structured.NewConsumedCapacityCollection(),
	}
}

// Set records the claim as the informer has it now, added or updated.
func (a *AllocatedDevices) Set(claim *resourceapi.ResourceClaim) {
	held := devicesOf(claim.Status.Allocation)
	held.resourceVersion = claim.ResourceVersion
	a.mu.Lock()
	defer a.mu.Unlock()
	if old := a.claims[claim.UID]; old != nil {
		a.countLocked(old, -1)
	}
	a.claims[claim.UID] = held
	a.countLocked(held, 1)
}

// Delete forgets a claim the informer no longer has.
func (a *AllocatedDevices) Delete(claim *resourceapi.ResourceClaim) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if old := a.claims[claim.UID]; old != nil {
		a.countLocked(old, -1)
		delete(a.claims, claim.UID)
	}
}

// Then returns a ResourceClaim event handler that records each event in
// the index, then passes it on to next.
func (a *AllocatedDevices) Then(next cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			if c, ok := obj.(*resourceapi.ResourceClaim); ok {
				a.Set(c)
			}
			next.OnAdd(obj, initial)
		},
		UpdateFunc: func(oldObj, newObj any) {
			if c, ok := newObj.(*resourceapi.ResourceClaim); ok {
				a.Set(c)
			}
			next.OnUpdate(oldObj, newObj)
		},
		DeleteFunc: func(obj any) {
			deleted := obj
			if t, ok := deleted.(cache.DeletedFinalStateUnknown); ok {
				deleted = t.Obj
			}
			if c, ok := deleted.(*resourceapi.ResourceClaim); ok {
				a.Delete(c)
			}
			next.OnDelete(obj)
		},
	}
}

// countLocked adds (by 1) or removes (by -1) what a claim holds.
func (a *AllocatedDevices) countLocked(c *Claim, by int) {
	for _, d := range c.devices {
		count(a.devices, a.deviceSet, d, by)
	}
	for _, sh := range c.shared {
		count(a.shared, a.sharedSet, sh, by)
	}
	for _, cap := range c.capacity {
		if by > 0 {
			a.capacity.Insert(cap)
		} else {
			a.capacity.Remove(cap)
		}
	}
}

// count changes k's count by by, keeping held to the keys counted at least once.
func count[K comparable](counts map[K]int, held sets.Set[K], k K, by int) {
	counts[k] += by
	switch counts[k] {
	case 0:
		delete(counts, k)
		held.Delete(k)
	case 1:
		held.Insert(k)
	}
}

// ResourceVersion is the resourceVersion of the claim the index recorded.
func (c *Claim) ResourceVersion() string { return c.resourceVersion }

// View is a consistent read of the index, valid only inside Read.
type View struct{ a *AllocatedDevices }

// Read calls f with the index read-locked.
func (a *AllocatedDevices) Read(f func(View)) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	f(View{a: a})
}

// State copies the devices held into a state the allocator may change.
func (v View) State() structured.AllocatedState {
	return structured.AllocatedState{
		AllocatedDevices:         maps.Clone(v.a.deviceSet),
		AllocatedSharedDeviceIDs: maps.Clone(v.a.sharedSet),
		AggregatedCapacity:       v.a.capacity.Clone(),
	}
}

// Claim returns what the index knows of a claim, nil when it has none.
func (v View) Claim(uid types.UID) *Claim { return v.a.claims[uid] }

// Remover takes claims out of a state copied from the index, leaving
// each device and share as long as a claim not taken out holds it.
type Remover struct {
	v       View
	state   *structured.AllocatedState
	devices map[structured.DeviceID]int
	shared  map[structured.SharedDeviceID]int
}

// Remover returns a Remover for state, a copy of v's State.
func (v View) Remover(state *structured.AllocatedState) *Remover {
	return &Remover{
		v: v, state: state,
		devices: make(map[structured.DeviceID]int),
		shared:  make(map[structured.SharedDeviceID]int),
	}
}

// Remove takes out what the claim c holds.
func (r *Remover) Remove(c *Claim) {
	for _, d := range c.devices {
		takeOut(r.devices, r.v.a.devices, r.state.AllocatedDevices, d)
	}
	for _, sh := range c.shared {
		takeOut(r.shared, r.v.a.shared, r.state.AllocatedSharedDeviceIDs, sh)
	}
	for _, cap := range c.capacity {
		r.state.AggregatedCapacity.Remove(cap)
	}
}

// takeOut counts one more holder of k taken out, and drops k from held
// once every holder the index counts is.
func takeOut[K comparable](out, holders map[K]int, held sets.Set[K], k K) {
	out[k]++
	if out[k] >= holders[k] {
		held.Delete(k)
	}
}

// devicesOf lists what an allocation holds.
func devicesOf(allocation *resourceapi.AllocationResult) *Claim {
	c := &Claim{}
	eachHeld(allocation,
		func(id structured.DeviceID) { c.devices = append(c.devices, id) },
		func(id structured.SharedDeviceID, cap *structured.DeviceConsumedCapacity) {
			c.shared = append(c.shared, id)
			if cap != nil {
				c.capacity = append(c.capacity, *cap)
			}
		})
	return c
}

// eachHeld calls device for each device an allocation holds whole and
// share for each share of a device (with the capacity it consumes, if
// any): devices allocated with admin access hold nothing.
func eachHeld(allocation *resourceapi.AllocationResult, device func(structured.DeviceID), share func(structured.SharedDeviceID, *structured.DeviceConsumedCapacity)) {
	if allocation == nil {
		return
	}
	for _, r := range allocation.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if r.ShareID == nil {
			device(id)
			continue
		}
		var cap *structured.DeviceConsumedCapacity
		if r.ConsumedCapacity != nil {
			c := structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity)
			cap = &c
		}
		share(structured.MakeSharedDeviceID(id, r.ShareID), cap)
	}
}

// AddHeld adds what an allocation takes to state. Devices allocated with
// admin access take nothing; a device shared through consumable capacity
// counts by its share and the capacity it consumes.
func AddHeld(state *structured.AllocatedState, allocation *resourceapi.AllocationResult) {
	eachHeld(allocation, func(id structured.DeviceID) { state.AllocatedDevices.Insert(id) },
		func(id structured.SharedDeviceID, cap *structured.DeviceConsumedCapacity) {
			state.AllocatedSharedDeviceIDs.Insert(id)
			if cap != nil {
				state.AggregatedCapacity.Insert(*cap)
			}
		})
}

// SliceSource lists the ResourceSlices devices are allocated from, with the
// taints of DeviceTaintRules applied to their devices. The scheduler's is a
// tracker from k8s.io/dynamic-resource-allocation's resourceslice/tracker
// package, as kube-scheduler's.
type SliceSource interface {
	ListPatchedResourceSlices() ([]*resourceapi.ResourceSlice, error)
}
