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

	"github.com/berth-io/berth/scheduler/framework/dra"
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
//
// The devices the informer's claims hold come from the scheduler's
// AllocatedDevices index when there is one; without it (a plugin built
// outside the scheduler) they are gathered from the lister on each call.
type claimTracker struct {
	lister resourcelisters.ResourceClaimLister
	clock  clock.PassiveClock
	// index is the scheduler's index of allocated devices, nil without one.
	index *dra.AllocatedDevices

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

func newClaimTracker(lister resourcelisters.ResourceClaimLister, index *dra.AllocatedDevices, c clock.PassiveClock) *claimTracker {
	return &claimTracker{
		lister:   lister,
		index:    index,
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

// release forgets the claim's allocation in flight, if there is one.
func (t *claimTracker) release(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.inFlight, uid)
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
// the maps as small as the binds in flight. With an index, "the informer"
// is the index, which may trail the lister by an event: a written claim is
// kept until the index reflects it.
func (t *claimTracker) pruneLocked() {
	for key, w := range t.written {
		rv, found := t.informerVersionLocked(key, w.UID)
		if !found {
			if at, ok := t.fresh[key]; ok && t.clock.Since(at) < createdTTL {
				continue
			}
			delete(t.written, key)
			delete(t.fresh, key)
			continue
		}
		delete(t.fresh, key)
		if !newerThan(w.ResourceVersion, rv) {
			delete(t.written, key)
		}
	}
}

// informerVersionLocked returns the resourceVersion the informer (or the
// index) has for the claim with that key and UID, and whether it has it.
func (t *claimTracker) informerVersionLocked(key types.NamespacedName, uid types.UID) (string, bool) {
	if t.index != nil {
		var rv string
		var found bool
		t.index.Read(func(v dra.View) {
			if c := v.Claim(uid); c != nil {
				rv, found = c.ResourceVersion(), true
			}
		})
		return rv, found
	}
	claim, err := t.lister.ResourceClaims(key.Namespace).Get(key.Name)
	if err != nil || claim.UID != uid {
		return "", false
	}
	return claim.ResourceVersion, true
}

// inFlightCount reports how many allocations are in flight, for tests.
func (t *claimTracker) inFlightCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inFlight)
}

// allocatedState gathers every device taken by an allocated claim or by an
// allocation in flight, as the allocator wants it, leaving out the claims
// in released: the informer's claims (from the index), with the versions
// PreBind wrote and created that the informer does not have yet, and the
// allocations in flight instead of the informer's version of their claims.
// Devices allocated with admin access take nothing; a device shared through
// consumable capacity counts by its share and the capacity it consumes.
func (t *claimTracker) allocatedState(released sets.Set[types.UID]) (structured.AllocatedState, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.index == nil {
		return t.listedStateLocked(released)
	}
	var state structured.AllocatedState
	t.index.Read(func(v dra.View) {
		// The index's versions of these claims are replaced by add's,
		// which are taken only once every replaced version is out.
		replaced := sets.New[types.UID]()
		var add []*resourceapi.AllocationResult
		for uid, claim := range t.inFlight {
			replaced.Insert(uid)
			if !released.Has(uid) {
				add = append(add, claim.Status.Allocation)
			}
		}
		for key, w := range t.written {
			if replaced.Has(w.UID) {
				continue
			}
			if c := v.Claim(w.UID); c == nil {
				if _, created := t.fresh[key]; !created {
					// Gone from the informer: deleted.
					continue
				}
			} else if !newerThan(w.ResourceVersion, c.ResourceVersion()) {
				continue
			}
			replaced.Insert(w.UID)
			if !released.Has(w.UID) {
				add = append(add, w.Status.Allocation)
			}
		}
		replaced = replaced.Union(released)
		state = v.State()
		out := v.Remover(&state)
		for uid := range replaced {
			if c := v.Claim(uid); c != nil {
				out.Remove(c)
			}
		}
		for _, a := range add {
			dra.AddHeld(&state, a)
		}
	})
	return state, nil
}

// listedStateLocked is allocatedState without an index: it walks the
// informer's claims, taking for each the version in flight or written if
// there is one.
func (t *claimTracker) listedStateLocked(released sets.Set[types.UID]) (structured.AllocatedState, error) {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	// Listed under the lock, as in get.
	claims, err := t.lister.List(labels.Everything())
	if err != nil {
		return state, fmt.Errorf("listing resource claims: %w", err)
	}
	for uid, claim := range t.inFlight {
		if !released.Has(uid) {
			dra.AddHeld(&state, claim.Status.Allocation)
		}
	}
	for _, claim := range claims {
		if _, ok := t.inFlight[claim.UID]; ok || released.Has(claim.UID) {
			continue
		}
		dra.AddHeld(&state, t.newestLocked(claim).Status.Allocation)
	}
	// Created claims the informer does not have yet.
	for key := range t.fresh {
		w := t.written[key]
		if w == nil || released.Has(w.UID) {
			continue
		}
		if _, ok := t.inFlight[w.UID]; ok {
			continue
		}
		if _, err := t.lister.ResourceClaims(key.Namespace).Get(key.Name); apierrors.IsNotFound(err) {
			dra.AddHeld(&state, w.Status.Allocation)
		}
	}
	return state, nil
}

// newerThan reports whether resourceVersion a is newer than b. Versions are
// opaque to clients, but etcd-backed servers use integers; versions that do
// not parse are never reported newer.
func newerThan(a, b string) bool {
	x, errX := strconv.ParseUint(a, 10, 64)
	y, errY := strconv.ParseUint(b, 10, 64)
	return errX == nil && errY == nil && x > y
}
