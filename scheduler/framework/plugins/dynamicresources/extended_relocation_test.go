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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestExtendedResourceRelocation checks a cycle marked as a relocation (the
// rebalancer's nodeFit) for a pod whose extended resources a DeviceClass
// serves and that already holds the claim PreBind created for them: that
// claim is not stale there, its devices count as free, and each node gets a
// fresh in-memory claim; without the mark the same claim is stale. Nothing
// is written, and the informer's claims stay as they were.
//
// extNodes: node-a has no allocatable for the GPU (DRA only), node-b has a
// device plugin with one example.com/gpu, node-c has no allocatable either.
func TestExtendedResourceRelocation(t *testing.T) {
	// p is the copy of the running pod nodeFit hands to the filters.
	p := st.Pod("p").Req(gpuResource, "1").Obj()
	// pc also has a claim of its own; same name and UID as p.
	pc := st.Pod("p").Req(gpuResource, "1").ResourceClaims("c").Obj()
	const ownName = "p-extended-resources-old"
	// own is the claim PreBind created for p's extended resources when it
	// placed p on node-a.
	own := func(device string) *resourceapi.ResourceClaim {
		return extendedClaim(ownName, p).request("gpu", 1).allocated("node-a", device).reservedFor(p).obj()
	}
	q := st.Pod("q").Req(gpuResource, "1").Obj()

	tests := []struct {
		name     string
		pod      *v1.Pod
		objs     []runtime.Object
		relocate bool
		// wantStale: PreFilter took the pod's claim as stale; otherwise the
		// extended claim in the state is a new in-memory one.
		wantStale    bool
		wantFeasible []string
		// wantReasons are the messages of the rejected nodes.
		wantReasons map[string]string
		// wantDevices are, for feasible nodes, the devices (pool/device)
		// allocated to the extended claim; nil: a node whose device plugin
		// serves the resource, so Filter built no claim for it. Nodes left
		// out are not checked.
		wantDevices map[string][]string
	}{{
		name:         "without the mark the pod's own claim (node-a's gpu-0) is stale: every node rejected, node-b's device plugin and node-c's free device too",
		pod:          p,
		objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj(), slice("node-c", "gpu-0").obj(), own("gpu-0")},
		wantStale:    true,
		wantFeasible: nil,
		wantReasons: map[string]string{
			"node-a": ErrReasonStaleExtendedClaim, "node-b": ErrReasonStaleExtendedClaim, "node-c": ErrReasonStaleExtendedClaim,
		},
	}, {
		name:         "the pod's own device (node-a's only one) counts free, node-c has a free device, node-b serves it by its device plugin",
		pod:          p,
		objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj(), slice("node-c", "gpu-0").obj(), own("gpu-0")},
		relocate:     true,
		wantFeasible: []string{"node-a", "node-b", "node-c"},
		wantDevices:  map[string][]string{"node-a": {"node-a/gpu-0"}, "node-b": nil, "node-c": {"node-c/gpu-0"}},
	}, {
		name:         "only node-a has a device, the pod's own: node-a fits, node-b by its device plugin, node-c (no device) cannot allocate",
		pod:          p,
		objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj(), own("gpu-0")},
		relocate:     true,
		wantFeasible: []string{"node-a", "node-b"},
		wantReasons:  map[string]string{"node-c": ErrReasonCannotAllocate},
		wantDevices:  map[string][]string{"node-a": {"node-a/gpu-0"}, "node-b": nil},
	}, {
		name: "node-c's only device, held by another claim, stays taken: node-c cannot allocate",
		pod:  p,
		objs: []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj(), slice("node-c", "gpu-0").obj(), own("gpu-0"),
			claim("other").request("gpu", 1).allocated("node-c", "gpu-0").reservedFor(q).obj()},
		relocate:     true,
		wantFeasible: []string{"node-a", "node-b"},
		wantReasons:  map[string]string{"node-c": ErrReasonCannotAllocate},
		wantDevices:  map[string][]string{"node-a": {"node-a/gpu-0"}, "node-b": nil},
	}, {
		name: "another pod's extended claim on node-c's only device is not the pod's: it stays taken",
		pod:  p,
		objs: []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj(), slice("node-c", "gpu-0").obj(), own("gpu-0"),
			extendedClaim("q-extended-resources-old", q).request("gpu", 1).allocated("node-c", "gpu-0").reservedFor(q).obj()},
		relocate:     true,
		wantFeasible: []string{"node-a", "node-b"},
		wantReasons:  map[string]string{"node-c": ErrReasonCannotAllocate},
		wantDevices:  map[string][]string{"node-a": {"node-a/gpu-0"}, "node-b": nil},
	}, {
		name:         "no claim yet (the pod runs on node-b's device plugin): a fresh one, node-a's free device fits, node-c (no device) cannot allocate",
		pod:          p,
		objs:         []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0").obj()},
		relocate:     true,
		wantFeasible: []string{"node-a", "node-b"},
		wantReasons:  map[string]string{"node-c": ErrReasonCannotAllocate},
		wantDevices:  map[string][]string{"node-a": {"node-a/gpu-0"}, "node-b": nil},
	}, {
		name: "the pod's own claim (gpu-0) and its extended claim (gpu-1) both count free: node-a's two devices fit; node-b (no slice for claim c) and node-c (one device for two) cannot allocate",
		pod:  pc,
		objs: []runtime.Object{extClass("gpu"), slice("node-a", "gpu-0", "gpu-1").obj(), slice("node-c", "gpu-0").obj(),
			claim("c").request("gpu", 1).allocated("node-a", "gpu-0").reservedFor(pc).obj(), own("gpu-1")},
		relocate:     true,
		wantFeasible: []string{"node-a"},
		wantReasons:  map[string]string{"node-b": ErrReasonCannotAllocate, "node-c": ErrReasonCannotAllocate},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The claims as given, to compare with afterwards; the env
			// gets the originals, so a change in place would show.
			var wantClaims []*resourceapi.ResourceClaim
			for _, o := range tt.objs {
				if c, ok := o.(*resourceapi.ResourceClaim); ok {
					wantClaims = append(wantClaims, c.DeepCopy())
				}
			}
			e := newEnv(t, tt.objs...)
			ctx := context.Background()
			c := &cycle{state: framework.NewCycleState(), byNode: map[string]*framework.Status{}}
			if tt.relocate {
				framework.MarkRelocation(c.state)
			}
			_, c.preStart = e.pl.PreFilter(ctx, c.state, tt.pod, nil)
			if !c.preStart.IsSuccess() {
				t.Fatalf("PreFilter = %v", c.preStart)
			}
			s := readState(c.state)
			if s == nil || s.ext == nil {
				t.Fatal("PreFilter left no extended claim in the state")
			}
			extClaim := s.claims[s.ext.index]
			if tt.wantStale {
				if !s.ext.stale || extClaim.Name != ownName {
					t.Errorf("extended claim %s, stale %v; want the pod's own %s, stale", extClaim.Name, s.ext.stale, ownName)
				}
			} else if s.ext.stale || extClaim.Name != specialClaimName || extClaim.Status.Allocation != nil {
				t.Errorf("extended claim %s, stale %v, allocation %+v; want a new unallocated %s", extClaim.Name, s.ext.stale, extClaim.Status.Allocation, specialClaimName)
			}

			for _, n := range extNodes {
				c.byNode[n.Name] = e.pl.Filter(ctx, c.state, tt.pod, st.NodeInfo(n))
			}
			if diff := cmp.Diff(tt.wantFeasible, c.feasible(extNodes)); diff != "" {
				t.Errorf("feasible nodes (-want +got):\n%s", diff)
			}
			reasons := map[string]string{}
			for name, status := range c.byNode {
				if status.IsSuccess() {
					continue
				}
				reasons[name] = status.Message()
				if status.Code() != framework.UnschedulableAndUnresolvable {
					t.Errorf("Filter(%s) = %v, want UnschedulableAndUnresolvable", name, status)
				}
			}
			if diff := cmp.Diff(tt.wantReasons, reasons, cmpEmptyMap); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			for name, want := range tt.wantDevices {
				if !c.byNode[name].IsSuccess() {
					continue
				}
				s.mu.Lock()
				ext := s.extByNode[name]
				s.mu.Unlock()
				var got []string
				if ext != nil {
					if ext.claim.Name != specialClaimName || ext.allocation == nil {
						t.Errorf("node %s: extended claim %s, allocation %+v; want %s, allocated", name, ext.claim.Name, ext.allocation, specialClaimName)
						continue
					}
					for _, r := range ext.allocation.Devices.Results {
						got = append(got, r.Pool+"/"+r.Device)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("node %s: extended claim's devices (-want +got):\n%s", name, diff)
				}
			}

			// The relocation works on copies: the informer's claims keep
			// their allocation and reservation, and nothing is in flight.
			lister := e.factory.Resource().V1().ResourceClaims().Lister()
			for _, want := range wantClaims {
				got, err := lister.ResourceClaims(ns).Get(want.Name)
				if err != nil {
					t.Errorf("informer's claim %s: %v", want.Name, err)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("informer's claim %s changed (-want +got):\n%s", want.Name, diff)
				}
			}
			if n := e.pl.tracker.inFlightCount(); n != 0 {
				t.Errorf("%d allocations in flight, want none", n)
			}

			// Nor is anything written: the API has the claims as given,
			// none created or deleted.
			list, err := e.client.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var apiClaims []*resourceapi.ResourceClaim
			for i := range list.Items {
				apiClaims = append(apiClaims, &list.Items[i])
			}
			byName := func(a, b *resourceapi.ResourceClaim) int { return strings.Compare(a.Name, b.Name) }
			slices.SortFunc(apiClaims, byName)
			slices.SortFunc(wantClaims, byName)
			if diff := cmp.Diff(wantClaims, apiClaims); diff != "" {
				t.Errorf("claims in the API (-want +got):\n%s", diff)
			}
			for _, a := range e.client.Actions() {
				switch a.GetVerb() {
				case "get", "list", "watch":
				default:
					t.Errorf("the cycle wrote to the API: %s %s", a.GetVerb(), a.GetResource().Resource)
				}
			}
		})
	}
}
