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

package scheduler

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// newForeignRig is a scheduler whose loop counts as started, serving
// schedulerName "berth-sched" with profile "coexist", on a fake clock.
func newForeignRig(t *testing.T, objs ...runtime.Object) *harness {
	t.Helper()
	_, m := st.Metrics(t)
	h := newHarness(t, withObjects(objs...), withFakeClock(), withOptions(WithMetrics(m)),
		withProfile("berth-sched", "coexist", &v1alpha1.SchedulingProfileSpec{}))
	h.s.loopStarted.Store(true)
	return h
}

func TestNoticeBinding(t *testing.T) {
	pending := st.Pod("web").SchedulerName("berth-sched").Obj()
	bound := st.PodFrom(pending).NodeName("n1").Obj()
	tests := []struct {
		name string
		// sent is true when the scheduler sent the pod to be bound itself.
		sent bool
		// standby is true on a replica whose loop has not started.
		standby bool
		// old and new are the update the informer delivers; old nil is an add of new.
		old, new *v1.Pod
		// want is set when the pod becomes a candidate.
		want bool
	}{
		{name: "bound by another scheduler", old: pending, new: bound, want: true},
		{name: "bound by Berth", sent: true, old: pending, new: bound},
		{name: "seen by a standby", standby: true, old: pending, new: bound},
		{name: "created bound", new: bound},
		{name: "updated while bound", old: bound, new: st.PodFrom(bound).Label("a", "b").Obj()},
		{name: "still pending", old: pending, new: st.PodFrom(pending).Label("a", "b").Obj()},
		{name: "a schedulerName Berth does not serve", old: st.PodFrom(pending).SchedulerName("default-scheduler").Obj(),
			new: st.PodFrom(bound).SchedulerName("default-scheduler").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newForeignRig(t)
			r.s.loopStarted.Store(!tt.standby)
			if tt.sent {
				r.s.foreign.Binding(pending.UID)
			}
			h := pendingPodHandler{s: r.s, logger: logr.Discard()}
			if tt.old == nil {
				h.OnAdd(tt.new, false)
			} else {
				h.OnUpdate(tt.old, tt.new)
			}
			if got := r.s.foreign.Waiting(); got != map[bool]int{true: 1}[tt.want] {
				t.Errorf("%d candidates, want the pod one: %v", got, tt.want)
			}
			if tt.sent && r.s.foreign.TakeSent(pending.UID) {
				t.Error("the bind Berth sent is still remembered after the pod was seen bound")
			}
		})
	}
}

// TestBerthsOwnBindIsNotForeign binds a pod through the scheduling cycle and
// delivers the informer's update of it: no candidate comes of it.
func TestBerthsOwnBindIsNotForeign(t *testing.T) {
	pod := st.Pod("web").SchedulerName("berth-sched").Req("cpu", "100m").Obj()
	r := newForeignRig(t, pod)
	ctx := klog.NewContext(t.Context(), logr.Discard())
	alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
	r.s.cache.AddNode(logr.Discard(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: alloc}})
	r.s.queue.Add(logr.Discard(), pod)
	r.s.scheduleOne(ctx)
	r.s.bindings.Wait()
	// Had the cycle not sent the pod to be bound, its update would be a candidate.
	bound := st.PodFrom(pod).NodeName("n1").Obj()
	pendingPodHandler{s: r.s, logger: logr.Discard()}.OnUpdate(pod, bound)
	if got := r.s.foreign.Waiting(); got != 0 {
		t.Errorf("Berth's own bind became %d candidates", got)
	}
}

// TestLostBindRace runs a pod's cycle whose bind the apiserver refuses:
// refused because another scheduler bound the pod first, the pod is that
// scheduler's (a candidate, nothing written to the pod, out of the queue
// and the cache), unless an earlier bind of Berth's went unanswered and
// may have bound it; any other refusal is a failed bind, retried.
func TestLostBindRace(t *testing.T) {
	alreadyBound := apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, "web",
		fmt.Errorf("pod web is already assigned to node %q", "n2"))
	tests := []struct {
		name string
		// unanswered is set when an earlier bind of Berth's got no answer.
		unanswered bool
		// reply is the apiserver's answer to the bind.
		reply error
		// wantCandidate is set when the pod is counted as another
		// scheduler's; wantRetried when it is back in the queue.
		wantCandidate, wantRetried bool
	}{
		{name: "another scheduler bound it first", reply: alreadyBound, wantCandidate: true},
		{name: "an earlier bind of Berth's went unanswered", unanswered: true, reply: alreadyBound, wantRetried: true},
		{name: "another conflict", reply: apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, "web", errors.New("the object has been modified")), wantRetried: true},
		{name: "a server error", reply: apierrors.NewInternalError(errors.New("etcd timeout")), wantRetried: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := st.Pod("web").UID("web").SchedulerName("berth-sched").Req("cpu", "100m").Obj()
			r := newForeignRig(t, pod)
			ctx := klog.NewContext(t.Context(), logr.Discard())
			if err := r.s.informerFactory.Core().V1().Pods().Informer().GetIndexer().Add(pod); err != nil {
				t.Fatal(err)
			}
			alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
			r.s.cache.AddNode(logr.Discard(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: alloc}})
			if tt.unanswered {
				r.s.foreign.Binding(pod.UID)
				r.s.foreign.BindFailed(pod.UID, fmt.Errorf("binding pod default/web to node n1: %w", errors.New("connection reset by peer")))
			}
			r.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "binding" {
					return false, nil, nil
				}
				return true, nil, tt.reply
			})
			r.s.queue.Add(logr.Discard(), pod)
			r.client.ClearActions()
			r.s.scheduleOne(ctx)
			r.s.bindings.Wait()

			if got := r.s.foreign.Waiting(); got != map[bool]int{true: 1}[tt.wantCandidate] {
				t.Errorf("%d candidates, want the pod counted: %v", got, tt.wantCandidate)
			}
			if got := r.s.queue.Has(pod); got != tt.wantRetried {
				t.Errorf("pod in the queue: %v, want %v", got, tt.wantRetried)
			}
			if assumed, _ := r.s.cache.IsAssumedPod(pod); assumed {
				t.Error("the pod is still assumed in the cache")
			}
			statusWritten := false
			for _, a := range r.client.Actions() {
				if a.GetResource().Resource == "pods" && a.GetSubresource() == "status" {
					statusWritten = true
				}
			}
			if statusWritten != tt.wantRetried {
				t.Errorf("the pod's status was written: %v, want %v", statusWritten, tt.wantRetried)
			}
		})
	}
}
