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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/berth-io/berth/api/v1alpha1"
)

// +kubebuilder:rbac:groups=scheduling.berth.io,resources=podgroups,verbs=get;list;watch;patch;update

// PodGroupProtectionReconciler gives Berth's PodGroups the protection that
// kube-apiserver and kube-controller-manager give scheduling.k8s.io ones:
// it adds v1alpha1.PodGroupProtectionFinalizer to every group it sees, and
// removes it from a group being deleted once none of the group's pods is
// left that has not finished (phase Succeeded or Failed). Until then the
// group, being deleted, still exists, and its members keep the group they
// were scheduled with instead of waiting for one that is gone.
type PodGroupProtectionReconciler struct {
	client client.Client
}

// NewPodGroupProtectionReconciler returns a PodGroupProtectionReconciler
// that reads pods through c, which must index them with podGroupIndex.
func NewPodGroupProtectionReconciler(c client.Client) *PodGroupProtectionReconciler {
	return &PodGroupProtectionReconciler{client: c}
}

// SetupPodGroupProtection registers the PodGroupProtectionReconciler with
// mgr and the pod index it reads; SetupWithManager calls it. It is exported
// for programs that run Berth's scheduler without its other controllers.
func SetupPodGroupProtection(mgr ctrl.Manager, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := indexPodsByGroup(mgr); err != nil {
		return err
	}
	return NewPodGroupProtectionReconciler(mgr.GetClient()).setupWithManager(mgr, o.skipNameValidation)
}

// setupWithManager registers the reconciler; the pod index must exist.
func (r *PodGroupProtectionReconciler) setupWithManager(mgr ctrl.Manager, skipNameValidation bool) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("podgroup-protection").
		For(&v1alpha1.PodGroup{}, builder.WithPredicates(protectionChanged())).
		Watches(&corev1.Pod{}, oldAndNew(groupOfPod), builder.WithPredicates(memberChanged())).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(skipNameValidation)}).
		Complete(r)
}

// protectionChanged passes the PodGroup events after which the finalizer
// may have to be added or removed: a group seen for the first time (on
// start-up, every group), and a group being deleted that still holds it.
// As upstream's admission, it does not add the finalizer back when someone
// removes it from a live group.
func protectionChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return true },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectNew.GetDeletionTimestamp() != nil &&
				controllerutil.ContainsFinalizer(e.ObjectNew, v1alpha1.PodGroupProtectionFinalizer)
		},
	}
}

// Reconcile adds the protection finalizer to a live PodGroup that lacks it
// and removes it from a PodGroup being deleted that no unfinished pod names.
func (r *PodGroupProtectionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("podGroup", klog.KRef(req.Namespace, req.Name))

	var pg v1alpha1.PodGroup
	if err := r.client.Get(ctx, req.NamespacedName, &pg); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting PodGroup %s: %w", req.NamespacedName, err)
	}
	protected := controllerutil.ContainsFinalizer(&pg, v1alpha1.PodGroupProtectionFinalizer)
	switch {
	case pg.DeletionTimestamp == nil && !protected:
		logger.V(4).Info("Adding the protection finalizer to PodGroup")
		return r.patchFinalizer(ctx, &pg, controllerutil.AddFinalizer)
	case pg.DeletionTimestamp == nil, !protected:
		return ctrl.Result{}, nil
	}
	var pods corev1.PodList
	if err := r.client.List(ctx, &pods, client.InNamespace(pg.Namespace), client.MatchingFields{podGroupIndex: pg.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the members of PodGroup %s: %w", req.NamespacedName, err)
	}
	for i := range pods.Items {
		if p := &pods.Items[i]; !finished(p) {
			logger.V(4).Info("Keeping the protection finalizer of PodGroup: a pod still names it", "pod", klog.KObj(p))
			return ctrl.Result{}, nil
		}
	}
	logger.V(3).Info("Removing the protection finalizer of PodGroup: no unfinished pod names it")
	return r.patchFinalizer(ctx, &pg, controllerutil.RemoveFinalizer)
}

// patchFinalizer adds or removes the protection finalizer with pg's
// resourceVersion as a precondition, so that no other finalizer written
// meanwhile is lost; a conflict or a group gone meanwhile asks for another
// look at the group as it now is.
func (r *PodGroupProtectionReconciler) patchFinalizer(ctx context.Context, pg *v1alpha1.PodGroup, change func(client.Object, string) bool) (ctrl.Result, error) {
	patch := client.MergeFromWithOptions(pg.DeepCopy(), client.MergeFromWithOptimisticLock{})
	change(pg, v1alpha1.PodGroupProtectionFinalizer)
	err := r.client.Patch(ctx, pg, patch)
	switch {
	case err == nil, apierrors.IsNotFound(err):
		return ctrl.Result{}, nil
	case apierrors.IsConflict(err):
		return ctrl.Result{RequeueAfter: conflictRetry}, nil
	}
	return ctrl.Result{}, fmt.Errorf("patching the finalizers of PodGroup %s: %w", klog.KObj(pg), err)
}

// finished says whether the pod has ended: it no longer holds its group.
func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}
