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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-helpers/storage/volume"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// reserved schedules pod onto n1 and reserves it; the pod and node are in
// their informers so PreBind's checks find them.
func reserved(t *testing.T, args *VolumeBindingArgs, pod *v1.Pod, objs ...runtime.Object) (*env, *framework.CycleState) {
	t.Helper()
	node := nodeWith("n1", "zone", "a")
	e := newEnvWithArgs(t, args, append(objs, node, pod)...)
	cs, _, sts := e.schedule(pod, node)
	if !sts[0].IsSuccess() {
		t.Fatalf("Filter = %v", sts[0])
	}
	if status := e.pl.Reserve(context.Background(), cs, pod, "n1"); !status.IsSuccess() {
		t.Fatalf("Reserve = %v", status)
	}
	return e, cs
}

// preBind runs PreBind in the background.
func (e *env) preBind(ctx context.Context, cs *framework.CycleState, pod *v1.Pod) <-chan *framework.Status {
	out := make(chan *framework.Status, 1)
	go func() { out <- e.pl.PreBind(ctx, cs, pod, "n1") }()
	return out
}

// waitPolling blocks until PreBind's ticker exists, i.e. the writes are done.
func (e *env) waitPolling(done <-chan *framework.Status) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !e.clock.HasWaiters() {
		select {
		case status := <-done:
			e.t.Fatalf("PreBind returned before polling: %v", status)
		default:
		}
		if time.Now().After(deadline) {
			e.t.Fatal("PreBind never started polling")
		}
		time.Sleep(time.Millisecond)
	}
}

func (e *env) result(done <-chan *framework.Status) *framework.Status {
	e.t.Helper()
	select {
	case status := <-done:
		return status
	case <-time.After(5 * time.Second):
		e.t.Fatal("PreBind did not return")
		return nil
	}
}

func staticSetup(t *testing.T, args *VolumeBindingArgs) (*env, *framework.CycleState, *v1.Pod) {
	pod := st.Pod("p").PVC("a").Obj()
	e, cs := reserved(t, args, pod, makeClass("wffc").obj(), makePVC("a").class("wffc").size("1Gi").obj(),
		makePV("pv1").class("wffc").affinity("zone", "a").obj())
	return e, cs, pod
}

func provisionSetup(t *testing.T) (*env, *framework.CycleState, *v1.Pod) {
	pod := st.Pod("p").PVC("d1").Obj()
	e, cs := reserved(t, DefaultArgs(), pod, makeClass("prov").provisioner("csi.example.com").obj(),
		makePVC("d1").class("prov").size("1Gi").obj())
	return e, cs, pod
}

func TestPreBindStaticBinding(t *testing.T) {
	e, cs, pod := staticSetup(t, DefaultArgs())
	done := e.preBind(context.Background(), cs, pod)
	e.waitPolling(done)

	written, err := e.client.CoreV1().PersistentVolumes().Get(context.Background(), "pv1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := written.Spec.ClaimRef; ref == nil || ref.Name != "a" || ref.Namespace != ns || ref.UID != "a-uid" {
		t.Fatalf("written claimRef = %+v, want default/a with its UID", ref)
	}
	if !metav1.HasAnnotation(written.ObjectMeta, volume.AnnBoundByController) {
		t.Errorf("written PV lacks %s", volume.AnnBoundByController)
	}

	// The PV controller completes the binding; the informers see it.
	claim := makePVC("a").class("wffc").size("1Gi").bound("pv1").rv("2").obj()
	e.put(makePV("pv1").class("wffc").affinity("zone", "a").claim(claim).rv("2").obj())
	e.put(claim)
	e.clock.Step(time.Second)
	if status := e.result(done); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
}

func TestPreBindProvisioning(t *testing.T) {
	e, cs, pod := provisionSetup(t)
	done := e.preBind(context.Background(), cs, pod)
	e.waitPolling(done)

	written, err := e.client.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "d1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := written.Annotations[volume.AnnSelectedNode]; got != "n1" {
		t.Fatalf("written selected node = %q, want n1", got)
	}

	// Not yet bound: a tick leaves PreBind waiting.
	e.clock.Step(time.Second)
	select {
	case status := <-done:
		t.Fatalf("PreBind returned %v before the claim was bound", status)
	case <-time.After(20 * time.Millisecond):
	}

	e.put(makePV("pvc-d1").class("prov").obj())
	e.put(makePVC("d1").class("prov").size("1Gi").selectedNode("n1").bound("pvc-d1").rv("3").obj())
	e.clock.Step(time.Second)
	if status := e.result(done); !status.IsSuccess() {
		t.Fatalf("PreBind = %v", status)
	}
}

func TestPreBindFailures(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T) (*env, *framework.CycleState, *v1.Pod)
		before  func(e *env) // before PreBind
		during  func(e *env) // once PreBind polls
		cancel  bool
		wantErr string
	}{
		{name: "timeout", setup: func(t *testing.T) (*env, *framework.CycleState, *v1.Pod) { return staticSetup(t, DefaultArgs()) },
			during: func(e *env) { e.clock.Step(601 * time.Second) }, wantErr: "binding volumes: context deadline exceeded"},
		{name: "context cancelled", setup: func(t *testing.T) (*env, *framework.CycleState, *v1.Pod) { return staticSetup(t, DefaultArgs()) },
			cancel: true, wantErr: "context canceled"},
		{name: "claimRef reset by the PV controller", setup: func(t *testing.T) (*env, *framework.CycleState, *v1.Pod) { return staticSetup(t, DefaultArgs()) },
			during: func(e *env) {
				e.put(makePV("pv1").class("wffc").affinity("zone", "a").rv("2").obj())
				e.clock.Step(time.Second)
			},
			wantErr: `ClaimRef got reset for pv "pv1"`},
		{name: "provisioning failed", setup: provisionSetup,
			during:  func(e *env) { e.put(makePVC("d1").class("prov").size("1Gi").rv("2").obj()); e.clock.Step(time.Second) },
			wantErr: `provisioning failed for PVC "d1"`},
		{name: "pod deleted", setup: provisionSetup,
			before: func(e *env) {
				_ = e.factory.Core().V1().Pods().Informer().GetIndexer().Delete(st.Pod("p").PVC("d1").Obj())
			},
			wantErr: "pod does not exist any more"},
		{name: "zero timeout gives up after one check", setup: func(t *testing.T) (*env, *framework.CycleState, *v1.Pod) {
			return staticSetup(t, &VolumeBindingArgs{BindTimeoutSeconds: ptr.To[int64](0), Shape: defaultShape()})
		}, wantErr: "context deadline exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, cs, pod := tc.setup(t)
			if tc.before != nil {
				tc.before(e)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := e.preBind(ctx, cs, pod)
			if tc.during != nil || tc.cancel {
				e.waitPolling(done)
			}
			if tc.during != nil {
				tc.during(e)
			}
			if tc.cancel {
				cancel()
			}
			status := e.result(done)
			if status.Code() != framework.Error || !strings.Contains(status.Message(), tc.wantErr) {
				t.Fatalf("PreBind = %v, want an Error containing %q", status, tc.wantErr)
			}
		})
	}
}

func TestPreBindWriteFailureReverts(t *testing.T) {
	e, cs, pod := staticSetup(t, DefaultArgs())
	if err := e.client.CoreV1().PersistentVolumes().Delete(context.Background(), "pv1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	status := e.pl.PreBind(context.Background(), cs, pod, "n1")
	if status.Code() != framework.Error || !strings.Contains(status.Message(), `updating PV "pv1"`) {
		t.Fatalf("PreBind = %v, want an update error", status)
	}
	if n := e.pl.pvs.assumedCount(); n != 0 {
		t.Fatalf("%d PVs still assumed after a failed write", n)
	}
}
