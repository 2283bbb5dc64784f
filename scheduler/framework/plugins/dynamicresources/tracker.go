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
	"strconv"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// claimTracker is the scheduler's view of which devices are taken: the
// claims' allocations as the informer has them, the allocations Reserve
// chose for pods still in their binding cycle (in flight), and the claims
// PreBind wrote that the informer has not delivered yet (written). One
// tracker serves every profile and generation, so two pods in flight never
// get the same device, whichever profile placed them.
//
// A written claim hides the informer's version only while the informer's is
// older; once the informer catches up (or the claim is gone from it), the
// written copy is dropped. So the tracker needs no event handlers and cannot
// drift from the informer.
//
// A claim PreBind created (for a pod's extended resources) is not in the
// informer at all at first: until the informer has it, or createdTTL has
// passed, its absence there means "not yet" rather than "deleted", and its
// written copy counts on its own.
type claimTracker struct {
	lister resourcelisters.ResourceClaimLister
	clock  clock.PassiveClock

	mu       sync.Mutex
	inFlight map[types.UID]*resourceapi.ResourceClaim
	written  map[types.NamespacedName]*resourceapi.ResourceClaim
	// fresh holds when each claim PreBind created was created, until the
	// informer has it.
	fresh map[types.NamespacedName]time.Time
}

// createdTTL bounds how long a created claim the informer has not
// delivered still counts; an informer that lags longer has lost the watch.
const createdTTL = 2 * time.Minute

func newClaimTracker(lister resourcelisters.ResourceClaimLister, c clock.PassiveClock) *claimTracker {
	return &claimTracker{
		lister:   lister,
		clock:    c,
		inFlight: make(map[types.UID]*resourceapi.ResourceClaim),
		written:  make(map[types.NamespacedName]*resourceapi.ResourceClaim),
		fresh:    make(map[types.NamespacedName]time.Time),
	}
}

// get returns the newest known version of a claim: the one PreBind wrote
// if the informer has not caught up with it, else the informer's.
//
// The informer is read under the lock: a written copy is only dropped
// under it, once the informer has caught up, so a read made after that
// cannot return the informer's older version.
func (t *claimTracker) get(namespace, name string) (*resourceapi.ResourceClaim, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	claim, err := t.lister.ResourceClaims(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		key := types.NamespacedName{Namespace: namespace, Name: name}
		if _, ok := t.fresh[key]; ok && t.written[key] != nil {
			return t.written[key], nil
		}
	}
	if err != nil {
		return nil, err
	}
	return t.newestLocked(claim), nil
}

// newestLocked returns the written version of the informer's claim if that
// is newer.
func (t *claimTracker) newestLocked(claim *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	w, ok := t.written[types.NamespacedName{Namespace: claim.Namespace, Name: claim.Name}]
	if ok && w.UID == claim.UID && newerThan(w.ResourceVersion, claim.ResourceVersion) {
		return w
	}
	return claim
}

// pending returns the allocation Reserve chose for the claim while that is
// in flight, or nil.
func (t *claimTracker) pending(uid types.UID) *resourceapi.AllocationResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.inFlight[uid]; ok {
		return c.Status.Allocation
	}
	return nil
}

// reserve records claim, whose status carries the allocation Reserve chose,
// as in flight. A claim already in flight is an error: PreFilter keeps a
// second pod away from it.
func (t *claimTracker) reserve(claim *resourceapi.ResourceClaim) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.inFlight[claim.UID]; ok {
		return fmt.Errorf("resource claim %s/%s is already being allocated for another pod", claim.Namespace, claim.Name)
	}
	t.inFlight[claim.UID] = claim
	return nil
}

// release forgets the claim's allocation in flight and reports whether
// there was one.
func (t *claimTracker) release(uid types.UID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.inFlight[uid]
	delete(t.inFlight, uid)
	return ok
}

// created records a claim PreBind has just created, so that until the
// informer delivers it a lookup finds it.
func (t *claimTracker) created(claim *resourceapi.ResourceClaim) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := types.NamespacedName{Namespace: claim.Namespace, Name: claim.Name}
	t.fresh[key] = t.clock.Now()
	t.written[key] = claim
}

// wrote records the claim as PreBind's update returned it and, in the same
// step, ends the allocation in flight under inFlight (the claim's UID, or
// that of the in-memory claim it was created from): at no moment are its
// devices counted free.
func (t *claimTracker) wrote(claim *resourceapi.ResourceClaim, inFlight types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pruneLocked()
	t.written[types.NamespacedName{Namespace: claim.Namespace, Name: claim.Name}] = claim
	delete(t.inFlight, inFlight)
}

// forget drops what the tracker knows of a claim Berth deleted.
func (t *claimTracker) forget(claim *resourceapi.ResourceClaim) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := types.NamespacedName{Namespace: claim.Namespace, Name: claim.Name}
	if w, ok := t.written[key]; ok && w.UID == claim.UID {
		delete(t.written, key)
		delete(t.fresh, key)
	}
}

// pruneLocked drops written claims the informer has caught up with or no
// longer has (a created claim: once it is older than createdTTL), keeping
// the maps as small as the binds in flight.
func (t *claimTracker) pruneLocked() {
	for key, w := range t.written {
		claim, err := t.lister.ResourceClaims(key.Namespace).Get(key.Name)
		if apierrors.IsNotFound(err) {
			if at, ok := t.fresh[key]; ok && t.clock.Since(at) < createdTTL {
				continue
			}
		}
		if err == nil && claim.UID == w.UID {
			delete(t.fresh, key)
		}
		if apierrors.IsNotFound(err) || (err == nil && (claim.UID != w.UID || !newerThan(w.ResourceVersion, claim.ResourceVersion))) {
			delete(t.written, key)
			delete(t.fresh, key)
		}
	}
}

// inFlightCount reports how many allocations are in flight, for tests.
func (t *claimTracker) inFlightCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inFlight)
}

// allocatedState gathers every device taken by an allocated claim or by an
// allocation in flight, as the allocator wants it, leaving out the claims
// in released. Devices allocated with admin access take nothing; a device
// shared through consumable capacity counts by its share and the capacity
// it consumes.
func (t *claimTracker) allocatedState(released sets.Set[types.UID]) (structured.AllocatedState, error) {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Listed under the lock, as in get.
	claims, err := t.lister.List(labels.Everything())
	if err != nil {
		return state, fmt.Errorf("listing resource claims: %w", err)
	}
	for uid, claim := range t.inFlight {
		if !released.Has(uid) {
			addDevices(&state, claim.Status.Allocation)
		}
	}
	for _, claim := range claims {
		if _, ok := t.inFlight[claim.UID]; ok || released.Has(claim.UID) {
			continue
		}
		addDevices(&state, t.newestLocked(claim).Status.Allocation)
	}
	// Created claims the informer does not have yet.
	for key := range t.fresh {
		w := t.written[key]
		if w == nil || released.Has(w.UID) {
			continue
		}
		if _, err := t.lister.ResourceClaims(key.Namespace).Get(key.Name); apierrors.IsNotFound(err) {
			addDevices(&state, w.Status.Allocation)
		}
	}
	return state, nil
}

// addDevices adds what an allocation takes to state.
func addDevices(state *structured.AllocatedState, allocation *resourceapi.AllocationResult) {
	if allocation == nil {
		return
	}
	for _, r := range allocation.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if r.ShareID == nil {
			state.AllocatedDevices.Insert(id)
			continue
		}
		state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
		if r.ConsumedCapacity != nil {
			state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
		}
	}
}

// newerThan reports whether resourceVersion a is newer than b. Versions are
// opaque to clients, but etcd-backed servers use integers; versions that do
// not parse are never reported newer.
func newerThan(a, b string) bool {
	x, errX := strconv.ParseUint(a, 10, 64)
	y, errY := strconv.ParseUint(b, 10, 64)
	return errX == nil && errY == nil && x > y
}
