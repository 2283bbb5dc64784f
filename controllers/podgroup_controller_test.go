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

package controllers

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// podGroupRig is a PodGroupReconciler on a fake client that counts status patches.
type podGroupRig struct {
	t       *testing.T
	ctx     context.Context
	client  client.Client
	clock   *clocktesting.FakePassiveClock
	r       *PodGroupReconciler
	patches int
}

func newPodGroupRig(t *testing.T, objs ...client.Object) *podGroupRig {
	t.Helper()
	scheme := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	rig := &podGroupRig{t: t, ctx: log.IntoContext(context.Background(), logr.Discard()), clock: clocktesting.NewFakePassiveClock(t0)}
	rig.client = fakeclient.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&v1alpha1.PodGroup{}, &corev1.Pod{}).
		WithIndex(&corev1.Pod{}, podGroupIndex, podGroupIndexValue).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if _, ok := obj.(*v1alpha1.PodGroup); ok {
					rig.patches++
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	rig.r = NewPodGroupReconciler(rig.client, rig.clock)
	return rig
}

func (r *podGroupRig) reconcile(name string) {
	r.t.Helper()
	if _, err := r.r.Reconcile(r.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: testNamespace, Name: name}}); err != nil {
		r.t.Fatalf("Reconcile(%s): %v", name, err)
	}
}

func (r *podGroupRig) group(name string) *v1alpha1.PodGroup {
	r.t.Helper()
	var pg v1alpha1.PodGroup
	if err := r.client.Get(r.ctx, types.NamespacedName{Namespace: testNamespace, Name: name}, &pg); err != nil {
		r.t.Fatal(err)
	}
	return &pg
}

func (r *podGroupRig) update(pod *corev1.Pod) {
	r.t.Helper()
	var cur corev1.Pod
	if err := r.client.Get(r.ctx, client.ObjectKeyFromObject(pod), &cur); err != nil {
		r.t.Fatal(err)
	}
	pod.ResourceVersion = cur.ResourceVersion
	podStatus := pod.Status
	if err := r.client.Update(r.ctx, pod); err != nil {
		r.t.Fatal(err)
	}
	pod.Status = podStatus
	if err := r.client.Status().Update(r.ctx, pod); err != nil {
		r.t.Fatal(err)
	}
}

func (r *podGroupRig) expect(name string, phase v1alpha1.PodGroupPhase, scheduled, running int32, patches int) {
	r.t.Helper()
	pg := r.group(name)
	if pg.Status.Phase != phase || pg.Status.Scheduled != scheduled || pg.Status.Running != running {
		r.t.Errorf("%s: phase %s, scheduled %d, running %d; want %s, %d, %d", name, pg.Status.Phase, pg.Status.Scheduled, pg.Status.Running, phase, scheduled, running)
	}
	if pg.Status.ObservedGeneration != pg.Generation {
		r.t.Errorf("%s: observedGeneration %d, generation %d", name, pg.Status.ObservedGeneration, pg.Generation)
	}
	if r.patches != patches {
		r.t.Errorf("%d status patches, want %d", r.patches, patches)
	}
}

func TestPodGroupReconcile(t *testing.T) {
	rig := newPodGroupRig(t,
		podGroup("gang", 3).Generation(2).Obj(),
		podGroup("other", 1).Obj(),
		member("a", "gang").NodeName("n1").Obj(),
		member("b", "gang").NodeName("n2").Obj(),
		member("c", "gang").Obj(),
		// Neither a namesake group elsewhere nor another group's pods count.
		member("d", "gang").Namespace("elsewhere").NodeName("n1").Obj(),
		member("e", "other").NodeName("n1").Obj(),
	)
	rig.reconcile("gang")
	rig.expect("gang", v1alpha1.PodGroupScheduling, 2, 0, 1)

	rig.clock.SetTime(t0.Add(time.Minute))
	rig.reconcile("gang")
	rig.expect("gang", v1alpha1.PodGroupScheduling, 2, 0, 1) // nothing changed, nothing written

	rig.update(member("c", "gang").NodeName("n1").Obj())
	rig.reconcile("gang")
	rig.expect("gang", v1alpha1.PodGroupScheduled, 3, 0, 2)

	rig.update(member("a", "gang").NodeName("n1").Phase(corev1.PodRunning).Obj())
	rig.update(member("b", "gang").NodeName("n2").Phase(corev1.PodRunning).Obj())
	rig.update(member("c", "gang").NodeName("n1").Phase(corev1.PodRunning).Obj())
	rig.reconcile("gang")
	rig.expect("gang", v1alpha1.PodGroupRunning, 3, 3, 3)

	rig.update(member("c", "gang").NodeName("n1").Phase(corev1.PodFailed).Obj())
	rig.reconcile("gang")
	rig.expect("gang", v1alpha1.PodGroupFailed, 2, 2, 4)

	rig.reconcile("other")
	rig.expect("other", v1alpha1.PodGroupScheduled, 1, 0, 5)

	// A group that is gone is no error.
	rig.reconcile("missing")
}

func TestGroupOfPod(t *testing.T) {
	reqs := groupOfPod(context.Background(), member("a", "gang").Obj())
	if want := (types.NamespacedName{Namespace: testNamespace, Name: "gang"}); len(reqs) != 1 || reqs[0].NamespacedName != want {
		t.Errorf("groupOfPod = %v, want %s", reqs, want)
	}
	unlabelled := member("b", "").Obj()
	delete(unlabelled.Labels, v1alpha1.PodGroupLabel)
	if reqs := groupOfPod(context.Background(), unlabelled); len(reqs) != 0 {
		t.Errorf("an unlabelled pod maps to %v", reqs)
	}
	sel := MemberPodSelector()
	if !sel.Matches(labels.Set(member("a", "gang").Obj().Labels)) || sel.Matches(labels.Set(unlabelled.Labels)) {
		t.Errorf("MemberPodSelector %s selects the wrong pods", sel)
	}
}

func TestMemberChanged(t *testing.T) {
	base := func() *st.PodBuilder { return member("a", "gang") }
	unlabelled := func() *corev1.Pod {
		p := base().Obj()
		delete(p.Labels, v1alpha1.PodGroupLabel)
		return p
	}
	withIP := base().NodeName("n1").Obj()
	withIP.Status.PodIP = "10.0.0.1"
	tests := []struct {
		name     string
		old, new *corev1.Pod
		want     bool
	}{
		{"bound", base().Obj(), base().NodeName("n1").Obj(), true},
		{"started", base().NodeName("n1").Obj(), base().NodeName("n1").Phase(corev1.PodRunning).Obj(), true},
		{"terminating", base().NodeName("n1").Phase(corev1.PodRunning).Obj(), base().NodeName("n1").Phase(corev1.PodRunning).Terminating(t0).Finalizers("test/hold").Obj(), true},
		{"moved to another group", base().Obj(), member("a", "other").Obj(), true},
		{"joined a group", unlabelled(), base().Obj(), true},
		{"left its group", base().Obj(), unlabelled(), true},
		{"got an IP", base().NodeName("n1").Obj(), withIP, false},
		{"not a member", unlabelled(), func() *corev1.Pod { p := unlabelled(); p.Spec.NodeName = "n1"; return p }(), false},
	}
	p := memberChanged()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
				t.Errorf("Update = %v, want %v", got, tc.want)
			}
		})
	}
	if !p.Create(event.CreateEvent{Object: base().Obj()}) || p.Create(event.CreateEvent{Object: unlabelled()}) {
		t.Error("Create passes non-members or drops members")
	}
	if !p.Delete(event.DeleteEvent{Object: base().Obj()}) || p.Delete(event.DeleteEvent{Object: unlabelled()}) {
		t.Error("Delete passes non-members or drops members")
	}
}
