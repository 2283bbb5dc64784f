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

package volumebinding

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPreFilter(t *testing.T) {
	wffc := makeClass("wffc").obj()
	imm := makeClass("imm").immediate().obj()
	noMode := makeClass("nomode").obj()
	noMode.VolumeBindingMode = nil
	pod := st.Pod("p").PVC("c1").Obj()
	ephPod := st.Pod("p").Ephemeral("eph").Obj()
	tests := []struct {
		name     string
		objs     []runtime.Object
		pod      *v1.Pod
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "no claims skips", pod: st.Pod("p").Obj(), wantCode: framework.Skip},
		{name: "missing claim", pod: pod, wantCode: framework.UnschedulableAndUnresolvable, wantMsg: `persistentvolumeclaim "c1" not found`},
		{name: "missing ephemeral claim", pod: ephPod, wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg: `waiting for ephemeral volume controller to create the persistentvolumeclaim "p-eph"`},
		{name: "ephemeral claim of another pod", pod: ephPod, objs: []runtime.Object{makePVC("p-eph").class("wffc").obj(), wffc},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "PVC default/p-eph was not created for pod default/p (pod is not owner)"},
		{name: "ephemeral claim of the pod", pod: ephPod, objs: []runtime.Object{makePVC("p-eph").class("wffc").ownedBy(ephPod).obj(), wffc},
			wantCode: framework.Success},
		{name: "lost claim", pod: pod, objs: []runtime.Object{makePVC("c1").prebound("gone").lost().obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: `persistentvolumeclaim "c1" bound to non-existent persistentvolume "gone"`},
		{name: "claim being deleted", pod: pod, objs: []runtime.Object{makePVC("c1").class("wffc").deleting().obj(), wffc},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: `persistentvolumeclaim "c1" is being deleted`},
		{name: "unbound immediate claim", pod: pod, objs: []runtime.Object{makePVC("c1").class("imm").obj(), imm},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnboundImmediate},
		{name: "claim without class binds immediately", pod: pod, objs: []runtime.Object{makePVC("c1").obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnboundImmediate},
		{name: "claim of a missing class binds immediately", pod: pod, objs: []runtime.Object{makePVC("c1").class("nope").obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnboundImmediate},
		{name: "pre-bound delayed claim is immediate", pod: pod, objs: []runtime.Object{makePVC("c1").class("wffc").prebound("pv1").obj(), wffc},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnboundImmediate},
		{name: "class without binding mode is an error", pod: pod, objs: []runtime.Object{makePVC("c1").class("nomode").obj(), noMode},
			wantCode: framework.Error, wantMsg: `VolumeBindingMode not set for StorageClass "nomode"`},
		{name: "bound claim", pod: pod, objs: []runtime.Object{makePVC("c1").bound("pv1").obj(), makePV("pv1").obj()}, wantCode: framework.Success},
		{name: "delayed claim", pod: pod, objs: []runtime.Object{makePVC("c1").class("wffc").obj(), wffc}, wantCode: framework.Success},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.objs...)
			_, status, _ := e.schedule(tc.pod)
			if status.Code() != tc.wantCode {
				t.Fatalf("code = %v (%s), want %v", status.Code(), status.Message(), tc.wantCode)
			}
			if tc.wantMsg != "" && !strings.Contains(status.Message(), tc.wantMsg) {
				t.Errorf("message = %q, want it to contain %q", status.Message(), tc.wantMsg)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	wffc := makeClass("wffc").obj()
	prov := makeClass("prov").provisioner("csi.example.com").obj()
	provZoned := makeClass("zoned").provisioner("csi.example.com").topology("zone", "a").obj()
	nodeA := nodeWith("n1", "zone", "a")
	nodeB := nodeWith("n1", "zone", "b")
	c1 := makePVC("c1").class("wffc").size("5Gi")
	tests := []struct {
		name        string
		objs        []runtime.Object
		pod         *v1.Pod
		node        *v1.Node
		wantReasons []string // nil: feasible
		wantStatic  []string // "claim=pv"
		wantProv    []string
	}{
		{name: "bound PV admits the node", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs: []runtime.Object{makePVC("c1").bound("pv1").obj(), makePV("pv1").affinity("zone", "a").obj()}},
		{name: "bound PV without affinity", pod: st.Pod("p").PVC("c1").Obj(), node: nodeB,
			objs: []runtime.Object{makePVC("c1").bound("pv1").obj(), makePV("pv1").obj()}},
		{name: "bound PV excludes the node", pod: st.Pod("p").PVC("c1").Obj(), node: nodeB,
			objs:        []runtime.Object{makePVC("c1").bound("pv1").obj(), makePV("pv1").affinity("zone", "a").obj()},
			wantReasons: []string{ErrReasonNodeConflict}},
		{name: "bound to a missing PV", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs:        []runtime.Object{makePVC("c1").bound("gone").obj()},
			wantReasons: []string{ErrReasonPVNotExist}},
		{name: "smallest fitting PV", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, c1.obj(), makePV("big").class("wffc").size("20Gi").obj(),
				makePV("small").class("wffc").size("4Gi").obj(), makePV("fit").class("wffc").size("6Gi").obj()},
			wantStatic: []string{"c1=fit"}},
		{name: "PV of another class does not match", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs:        []runtime.Object{wffc, c1.obj(), makePV("pv1").class("other").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "selector picks the labelled PV", pod: st.Pod("p").PVC("c2").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, makePVC("c2").class("wffc").size("1Gi").selector("tier", "fast").obj(),
				makePV("plain").class("wffc").size("2Gi").obj(), makePV("fast").class("wffc").size("8Gi").labels("tier", "fast").obj()},
			wantStatic: []string{"c2=fast"}},
		{name: "selector matches nothing", pod: st.Pod("p").PVC("c2").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, makePVC("c2").class("wffc").size("1Gi").selector("tier", "fast").obj(),
				makePV("plain").class("wffc").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "access modes must be offered", pod: st.Pod("p").PVC("c3").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, makePVC("c3").class("wffc").size("1Gi").modes(v1.ReadWriteMany).obj(),
				makePV("rwo").class("wffc").obj(), makePV("rwx").class("wffc").size("50Gi").modes(v1.ReadWriteOnce, v1.ReadWriteMany).obj()},
			wantStatic: []string{"c3=rwx"}},
		{name: "PV node affinity must admit the node", pod: st.Pod("p").PVC("c1").Obj(), node: nodeB,
			objs:        []runtime.Object{wffc, c1.obj(), makePV("pv1").class("wffc").affinity("zone", "a").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "PV claimed by another claim", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs:        []runtime.Object{wffc, c1.obj(), makePV("pv1").class("wffc").claim(makePVC("other").obj()).obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "PV pre-bound to the claim wins over a smaller one", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, c1.obj(), makePV("fit").class("wffc").size("5Gi").obj(),
				makePV("mine").class("wffc").size("50Gi").claim(c1.obj()).obj()},
			wantStatic: []string{"c1=mine"}},
		{name: "PV pre-bound to the claim excludes the node", pod: st.Pod("p").PVC("c1").Obj(), node: nodeB,
			objs: []runtime.Object{wffc, c1.obj(), makePV("fit").class("wffc").size("5Gi").obj(),
				makePV("mine").class("wffc").claim(c1.obj()).affinity("zone", "a").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "PV being deleted does not match", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs:        []runtime.Object{wffc, c1.obj(), deletingPV(makePV("pv1").class("wffc").obj())},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "released PV does not match", pod: st.Pod("p").PVC("c1").Obj(), node: nodeA,
			objs:        []runtime.Object{wffc, c1.obj(), withPhase(makePV("pv1").class("wffc").obj(), v1.VolumeReleased)},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "two claims take two PVs", pod: st.Pod("p").PVC("c1", "c4").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, c1.obj(), makePVC("c4").class("wffc").size("1Gi").obj(),
				makePV("pv5").class("wffc").size("5Gi").obj(), makePV("pv6").class("wffc").size("6Gi").obj()},
			wantStatic: []string{"c4=pv5", "c1=pv6"}},
		{name: "two claims, one PV", pod: st.Pod("p").PVC("c1", "c4").Obj(), node: nodeA,
			objs: []runtime.Object{wffc, c1.obj(), makePVC("c4").class("wffc").size("1Gi").obj(),
				makePV("pv6").class("wffc").size("6Gi").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "provisioning when no PV fits", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs:     []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").obj(), makePV("tiny").class("prov").size("1Gi").obj()},
			wantProv: []string{"d1"}},
		{name: "allowed topology admits the node", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs: []runtime.Object{provZoned, makePVC("d1").class("zoned").size("5Gi").obj()}, wantProv: []string{"d1"}},
		{name: "allowed topology excludes the node", pod: st.Pod("p").PVC("d1").Obj(), node: nodeB,
			objs:        []runtime.Object{provZoned, makePVC("d1").class("zoned").size("5Gi").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "driver without capacity tracking", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs:     []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").obj(), csiDriver("csi.example.com", false)},
			wantProv: []string{"d1"}},
		{name: "tracked capacity has room", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs: []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").obj(), csiDriver("csi.example.com", true),
				capacity("cap-small", "prov", "1Gi", "zone", "a"), capacity("cap", "prov", "100Gi", "zone", "a")},
			wantProv: []string{"d1"}},
		{name: "tracked capacity too small", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs: []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").obj(), csiDriver("csi.example.com", true),
				capacity("cap", "prov", "1Gi", "zone", "a")},
			wantReasons: []string{ErrReasonNotEnoughSpace}},
		{name: "tracked capacity out of the node's reach", pod: st.Pod("p").PVC("d1").Obj(), node: nodeB,
			objs: []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").obj(), csiDriver("csi.example.com", true),
				capacity("cap", "prov", "100Gi", "zone", "a")},
			wantReasons: []string{ErrReasonNotEnoughSpace}},
		{name: "tracked capacity of another class", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs: []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").obj(), csiDriver("csi.example.com", true),
				capacity("cap", "other", "100Gi", "zone", "a")},
			wantReasons: []string{ErrReasonNotEnoughSpace}},
		{name: "provisioning started on this node", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs:     []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").selectedNode("n1").obj(), makePV("pv1").class("prov").obj()},
			wantProv: []string{"d1"}},
		{name: "provisioning started on another node", pod: st.Pod("p").PVC("d1").Obj(), node: nodeA,
			objs:        []runtime.Object{prov, makePVC("d1").class("prov").size("5Gi").selectedNode("n2").obj()},
			wantReasons: []string{ErrReasonBindConflict}},
		{name: "bound conflict and no PV report both", pod: st.Pod("p").PVC("c0", "c1").Obj(), node: nodeB,
			objs:        []runtime.Object{wffc, makePVC("c0").bound("pv0").obj(), makePV("pv0").affinity("zone", "a").obj(), c1.obj()},
			wantReasons: []string{ErrReasonNodeConflict, ErrReasonBindConflict}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.objs...)
			cs, pre, sts := e.schedule(tc.pod, tc.node)
			if !pre.IsSuccess() {
				t.Fatalf("PreFilter: %v", pre)
			}
			status := sts[0]
			if tc.wantReasons == nil {
				if !status.IsSuccess() {
					t.Fatalf("Filter = %v, want success", status)
				}
			} else {
				if status.Code() != framework.UnschedulableAndUnresolvable || !slices.Equal(status.Reasons(), tc.wantReasons) {
					t.Fatalf("Filter = %v, want UnschedulableAndUnresolvable %q", status, tc.wantReasons)
				}
				return
			}
			s, err := readState(cs)
			if err != nil {
				t.Fatal(err)
			}
			nv := s.forNode(tc.node.Name)
			var static, prov []string
			if nv != nil {
				for _, b := range nv.static {
					static = append(static, b.pvc.Name+"="+b.pv.Name)
				}
				for _, p := range nv.provision {
					prov = append(prov, p.pvc.Name)
				}
			}
			if !slices.Equal(static, tc.wantStatic) || !slices.Equal(prov, tc.wantProv) {
				t.Errorf("decision = static %v provision %v, want %v %v", static, prov, tc.wantStatic, tc.wantProv)
			}
		})
	}
}

func deletingPV(pv *v1.PersistentVolume) *v1.PersistentVolume {
	now := metav1.Now()
	pv.DeletionTimestamp = &now
	return pv
}

func withPhase(pv *v1.PersistentVolume, p v1.PersistentVolumePhase) *v1.PersistentVolume {
	pv.Status.Phase = p
	return pv
}

func TestFilterNodeMissing(t *testing.T) {
	e := newEnv(t, makePVC("c1").bound("pv1").obj(), makePV("pv1").obj())
	cs, _, _ := e.schedule(st.Pod("p").PVC("c1").Obj())
	if status := e.pl.Filter(context.Background(), cs, st.Pod("p").PVC("c1").Obj(), framework.NewNodeInfo()); status.Code() != framework.Error {
		t.Fatalf("Filter without node = %v, want Error", status)
	}
}

func TestReserveAssumesPVsForLaterPods(t *testing.T) {
	ctx := context.Background()
	node := nodeWith("n1")
	e := newEnv(t, makeClass("wffc").obj(),
		makePVC("a").class("wffc").size("1Gi").obj(), makePVC("b").class("wffc").size("1Gi").obj(),
		makePV("pv1").class("wffc").obj())
	podA, podB := st.Pod("pa").PVC("a").Obj(), st.Pod("pb").PVC("b").Obj()

	csA, _, sts := e.schedule(podA, node)
	if !sts[0].IsSuccess() {
		t.Fatalf("pod a: Filter = %v", sts[0])
	}
	if status := e.pl.Reserve(ctx, csA, podA, "n1"); !status.IsSuccess() {
		t.Fatalf("pod a: Reserve = %v", status)
	}
	pv, _ := e.pl.pvs.get("pv1")
	if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != "a" {
		t.Fatalf("assumed pv1 claimRef = %v, want claim a", pv.Spec.ClaimRef)
	}

	_, _, sts = e.schedule(podB, node)
	if !slices.Equal(sts[0].Reasons(), []string{ErrReasonBindConflict}) {
		t.Fatalf("pod b while pv1 is assumed: Filter = %v, want %q", sts[0], ErrReasonBindConflict)
	}

	e.pl.Unreserve(ctx, csA, podA, "n1")
	e.pl.Unreserve(ctx, csA, podA, "n1") // idempotent
	csB, _, sts := e.schedule(podB, node)
	if !sts[0].IsSuccess() {
		t.Fatalf("pod b after Unreserve: Filter = %v", sts[0])
	}
	if status := e.pl.Reserve(ctx, csB, podB, "n1"); !status.IsSuccess() {
		t.Fatalf("pod b: Reserve = %v", status)
	}
	if pv, _ := e.pl.pvs.get("pv1"); pv.Spec.ClaimRef.Name != "b" {
		t.Fatalf("pv1 assumed for %q, want b", pv.Spec.ClaimRef.Name)
	}
}

func TestReserveAssumesSelectedNode(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, makeClass("prov").provisioner("csi.example.com").obj(), makePVC("d1").class("prov").size("1Gi").obj())
	pod := st.Pod("p").PVC("d1").Obj()
	cs, _, sts := e.schedule(pod, nodeWith("n1"), nodeWith("n2"))
	if !sts[0].IsSuccess() || !sts[1].IsSuccess() {
		t.Fatalf("Filter = %v", sts)
	}
	if status := e.pl.Reserve(ctx, cs, pod, "n2"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	pvc, _ := e.pl.pvcs.get(ns + "/d1")
	if got := pvc.Annotations["volume.kubernetes.io/selected-node"]; got != "n2" {
		t.Fatalf("assumed selected node = %q, want n2", got)
	}
	// A later pod sharing the claim is now held to n2.
	_, _, sts = e.schedule(st.Pod("q").PVC("d1").Obj(), nodeWith("n1"), nodeWith("n2"))
	if sts[0].IsSuccess() || !sts[1].IsSuccess() {
		t.Fatalf("later pod: Filter n1 = %v, n2 = %v; want only n2 feasible", sts[0], sts[1])
	}
	e.pl.Unreserve(ctx, cs, pod, "n2")
	if pvc, _ := e.pl.pvcs.get(ns + "/d1"); pvc.Annotations != nil {
		t.Fatalf("after Unreserve the claim still has %v", pvc.Annotations)
	}
}

func TestReserveStaleDecisionFails(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, makeClass("wffc").obj(), makePVC("a").class("wffc").obj(), makePV("pv1").class("wffc").obj())
	pod := st.Pod("p").PVC("a").Obj()
	cs, _, _ := e.schedule(pod, nodeWith("n1"))
	e.put(makePV("pv1").class("wffc").rv("2").obj()) // changed after Filter
	if status := e.pl.Reserve(ctx, cs, pod, "n1"); status.Code() != framework.Error {
		t.Fatalf("Reserve on a stale PV = %v, want Error", status)
	}
	if n := e.pl.pvs.assumedCount(); n != 0 {
		t.Fatalf("%d PVs left assumed", n)
	}
}

func TestReserveWithoutClaimsToBind(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, makePVC("c1").bound("pv1").obj(), makePV("pv1").obj())
	pod := st.Pod("p").PVC("c1").Obj()
	cs, _, _ := e.schedule(pod, nodeWith("n1"))
	if status := e.pl.Reserve(ctx, cs, pod, "n1"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	if status := e.pl.PreBind(ctx, cs, pod, "n1"); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
	if n := len(e.client.Actions()); n != 0 {
		t.Fatalf("PreBind made %d API calls, want none", n)
	}
	// A pod without claims has no state at all.
	empty := framework.NewCycleState()
	if status := e.pl.Reserve(ctx, empty, st.Pod("x").Obj(), "n1"); !status.IsSuccess() {
		t.Fatalf("Reserve without state = %v", status)
	}
	if status := e.pl.PreBind(ctx, empty, st.Pod("x").Obj(), "n1"); !status.IsSuccess() {
		t.Fatalf("PreBind without state = %v", status)
	}
	e.pl.Unreserve(ctx, empty, st.Pod("x").Obj(), "n1")
}

func TestAssumeCacheExpiresOnInformerUpdate(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, makeClass("wffc").obj(), makePVC("a").class("wffc").obj(), makePV("pv1").class("wffc").obj())
	pod := st.Pod("p").PVC("a").Obj()
	cs, _, _ := e.schedule(pod, nodeWith("n1"))
	if status := e.pl.Reserve(ctx, cs, pod, "n1"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	// The informer moves past the assumed version: its object wins.
	e.put(makePV("pv1").class("wffc").rv("5").obj())
	if pv, _ := e.pl.pvs.get("pv1"); pv.Spec.ClaimRef != nil {
		t.Fatalf("assumed version outlived the informer update")
	}
	// The next assume prunes the expired overlay.
	e.put(makePVC("b").class("wffc").obj())
	csB, _, _ := e.schedule(st.Pod("q").PVC("b").Obj(), nodeWith("n1"))
	if status := e.pl.Reserve(ctx, csB, st.Pod("q").PVC("b").Obj(), "n1"); !status.IsSuccess() {
		t.Fatalf("Reserve b = %v", status)
	}
	if n := e.pl.pvs.assumedCount(); n != 1 {
		t.Fatalf("assumed PVs = %d, want 1", n)
	}
}

func TestScore(t *testing.T) {
	ctx := context.Background()
	wffc := makeClass("wffc").obj()
	prov := makeClass("prov").provisioner("csi.example.com").obj()
	tests := []struct {
		name      string
		objs      []runtime.Object
		pod       *v1.Pod
		args      *VolumeBindingArgs
		wantSkip  bool
		wantScore int64
	}{
		{name: "bound claims only: skipped", pod: st.Pod("p").PVC("c1").Obj(), wantSkip: true,
			objs: []runtime.Object{makePVC("c1").bound("pv1").obj(), makePV("pv1").obj()}},
		{name: "static half used", pod: st.Pod("p").PVC("c1").Obj(), wantScore: 50,
			objs: []runtime.Object{wffc, makePVC("c1").class("wffc").size("5Gi").obj(), makePV("pv1").class("wffc").size("10Gi").obj()}},
		{name: "static fully used", pod: st.Pod("p").PVC("c1").Obj(), wantScore: 0,
			objs: []runtime.Object{wffc, makePVC("c1").class("wffc").size("5Gi").obj(), makePV("pv1").class("wffc").size("5Gi").obj()}},
		{name: "static with a most-allocated shape", pod: st.Pod("p").PVC("c1").Obj(), wantScore: 80,
			args: &VolumeBindingArgs{BindTimeoutSeconds: ptr.To[int64](1), Shape: []UtilizationShapePoint{{0, 0}, {100, 10}}},
			objs: []runtime.Object{wffc, makePVC("c1").class("wffc").size("8Gi").obj(), makePV("pv1").class("wffc").size("10Gi").obj()}},
		{name: "provisioning from tracked capacity", pod: st.Pod("p").PVC("d1", "d2").Obj(), wantScore: 70,
			objs: []runtime.Object{prov, makePVC("d1").class("prov").size("10Gi").obj(), makePVC("d2").class("prov").size("20Gi").obj(),
				csiDriver("csi.example.com", true), capacity("cap", "prov", "100Gi")}},
		{name: "provisioning without tracked capacity: skipped", pod: st.Pod("p").PVC("d1").Obj(), wantSkip: true,
			objs: []runtime.Object{prov, makePVC("d1").class("prov").size("10Gi").obj()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args == nil {
				args = DefaultArgs()
			}
			e := newEnvWithArgs(t, args, tc.objs...)
			node := nodeWith("n1")
			cs, _, sts := e.schedule(tc.pod, node)
			if !sts[0].IsSuccess() {
				t.Fatalf("Filter = %v", sts[0])
			}
			status := e.pl.PreScore(ctx, cs, tc.pod, nil)
			if tc.wantSkip {
				if !status.IsSkip() {
					t.Fatalf("PreScore = %v, want Skip", status)
				}
				return
			}
			if !status.IsSuccess() {
				t.Fatalf("PreScore = %v", status)
			}
			got, status := e.pl.Score(ctx, cs, tc.pod, st.NodeInfo(node))
			if !status.IsSuccess() || got != tc.wantScore {
				t.Fatalf("Score = %d, %v; want %d", got, status, tc.wantScore)
			}
		})
	}
}

func TestShapeScore(t *testing.T) {
	shape := []UtilizationShapePoint{{Utilization: 20, Score: 2}, {Utilization: 60, Score: 10}}
	for _, tc := range []struct{ util, want int64 }{{0, 20}, {20, 20}, {40, 60}, {60, 100}, {100, 100}} {
		if got := shapeScore(shape, tc.util); got != tc.want {
			t.Errorf("shapeScore(%d) = %d, want %d", tc.util, got, tc.want)
		}
	}
}

func TestNewFactory(t *testing.T) {
	e := newEnv(t)
	h := &st.Handle{Client: e.client, Informers: e.factory}
	if _, err := New(context.Background(), []byte(`{"bindTimeoutSeconds": 5}`), h); err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := New(context.Background(), []byte(`{"bindTimeoutSeconds": -1}`), h); err == nil {
		t.Fatal("New accepted a negative timeout")
	}
	if _, err := New(context.Background(), []byte(`{"bogus": 1}`), h); err == nil {
		t.Fatal("New accepted an unknown field")
	}
}

func TestFilterConcurrentNodes(t *testing.T) {
	e := newEnv(t, makeClass("wffc").obj(), makePVC("c1").class("wffc").obj(), makePV("pv1").class("wffc").affinity("zone", "a").obj())
	pod := st.Pod("p").PVC("c1").Obj()
	cs := framework.NewCycleState()
	if _, status := e.pl.PreFilter(context.Background(), cs, pod, nil); !status.IsSuccess() {
		t.Fatal(status)
	}
	nodes := benchNodes(60) // zones z0..z2: none is "a"
	nodes = append(nodes, st.NodeInfo(nodeWith("na", "zone", "a")))
	var wg sync.WaitGroup
	feasible := make([]bool, len(nodes))
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			feasible[i] = e.pl.Filter(context.Background(), cs, pod, nodes[i]).IsSuccess()
		}()
	}
	wg.Wait()
	for i, ok := range feasible {
		if want := i == len(nodes)-1; ok != want {
			t.Errorf("node %s feasible = %v, want %v", nodes[i].Node().Name, ok, want)
		}
	}
	s, _ := readState(cs)
	if nv := s.forNode("na"); nv == nil || len(nv.static) != 1 || nv.static[0].pv.Name != "pv1" {
		t.Fatalf("decision for na = %+v", nv)
	}
}
