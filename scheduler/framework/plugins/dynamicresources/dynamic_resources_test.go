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
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var nodes = []*v1.Node{node("node-a"), node("node-b")}

func TestPreEnqueue(t *testing.T) {
	owner := st.Pod("p").Obj()
	tests := []struct {
		name    string
		pod     *v1.Pod
		objs    []runtime.Object
		wantMsg string
	}{
		{name: "no claims", pod: st.Pod("p").Obj()},
		{name: "claim exists", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{claim("c").request("gpu", 1).obj()}},
		{name: "claim missing", pod: st.Pod("p").ResourceClaims("c").Obj(), wantMsg: `could not find ResourceClaim "default/c"`},
		{name: "template claim not created yet", pod: st.Pod("p").ResourceClaimTemplate("gpu", "gpu-template").Obj(),
			wantMsg: `pod "default/p": ResourceClaim not created yet`},
		{name: "template claim created", pod: st.Pod("p").ResourceClaimTemplate("gpu", "gpu-template").GeneratedClaim("gpu", "p-gpu").Obj(),
			objs: []runtime.Object{claim("p-gpu").request("gpu", 1).ownedBy(owner).obj()}},
		{name: "template claim not the pod's", pod: st.Pod("p").ResourceClaimTemplate("gpu", "gpu-template").GeneratedClaim("gpu", "p-gpu").Obj(),
			objs:    []runtime.Object{claim("p-gpu").request("gpu", 1).obj()},
			wantMsg: "ResourceClaim default/p-gpu was not created for Pod default/p (Pod is not owner)"},
		{name: "claim being deleted", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{claim("c").request("gpu", 1).deleting().obj()},
			wantMsg: `resourceclaim "c" is being deleted`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.objs...)
			status := e.pl.PreEnqueue(context.Background(), tt.pod)
			if tt.wantMsg == "" {
				if !status.IsSuccess() {
					t.Fatalf("PreEnqueue = %v, want success", status)
				}
				return
			}
			if status.Code() != framework.UnschedulableAndUnresolvable || status.Message() != tt.wantMsg {
				t.Errorf("PreEnqueue = %v, want UnschedulableAndUnresolvable %q", status, tt.wantMsg)
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		objs     []runtime.Object
		inFlight bool
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "pod without claims is skipped", pod: st.Pod("p").Obj(), wantCode: framework.Skip},
		{name: "claim ready to allocate", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{class("gpu"), claim("c").request("gpu", 1).obj()}},
		{name: "unknown device class", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{claim("c").request("gpu", 1).obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "request req-0: device class gpu does not exist"},
		{name: "unknown class of a subrequest", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{class("gpu"), claim("c").firstAvailable("gpu", "tpu").obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "request req-0/sub-1: device class tpu does not exist"},
		{name: "claim missing", pod: st.Pod("p").ResourceClaims("c").Obj(),
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: `could not find ResourceClaim "default/c"`},
		{name: "claim allocated in flight for another pod", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{class("gpu"), claim("c").request("gpu", 1).obj()},
			inFlight: true, wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "resource claim default/c is in the process of being allocated"},
		{name: "allocated claim needs no class", pod: st.Pod("p").ResourceClaims("c").Obj(), objs: []runtime.Object{claim("c").request("gpu", 1).allocated("node-a", "gpu-0").obj()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.objs...)
			if tt.inFlight {
				c := claim("c").request("gpu", 1).allocated("node-a", "gpu-0").obj()
				if err := e.pl.tracker.reserve(c); err != nil {
					t.Fatal(err)
				}
			}
			_, status := e.pl.PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil)
			if status.Code() != tt.wantCode || (tt.wantMsg != "" && status.Message() != tt.wantMsg) {
				t.Errorf("PreFilter = %v, want %v %q", status, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	tests := []struct {
		name         string
		objs         []runtime.Object
		args         *Args
		wantFeasible []string
		wantCode     framework.Code
		wantMsg      string
	}{{
		name:         "only the node offering the device fits",
		objs:         []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), claim("c").request("gpu", 1).obj()},
		wantFeasible: []string{"node-a"},
		wantCode:     framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonCannotAllocate,
	}, {
		name:     "no node has enough devices",
		objs:     []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), claim("c").request("gpu", 2).obj()},
		wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonCannotAllocate,
	}, {
		name: "a device another claim holds is taken",
		objs: []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(),
			claim("other").request("gpu", 1).allocated("node-a", "gpu-0").obj(), claim("c").request("gpu", 1).obj()},
		wantFeasible: []string{"node-b"},
		wantCode:     framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonCannotAllocate,
	}, {
		name: "an allocated claim keeps the pod on its node",
		objs: []runtime.Object{slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(),
			claim("c").request("gpu", 1).allocated("node-b", "gpu-0").obj()},
		wantFeasible: []string{"node-b"},
		wantCode:     framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonNotAvailable,
	}, {
		name: "a NoSchedule device taint keeps a device away",
		objs: []runtime.Object{class("gpu"), slice("node-a", "gpu-0").taint("broken", resourceapi.DeviceTaintEffectNoSchedule).obj(),
			slice("node-b", "gpu-0").obj(), claim("c").request("gpu", 1).obj()},
		wantFeasible: []string{"node-b"},
		wantCode:     framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonCannotAllocate,
	}, {
		name: "a tolerated device taint does not",
		objs: []runtime.Object{class("gpu"), slice("node-a", "gpu-0").taint("broken", resourceapi.DeviceTaintEffectNoSchedule).obj(),
			slice("node-b", "gpu-0").obj(), claim("c").request("gpu", 1).tolerate("broken").obj()},
		wantFeasible: []string{"node-a", "node-b"},
	}, {
		name:     "filterTimeout bounds the allocator",
		args:     &Args{FilterTimeout: &metav1.Duration{Duration: time.Nanosecond}},
		objs:     []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(), claim("c").request("gpu", 1).obj()},
		wantCode: framework.Error, wantMsg: "timed out trying to allocate devices",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = &Args{}
			}
			e := newEnvWithArgs(t, args, tt.objs...)
			c := e.schedule(e.pl, p, nodes...)
			if !c.preStart.IsSuccess() {
				t.Fatalf("PreFilter = %v", c.preStart)
			}
			if got := c.feasible(nodes); !slices.Equal(got, tt.wantFeasible) {
				t.Errorf("feasible nodes = %v, want %v", got, tt.wantFeasible)
			}
			for name, status := range c.byNode {
				if status.IsSuccess() {
					continue
				}
				if status.Code() != tt.wantCode || !strings.Contains(status.Message(), tt.wantMsg) {
					t.Errorf("Filter(%s) = %v, want %v %q", name, status, tt.wantCode, tt.wantMsg)
				}
			}
		})
	}
}

// TestInFlight runs two pods competing for one device: the second finds no
// node while the first is in flight, from either of two profiles, and
// fits once the first is unreserved.
func TestInFlight(t *testing.T) {
	for _, profiles := range []string{"same profile", "two profiles"} {
		t.Run(profiles, func(t *testing.T) {
			e := newEnv(t, class("gpu"), slice("node-a", "gpu-0").obj(), claim("c1").request("gpu", 1).obj(), claim("c2").request("gpu", 1).obj())
			second := e.pl
			if profiles == "two profiles" {
				second = e.newPlugin(&Args{})
			}
			first, other := st.Pod("p1").ResourceClaims("c1").Obj(), st.Pod("p2").ResourceClaims("c2").Obj()

			c1 := e.schedule(e.pl, first, nodes...)
			if got := c1.feasible(nodes); !slices.Equal(got, []string{"node-a"}) {
				t.Fatalf("first pod's feasible nodes = %v", got)
			}
			if status := e.pl.Reserve(context.Background(), c1.state, first, "node-a"); !status.IsSuccess() {
				t.Fatalf("Reserve = %v", status)
			}

			c2 := e.schedule(second, other, nodes...)
			if got := c2.feasible(nodes); len(got) != 0 {
				t.Fatalf("second pod fits %v while the device is in flight", got)
			}
			if status := c2.byNode["node-a"]; status.Message() != ErrReasonCannotAllocate {
				t.Errorf("second pod on node-a: %v, want %q", status, ErrReasonCannotAllocate)
			}

			e.pl.Unreserve(context.Background(), c1.state, first, "node-a")
			if n := e.pl.tracker.inFlightCount(); n != 0 {
				t.Fatalf("%d allocations in flight after Unreserve", n)
			}
			c2 = e.schedule(second, other, nodes...)
			if got := c2.feasible(nodes); !slices.Equal(got, []string{"node-a"}) {
				t.Errorf("second pod's feasible nodes after Unreserve = %v, want [node-a]", got)
			}
		})
	}
}

// TestReserveAgainAfterUnreserve checks that a state reserved, unreserved
// and reserved again on the same node, as a PodGroup's cycle does with the
// members of the placement it chooses, puts the same devices in flight.
func TestReserveAgainAfterUnreserve(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	e := newEnv(t, class("gpu"), slice("node-a", "gpu-0").obj(), claim("c").request("gpu", 1).obj())
	c := e.schedule(e.pl, p, nodes...)
	if status := e.pl.Reserve(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("first Reserve = %v", status)
	}
	e.pl.Unreserve(context.Background(), c.state, p, "node-a")
	if status := e.pl.Reserve(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("Reserve after Unreserve = %v", status)
	}
	if status := e.pl.PreBind(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
	got, err := e.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "c", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Status.Allocation; a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Device != "gpu-0" {
		t.Fatalf("allocation = %+v, want gpu-0 of node-a", a)
	}
}

func TestPreBindWritesAllocationAndReservation(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	e := newEnv(t, class("gpu"), slice("node-a", "gpu-0").obj(), claim("c").request("gpu", 1).obj())
	c := e.schedule(e.pl, p, nodes...)
	if status := e.pl.Reserve(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	if status := e.pl.PreBindPreFlight(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBindPreFlight = %v, want Success (PreBind has work)", status)
	}
	if status := e.pl.PreBind(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}

	got, err := e.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "c", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := got.Status.Allocation
	if a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Device != "gpu-0" || a.Devices.Results[0].Pool != "node-a" {
		t.Fatalf("allocation = %+v, want gpu-0 of node-a", a)
	}
	if a.AllocationTimestamp == nil || !a.AllocationTimestamp.Time.Equal(e.clock.Now()) {
		t.Errorf("allocationTimestamp = %v, want %v", a.AllocationTimestamp, e.clock.Now())
	}
	if len(got.Status.ReservedFor) != 1 || got.Status.ReservedFor[0].UID != p.UID || got.Status.ReservedFor[0].Resource != "pods" {
		t.Errorf("reservedFor = %+v, want the pod", got.Status.ReservedFor)
	}
	if !slices.Contains(got.Finalizers, resourceapi.Finalizer) {
		t.Errorf("finalizers = %v, want %s", got.Finalizers, resourceapi.Finalizer)
	}
	if n := e.pl.tracker.inFlightCount(); n != 0 {
		t.Errorf("%d allocations still in flight after PreBind", n)
	}

	// Until the informer delivers the write, the device stays taken.
	e.put(claim("c2").request("gpu", 1).obj())
	other := st.Pod("p2").ResourceClaims("c2").Obj()
	if got := e.schedule(e.pl, other, nodes...).feasible(nodes); len(got) != 0 {
		t.Errorf("another pod fits %v before the informer saw the allocation", got)
	}
	e.syncClaim("c")
	if got := e.schedule(e.pl, other, nodes...).feasible(nodes); len(got) != 0 {
		t.Errorf("another pod fits %v after the informer saw the allocation", got)
	}
}

func TestPreBindReservesAllocatedClaim(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	e := newEnv(t, slice("node-a", "gpu-0").obj(), claim("c").request("gpu", 1).allocated("node-a", "gpu-0").obj())
	c := e.schedule(e.pl, p, nodes...)
	if got := c.feasible(nodes); !slices.Equal(got, []string{"node-a"}) {
		t.Fatalf("feasible nodes = %v", got)
	}
	if status := e.pl.Reserve(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	if status := e.pl.PreBind(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
	got := e.syncClaim("c")
	if len(got.Status.ReservedFor) != 1 || got.Status.ReservedFor[0].UID != p.UID {
		t.Fatalf("reservedFor = %+v, want the pod", got.Status.ReservedFor)
	}
	// A failed bind takes the pod out of reservedFor again.
	e.pl.Unreserve(context.Background(), c.state, p, "node-a")
	got = e.syncClaim("c")
	if len(got.Status.ReservedFor) != 0 {
		t.Errorf("reservedFor after Unreserve = %+v, want none", got.Status.ReservedFor)
	}
	if got.Status.Allocation == nil {
		t.Error("Unreserve removed the allocation; it must stay")
	}
}

func TestPreBindPreFlightSkipsPodsWithoutClaims(t *testing.T) {
	e := newEnv(t)
	cs := framework.NewCycleState()
	p := st.Pod("p").Obj()
	if _, status := e.pl.PreFilter(context.Background(), cs, p, nil); !status.IsSkip() {
		t.Fatalf("PreFilter = %v, want Skip", status)
	}
	if status := e.pl.PreBindPreFlight(context.Background(), cs, p, "node-a"); !status.IsSkip() {
		t.Errorf("PreBindPreFlight = %v, want Skip", status)
	}
	if status := e.pl.PreBind(context.Background(), cs, p, "node-a"); !status.IsSuccess() {
		t.Errorf("PreBind = %v, want Success", status)
	}
}

func TestPreBindWaitsForBindingConditions(t *testing.T) {
	tests := []struct {
		name    string
		status  func(*resourceapi.ResourceClaim)
		wantErr error
	}{
		{name: "condition met", status: func(c *resourceapi.ResourceClaim) { setDeviceCondition(c, "Attached") }},
		{name: "failure condition", status: func(c *resourceapi.ResourceClaim) { setDeviceCondition(c, "Failed") }, wantErr: ErrDeviceBindingFailed},
		{name: "bindingTimeout passes", wantErr: ErrDeviceBindingTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := st.Pod("p").ResourceClaims("c").Obj()
			e := newEnvWithArgs(t, &Args{BindingTimeout: &metav1.Duration{Duration: time.Minute}},
				class("gpu"), slice("node-a", "gpu-0").bindingConditions("Attached").obj(), claim("c").request("gpu", 1).obj())
			c := e.schedule(e.pl, p, nodes...)
			if status := e.pl.Reserve(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
				t.Fatalf("Reserve = %v", status)
			}
			done := make(chan *framework.Status, 1)
			go func() { done <- e.pl.PreBind(context.Background(), c.state, p, "node-a") }()

			// The driver reports on the device once PreBind wrote the claim.
			for !e.clock.HasWaiters() {
				time.Sleep(time.Millisecond)
			}
			if tt.status != nil {
				written := e.syncClaim("c")
				tt.status(written)
				e.put(written)
			}
			for i := 0; i < 61; i++ {
				select {
				case status := <-done:
					checkBindingResult(t, status, tt.wantErr)
					return
				default:
				}
				e.clock.Step(time.Second)
				time.Sleep(time.Millisecond)
			}
			checkBindingResult(t, <-done, tt.wantErr)
		})
	}
}

func checkBindingResult(t *testing.T, status *framework.Status, wantErr error) {
	t.Helper()
	if wantErr == nil {
		if !status.IsSuccess() {
			t.Errorf("PreBind = %v, want Success", status)
		}
		return
	}
	if status.Code() != framework.Error || !errors.Is(status.AsError(), wantErr) {
		t.Errorf("PreBind = %v, want an error wrapping %v", status, wantErr)
	}
}

// setDeviceCondition reports a true condition on every allocated device.
func setDeviceCondition(c *resourceapi.ResourceClaim, cond string) {
	for _, r := range c.Status.Allocation.Devices.Results {
		c.Status.Devices = append(c.Status.Devices, resourceapi.AllocatedDeviceStatus{
			Driver: r.Driver, Pool: r.Pool, Device: r.Device,
			Conditions: []metav1.Condition{{Type: cond, Status: metav1.ConditionTrue, Reason: "Test", Message: "set by test"}},
		})
	}
}

func TestPostFilter(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	tests := []struct {
		name            string
		claim           *resourceapi.ResourceClaim
		wantMsg         string
		wantDeallocated bool
	}{
		{name: "claim reserved for no one is freed", claim: claim("c").request("gpu", 1).allocated("node-b", "gpu-0").obj(),
			wantMsg: ReasonDeallocated, wantDeallocated: true},
		{name: "claim reserved for the pod is freed", claim: claim("c").request("gpu", 1).allocated("node-b", "gpu-0").reservedFor(p).obj(),
			wantMsg: ReasonDeallocated, wantDeallocated: true},
		{name: "claim another pod uses stays", claim: claim("c").request("gpu", 1).allocated("node-b", "gpu-0").reservedFor(st.Pod("other").Obj()).obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.claim)
			only := []*v1.Node{node("node-a")}
			c := e.schedule(e.pl, p, only...)
			if got := c.feasible(only); len(got) != 0 {
				t.Fatalf("feasible nodes = %v, want none", got)
			}
			_, status := e.pl.PostFilter(context.Background(), c.state, p, nil)
			if status.Code() != framework.Unschedulable || status.Message() != tt.wantMsg {
				t.Errorf("PostFilter = %v, want Unschedulable %q", status, tt.wantMsg)
			}
			got, err := e.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "c", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if deallocated := got.Status.Allocation == nil; deallocated != tt.wantDeallocated {
				t.Errorf("deallocated = %v, want %v", deallocated, tt.wantDeallocated)
			}
		})
	}
}

func TestScorePrefersEarlierSubrequests(t *testing.T) {
	// node-a only has a "small" device, node-b a "big" one, which the claim lists first.
	small, big := class("small"), class("big")
	big.Spec.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].size == "big"`}}}
	small.Spec.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].size == "small"`}}}
	sa, sb := slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj()
	sa.Spec.Devices[0].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"size": {StringValue: strPtr("small")}}
	sb.Spec.Devices[0].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"size": {StringValue: strPtr("big")}}
	e := newEnv(t, small, big, sa, sb, claim("c").firstAvailable("big", "small").obj())
	p := st.Pod("p").ResourceClaims("c").Obj()
	c := e.schedule(e.pl, p, nodes...)
	if got := c.feasible(nodes); !slices.Equal(got, []string{"node-a", "node-b"}) {
		t.Fatalf("feasible nodes = %v", got)
	}
	if status := e.pl.PreScore(context.Background(), c.state, p, nil); !status.IsSuccess() {
		t.Fatalf("PreScore = %v", status)
	}
	scores := framework.NodeScoreList{}
	for _, n := range nodes {
		s, status := e.pl.Score(context.Background(), c.state, p, st.NodeInfo(n))
		if !status.IsSuccess() {
			t.Fatalf("Score = %v", status)
		}
		scores = append(scores, framework.NodeScore{Name: n.Name, Score: s})
	}
	if status := e.pl.NormalizeScore(context.Background(), c.state, p, scores); !status.IsSuccess() {
		t.Fatal(status)
	}
	if scores[1].Score != framework.MaxNodeScore || scores[0].Score >= scores[1].Score {
		t.Errorf("scores = %+v, want node-b best", scores)
	}
}

func strPtr(s string) *string { return &s }

func TestArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr []string
	}{
		{name: "none"},
		{name: "valid timeouts", args: `{"kind":"DynamicResourcesArgs","filterTimeout":"10s","bindingTimeout":"600s"}`},
		{name: "wrong kind", args: `{"kind":"NodeAffinityArgs"}`, wantErr: []string{"must be DynamicResourcesArgs"}},
		{name: "both invalid", args: `{"filterTimeout":"-1s","bindingTimeout":"500ms"}`,
			wantErr: []string{"filterTimeout: Invalid value", "must be zero or positive", "bindingTimeout: Invalid value", "must be at least 1 second"}},
		{name: "unknown field", args: `{"timeout":"1s"}`, wantErr: []string{"timeout"}},
	}
	client := fake.NewClientset()
	h := &st.Handle{Client: client, Informers: informers.NewSharedInformerFactory(client, 0)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			_, err := New(context.Background(), raw, h)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestArgsDefaults(t *testing.T) {
	e := newEnv(t)
	if e.pl.filterTimeout != DefaultFilterTimeout || e.pl.bindingTimeout != DefaultBindingTimeout {
		t.Errorf("timeouts = %v, %v; want %v, %v", e.pl.filterTimeout, e.pl.bindingTimeout, DefaultFilterTimeout, DefaultBindingTimeout)
	}
}

// TestConcurrentBindingsNeverShareADevice schedules pods one after another,
// as the scheduling loop does, while earlier pods' PreBinds and informer
// deliveries run concurrently; every pod must end up with its own device.
func TestConcurrentBindingsNeverShareADevice(t *testing.T) {
	const n = 6
	objs := []runtime.Object{class("gpu"), slice("node-a", "gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5").obj()}
	for i := range n {
		objs = append(objs, claim("c"+string(rune('0'+i))).request("gpu", 1).obj())
	}
	e := newEnv(t, objs...)
	errs := make(chan error, n)
	for i := range n {
		name := "c" + string(rune('0'+i))
		p := st.Pod("p" + string(rune('0'+i))).ResourceClaims(name).Obj()
		c := e.schedule(e.pl, p, nodes[0])
		if !c.byNode["node-a"].IsSuccess() {
			t.Fatalf("pod %d: %v", i, c.byNode["node-a"])
		}
		if status := e.pl.Reserve(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
			t.Fatalf("pod %d: Reserve = %v", i, status)
		}
		go func() {
			if status := e.pl.PreBind(context.Background(), c.state, p, "node-a"); !status.IsSuccess() {
				errs <- status.AsError()
				return
			}
			e.syncClaim(name)
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]string{}
	for i := range n {
		name := "c" + string(rune('0'+i))
		got := e.syncClaim(name)
		d := got.Status.Allocation.Devices.Results[0].Device
		if other, ok := seen[d]; ok {
			t.Errorf("%s and %s both got %s", other, name, d)
		}
		seen[d] = name
	}
}

// TestRelocation checks a cycle marked as a relocation (the rebalancer's
// nodeFit): a claim the pod alone holds is allocated afresh, its devices
// free, while a claim shared with another pod keeps the pod where it is.
func TestRelocation(t *testing.T) {
	p, q := st.Pod("p").ResourceClaims("c").Obj(), st.Pod("q").ResourceClaims("c").Obj()
	own := func() *resourceapi.ResourceClaim {
		return claim("c").request("gpu", 1).allocated("node-a", "gpu-0").reservedFor(p).obj()
	}
	tests := []struct {
		name         string
		objs         []runtime.Object
		relocate     bool
		wantFeasible []string
		wantMsg      string
	}{{
		name:         "without the mark an allocated claim keeps the pod on its node",
		objs:         []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(), own()},
		wantFeasible: []string{"node-a"},
		wantMsg:      ErrReasonNotAvailable,
	}, {
		name:         "the pod's own claim is allocated afresh where a device is free",
		objs:         []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(), own()},
		relocate:     true,
		wantFeasible: []string{"node-a", "node-b"},
	}, {
		name:         "no device elsewhere: no other node fits",
		objs:         []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), own()},
		relocate:     true,
		wantFeasible: []string{"node-a"},
		wantMsg:      ErrReasonCannotAllocate,
	}, {
		name: "a device another claim holds stays taken",
		objs: []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(), own(),
			claim("other").request("gpu", 1).allocated("node-b", "gpu-0").obj()},
		relocate:     true,
		wantFeasible: []string{"node-a"},
		wantMsg:      ErrReasonCannotAllocate,
	}, {
		name: "a claim shared with another pod stays allocated",
		objs: []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj(),
			claim("c").request("gpu", 1).allocated("node-a", "gpu-0").reservedFor(p).reservedFor(q).obj()},
		relocate:     true,
		wantFeasible: []string{"node-a"},
		wantMsg:      ErrReasonNotAvailable,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.objs...)
			c := &cycle{state: framework.NewCycleState(), byNode: map[string]*framework.Status{}}
			if tt.relocate {
				framework.MarkRelocation(c.state)
			}
			_, c.preStart = e.pl.PreFilter(context.Background(), c.state, p, nil)
			if !c.preStart.IsSuccess() {
				t.Fatalf("PreFilter = %v", c.preStart)
			}
			for _, n := range nodes {
				c.byNode[n.Name] = e.pl.Filter(context.Background(), c.state, p, st.NodeInfo(n))
			}
			if got := c.feasible(nodes); !slices.Equal(got, tt.wantFeasible) {
				t.Errorf("feasible nodes = %v, want %v", got, tt.wantFeasible)
			}
			for name, status := range c.byNode {
				if !status.IsSuccess() && (status.Code() != framework.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), tt.wantMsg)) {
					t.Errorf("Filter(%s) = %v, want %q", name, status, tt.wantMsg)
				}
			}
			informer, err := e.pl.tracker.get(ns, "c")
			if err != nil || informer.Status.Allocation == nil {
				t.Errorf("the informer's claim lost its allocation (%v): the relocation must work on a copy", err)
			}
		})
	}
}
