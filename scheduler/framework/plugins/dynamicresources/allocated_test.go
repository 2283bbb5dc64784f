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
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/structured"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework/dra"
)

// plainState is an AllocatedState in comparable form: device and share
// names, and the non-zero capacities consumed per device.
type plainState struct {
	Devices  []string
	Shared   []string
	Capacity map[string]map[string]string
}

func plain(s structured.AllocatedState) plainState {
	p := plainState{Capacity: map[string]map[string]string{}}
	for d := range s.AllocatedDevices {
		p.Devices = append(p.Devices, d.String())
	}
	for d := range s.AllocatedSharedDeviceIDs {
		p.Shared = append(p.Shared, d.String())
	}
	for d, c := range s.AggregatedCapacity {
		for name, q := range c {
			if q != nil && !q.IsZero() {
				if p.Capacity[d.String()] == nil {
					p.Capacity[d.String()] = map[string]string{}
				}
				p.Capacity[d.String()][string(name)] = q.String()
			}
		}
	}
	p.Devices, p.Shared = sets.List(sets.New(p.Devices...)), sets.List(sets.New(p.Shared...))
	return p
}

// randomClaim is a claim in one of the shapes the index must count:
// unallocated, exclusive devices, admin access, or a share with capacity.
func randomClaim(r *rand.Rand, name string, rv int) *resourceapi.ResourceClaim {
	b := claim(name)
	c := b.obj()
	c.ResourceVersion = fmt.Sprint(rv)
	if r.IntN(4) == 0 {
		return c
	}
	b.allocated(fmt.Sprintf("node-%d", r.IntN(3)), fmt.Sprintf("gpu-%d", r.IntN(6)))
	res := &c.Status.Allocation.Devices.Results[0]
	switch r.IntN(4) {
	case 0:
		res.AdminAccess = ptr.To(true)
	case 1:
		res.ShareID = ptr.To(types.UID(fmt.Sprintf("share-%d", r.IntN(3))))
		res.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse(fmt.Sprintf("%dGi", 1+r.IntN(4)))}
	}
	return c
}

// TestAllocatedIndexMatchesListing checks that the tracker gathers the
// devices each claim's effective version holds, reading the index or
// listing the claims, over random claims with written, created, in-flight
// and released ones.
func TestAllocatedIndexMatchesListing(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 1))
		e := newEnv(t)
		clock := testingclock.NewFakePassiveClock(time.Unix(1e9, 0))
		index := dra.NewAllocatedDevices()
		listing := newClaimTracker(e.pl.tracker.lister, nil, clock)
		indexed := newClaimTracker(e.pl.tracker.lister, index, clock)
		var claims []*resourceapi.ResourceClaim
		for i := range 8 + r.IntN(12) {
			c := randomClaim(r, fmt.Sprintf("c%d", i), 10)
			claims = append(claims, c)
			e.put(c)
			index.Set(c)
			if r.IntN(5) == 0 {
				// Updated since: the index follows the informer.
				c = randomClaim(r, c.Name, 11)
				e.put(c)
				index.Set(c)
			}
		}
		released := sets.New[types.UID]()
		for _, tr := range []*claimTracker{listing, indexed} {
			r := rand.New(rand.NewPCG(seed, 2))
			for _, c := range claims {
				switch r.IntN(6) {
				case 0: // PreBind wrote a newer version
					w := randomClaim(r, c.Name, 20)
					tr.written[types.NamespacedName{Namespace: ns, Name: c.Name}] = w
				case 1: // a write the informer already passed
					w := randomClaim(r, c.Name, 1)
					tr.written[types.NamespacedName{Namespace: ns, Name: c.Name}] = w
				case 2:
					tr.inFlight[c.UID] = randomClaim(r, c.Name, 10)
				case 3:
					released.Insert(c.UID)
				}
			}
			// A claim PreBind created that the informer has not delivered.
			created := randomClaim(r, "created", 5)
			key := types.NamespacedName{Namespace: ns, Name: created.Name}
			tr.written[key], tr.fresh[key] = created, clock.Now()
			// A written claim since deleted.
			tr.written[types.NamespacedName{Namespace: ns, Name: "gone"}] = randomClaim(r, "gone", 30)
		}
		// What each claim holds, worked out claim by claim: the allocation
		// in flight, else a newer written version, else the informer's.
		want := structured.AllocatedState{
			AllocatedDevices:         sets.New[structured.DeviceID](),
			AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
			AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
		}
		informer, _ := e.pl.tracker.lister.List(labels.Everything())
		for _, c := range informer {
			if released.Has(c.UID) {
				continue
			}
			effective := c
			if f, ok := listing.inFlight[c.UID]; ok {
				effective = f
			} else if w := listing.written[types.NamespacedName{Namespace: ns, Name: c.Name}]; w != nil && newerThan(w.ResourceVersion, c.ResourceVersion) {
				effective = w
			}
			dra.AddHeld(&want, effective.Status.Allocation)
		}
		dra.AddHeld(&want, listing.written[types.NamespacedName{Namespace: ns, Name: "created"}].Status.Allocation)
		for name, tr := range map[string]*claimTracker{"listing": listing, "index": indexed} {
			got, err := tr.allocatedState(released)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(plain(want), plain(got)); diff != "" {
				t.Errorf("seed %d, %s: (-want +got):\n%s", seed, name, diff)
			}
		}
	}
}

func TestAllocatedDevicesFollowsClaims(t *testing.T) {
	index := dra.NewAllocatedDevices()
	a := claim("a").allocated("node-a", "gpu-0").obj()
	index.Set(a)
	shared := func(name, size string) *resourceapi.ResourceClaim {
		c := claim(name).allocated("node-a", "gpu-1").obj()
		res := &c.Status.Allocation.Devices.Results[0]
		res.ShareID = ptr.To(types.UID("share-" + name))
		res.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse(size)}
		return c
	}
	index.Set(shared("s1", "2Gi"))
	index.Set(shared("s2", "3Gi"))
	state := func() plainState {
		var p plainState
		index.Read(func(v dra.View) { p = plain(v.State()) })
		return p
	}
	gpu := func(d string) string { return structured.MakeDeviceID(driver, "node-a", d).String() }
	if diff := cmp.Diff([]string{gpu("gpu-0")}, state().Devices); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	if got := state().Capacity[gpu("gpu-1")]["memory"]; got != "5Gi" {
		t.Errorf("memory consumed on gpu-1 = %q, want 5Gi", got)
	}

	// Deallocated: its device is free; the other share's capacity stays.
	a.Status.Allocation = nil
	index.Set(a)
	index.Delete(shared("s1", "2Gi"))
	got := state()
	if len(got.Devices) != 0 {
		t.Errorf("devices after deallocation = %v, want none", got.Devices)
	}
	if c := got.Capacity[gpu("gpu-1")]["memory"]; c != "3Gi" || len(got.Shared) != 1 {
		t.Errorf("after deleting s1: memory %q (want 3Gi), shares %v (want one)", c, got.Shared)
	}
	// The copy is the allocator's to change.
	index.Read(func(v dra.View) {
		s := v.State()
		s.AllocatedDevices.Insert(structured.MakeDeviceID(driver, "node-a", "gpu-9"))
	})
	if len(state().Devices) != 0 {
		t.Error("changing a copied state changed the index")
	}
}

// TestThenIndexesBeforePassingOn checks that the next handler, which tells
// the queue which pods an event helps, finds the event already in the
// index: a pod retried because a claim released its device sees it free.
func TestThenIndexesBeforePassingOn(t *testing.T) {
	index := dra.NewAllocatedDevices()
	held := func() int {
		var n int
		index.Read(func(v dra.View) { n = v.State().AllocatedDevices.Len() })
		return n
	}
	var seen []int
	next := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { seen = append(seen, held()) },
		UpdateFunc: func(any, any) { seen = append(seen, held()) },
		DeleteFunc: func(any) { seen = append(seen, held()) },
	}
	h := index.Then(next)
	allocated := claim("c").allocated("node-a", "gpu-0").obj()
	h.OnAdd(allocated, false)
	freed := claim("c").obj()
	freed.ResourceVersion = "2"
	h.OnUpdate(allocated, freed)
	h.OnUpdate(freed, allocated)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/c", Obj: allocated})
	if diff := cmp.Diff([]int{1, 0, 1, 0}, seen); diff != "" {
		t.Errorf("devices held as the next handler saw each event (-want +got):\n%s", diff)
	}
}

// BenchmarkAllocatedState measures PreFilter's gathering of the devices
// taken, over 4,000 allocated claims (the DynamicResources benchmark's
// size): reading the scheduler's index against listing every claim.
func BenchmarkAllocatedState(b *testing.B) {
	e := newEnv(b)
	index := dra.NewAllocatedDevices()
	for i := range 4000 {
		c := claim(fmt.Sprintf("c%d", i)).allocated(fmt.Sprintf("node-%d", i/8), fmt.Sprintf("gpu-%d", i%8)).obj()
		e.put(c)
		index.Set(c)
	}
	clock := testingclock.NewFakePassiveClock(time.Unix(1e9, 0))
	for _, bc := range []struct {
		name  string
		index *dra.AllocatedDevices
	}{{"listing", nil}, {"index", index}} {
		b.Run(bc.name, func(b *testing.B) {
			tr := newClaimTracker(e.pl.tracker.lister, bc.index, clock)
			b.ReportAllocs()
			for b.Loop() {
				state, err := tr.allocatedState(nil)
				if err != nil || state.AllocatedDevices.Len() != 4000 {
					b.Fatalf("%d devices, %v", state.AllocatedDevices.Len(), err)
				}
			}
		})
	}
}
