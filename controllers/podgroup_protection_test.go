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
	"slices"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth-io/berth/api/v1alpha1"
)

// otherFinalizer is somebody else's finalizer, which the reconciler keeps.
const otherFinalizer = "example.com/hold"

func TestPodGroupProtectionReconcile(t *testing.T) {
	const protect = v1alpha1.PodGroupProtectionFinalizer
	tests := []struct {
		name  string
		group *v1alpha1.PodGroup // named "gang"
		pods  []corev1.Pod
		// wantFinalizers are the group's finalizers afterwards; nil with
		// wantGone means the group is gone.
		wantFinalizers []string
		wantGone       bool
	}{{
		name:           "a live group gets the finalizer",
		group:          podGroup("gang", 2).Obj(),
		wantFinalizers: []string{protect},
	}, {
		name:           "a live group keeps the finalizers it has",
		group:          podGroup("gang", 2).Finalizers(otherFinalizer, protect).Obj(),
		wantFinalizers: []string{otherFinalizer, protect},
	}, {
		name:           "a group being deleted keeps it while a member is pending",
		group:          podGroup("gang", 2).Finalizers(protect).Terminating(t0).Obj(),
		pods:           members(member("a", "gang").Phase(corev1.PodSucceeded), member("b", "gang")),
		wantFinalizers: []string{protect},
	}, {
		name:  "a terminating member that is still running holds the group",
		group: podGroup("gang", 2).Finalizers(protect).Terminating(t0).Obj(),
		pods: members(member("a", "gang").NodeName("n1").Phase(corev1.PodRunning).
			Terminating(t0).Finalizers(otherFinalizer)),
		wantFinalizers: []string{protect},
	}, {
		name:     "a group being deleted whose members all finished goes",
		group:    podGroup("gang", 2).Finalizers(protect).Terminating(t0).Obj(),
		pods:     members(member("a", "gang").Phase(corev1.PodSucceeded), member("b", "gang").Phase(corev1.PodFailed)),
		wantGone: true,
	}, {
		name:  "neither another group's pods nor a namesake group's elsewhere hold it",
		group: podGroup("gang", 2).Finalizers(protect).Terminating(t0).Obj(),
		pods:  members(member("a", "other"), member("b", "gang").Namespace("elsewhere")),
		// The fake client removes the object with its last finalizer.
		wantGone: true,
	}, {
		name:           "only the protection finalizer is removed",
		group:          podGroup("gang", 2).Finalizers(otherFinalizer, protect).Terminating(t0).Obj(),
		wantFinalizers: []string{otherFinalizer},
	}, {
		name:           "a group being deleted without the finalizer is not given it",
		group:          podGroup("gang", 2).Finalizers(otherFinalizer).Terminating(t0).Obj(),
		pods:           members(member("a", "gang")),
		wantFinalizers: []string{otherFinalizer},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []client.Object{tt.group}
			for i := range tt.pods {
				objs = append(objs, &tt.pods[i])
			}
			c := newProtectionClient(t, interceptor.Funcs{}, objs...)
			ctx := log.IntoContext(context.Background(), logr.Discard())
			res, err := NewPodGroupProtectionReconciler(c).Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: testNamespace, Name: "gang"}})
			if err != nil || !res.IsZero() {
				t.Fatalf("Reconcile = %+v, %v; want no requeue and no error", res, err)
			}
			var pg v1alpha1.PodGroup
			err = c.Get(ctx, types.NamespacedName{Namespace: testNamespace, Name: "gang"}, &pg)
			if tt.wantGone {
				if !apierrors.IsNotFound(err) {
					t.Fatalf("the group is still there (finalizers %v, error %v); want it gone", pg.Finalizers, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pg.Finalizers, tt.wantFinalizers) {
				t.Errorf("finalizers %v, want %v", pg.Finalizers, tt.wantFinalizers)
			}
		})
	}
}

func TestPodGroupProtectionConflictsAndMissing(t *testing.T) {
	ctx := log.IntoContext(context.Background(), logr.Discard())
	conflict := interceptor.Funcs{Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
		return apierrors.NewConflict(schema.GroupResource{Group: v1alpha1.GroupVersion.Group, Resource: "podgroups"}, "gang", nil)
	}}
	c := newProtectionClient(t, conflict, podGroup("gang", 2).Obj())
	r := NewPodGroupProtectionReconciler(c)
	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: testNamespace, Name: "gang"}})
	if err != nil || res.RequeueAfter != conflictRetry {
		t.Errorf("on a conflict Reconcile = %+v, %v; want a requeue after %s", res, err, conflictRetry)
	}
	res, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: testNamespace, Name: "missing"}})
	if err != nil || !res.IsZero() {
		t.Errorf("for a group that is gone Reconcile = %+v, %v; want nothing", res, err)
	}
}

func TestProtectionChanged(t *testing.T) {
	const protect = v1alpha1.PodGroupProtectionFinalizer
	live := podGroup("gang", 2).Obj()
	tests := []struct {
		name string
		new  *v1alpha1.PodGroup
		want bool
	}{
		{"deletion starts", podGroup("gang", 2).Finalizers(protect).Terminating(t0).Obj(), true},
		{"status written", podGroup("gang", 2).Finalizers(protect).Status(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupScheduled}).Obj(), false},
		{"finalizer removed from a live group", podGroup("gang", 2).Obj(), false},
		{"being deleted without the finalizer", podGroup("gang", 2).Finalizers(otherFinalizer).Terminating(t0).Obj(), false},
	}
	p := protectionChanged()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Update(event.UpdateEvent{ObjectOld: live, ObjectNew: tt.new}); got != tt.want {
				t.Errorf("Update = %t, want %t", got, tt.want)
			}
		})
	}
	if !p.Create(event.CreateEvent{Object: live}) || p.Delete(event.DeleteEvent{Object: live}) {
		t.Error("every group seen must be looked at, and a group gone needs nothing")
	}
}

// newProtectionClient is a fake client holding objs, with the pod index
// the reconciler reads and funcs around its calls.
func newProtectionClient(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	scheme := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fakeclient.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&v1alpha1.PodGroup{}, &corev1.Pod{}).
		WithIndex(&corev1.Pod{}, podGroupIndex, podGroupIndexValue).
		WithInterceptorFuncs(funcs).Build()
}
