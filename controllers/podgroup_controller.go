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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/berth-io/berth/api/v1alpha1"
)

// +kubebuilder:rbac:groups=scheduling.berth.io,resources=podgroups,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.berth.io,resources=podgroups/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch

// podGroupIndex indexes cached pods by the PodGroup they belong to.
const podGroupIndex = "berth.podGroup"

// conflictRetry is how soon a PodGroup whose status patch met a newer
// object is reconciled again; status writes do not trigger a reconcile.
const conflictRetry = 200 * time.Millisecond

// MemberPodSelector selects the pods that belong to some PodGroup, the only
// pods the PodGroup controller reads. A manager's cache restricted to it
// (cache.Options.ByObject) keeps no copy of the cluster's other pods.
func MemberPodSelector() labels.Selector {
	req, err := labels.NewRequirement(v1alpha1.PodGroupLabel, selection.Exists, nil)
	if err != nil {
		// The label key is a valid constant; this cannot happen.
		panic(fmt.Sprintf("selecting pods by %s: %v", v1alpha1.PodGroupLabel, err))
	}
	return labels.NewSelector().Add(*req)
}

// PodGroupReconciler keeps each PodGroup's status (phase, scheduled and
// running counts, conditions) true to its member pods: the pods in its
// namespace whose scheduling.berth.io/pod-group label names it.
type PodGroupReconciler struct {
	client client.Client
	clock  clock.PassiveClock
}

// NewPodGroupReconciler returns a PodGroupReconciler that reads pods through
// c, which must index them with podGroupIndex (setupWithManager does).
func NewPodGroupReconciler(c client.Client, clk clock.PassiveClock) *PodGroupReconciler {
	return &PodGroupReconciler{client: c, clock: clk}
}

// indexPodsByGroup adds podGroupIndex to mgr's pod cache.
func indexPodsByGroup(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, podGroupIndex, podGroupIndexValue); err != nil {
		return fmt.Errorf("indexing pods by PodGroup: %w", err)
	}
	return nil
}

// setupWithManager registers the reconciler; the pod index must exist. It
// runs on the leader only (the controller's default), which is the replica
// that writes status; on election the initial list reconciles every group.
func (r *PodGroupReconciler) setupWithManager(mgr ctrl.Manager, skipNameValidation bool) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("podgroup").
		// The controller's own status writes bump no generation and come back as no event.
		For(&v1alpha1.PodGroup{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Pod{}, oldAndNew(groupOfPod), builder.WithPredicates(memberChanged())).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(skipNameValidation)}).
		Complete(r)
}

// podGroupIndexValue is the index value of a pod: the name of its group.
func podGroupIndexValue(obj client.Object) []string {
	if g := obj.GetLabels()[v1alpha1.PodGroupLabel]; g != "" {
		return []string{g}
	}
	return nil
}

// groupOfPod maps a member pod to its PodGroup.
func groupOfPod(_ context.Context, obj client.Object) []ctrl.Request {
	g := obj.GetLabels()[v1alpha1.PodGroupLabel]
	if g == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: g}}}
}

// memberChanged passes pod events that can change a group's status: a
// member appears or goes, joins or leaves a group, is bound, changes phase
// or starts terminating. Other pod updates (conditions, IPs) pass not.
func memberChanged() predicate.Funcs {
	isMember := func(obj client.Object) bool { return obj.GetLabels()[v1alpha1.PodGroupLabel] != "" }
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return isMember(e.Object) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return isMember(e.Object) },
		GenericFunc: func(e event.GenericEvent) bool { return isMember(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldPod, ok1 := e.ObjectOld.(*corev1.Pod)
			newPod, ok2 := e.ObjectNew.(*corev1.Pod)
			if !ok1 || !ok2 || (!isMember(oldPod) && !isMember(newPod)) {
				return false
			}
			return oldPod.Labels[v1alpha1.PodGroupLabel] != newPod.Labels[v1alpha1.PodGroupLabel] ||
				oldPod.Spec.NodeName != newPod.Spec.NodeName ||
				oldPod.Status.Phase != newPod.Status.Phase ||
				(oldPod.DeletionTimestamp == nil) != (newPod.DeletionTimestamp == nil)
		},
	}
}

// Reconcile recounts one PodGroup's members and patches its status when it changed.
func (r *PodGroupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("podGroup", klog.KRef(req.Namespace, req.Name))
	ctx = log.IntoContext(ctx, logger)

	var pg v1alpha1.PodGroup
	if err := r.client.Get(ctx, req.NamespacedName, &pg); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting PodGroup %s: %w", req.NamespacedName, err)
	}
	if pg.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	var pods corev1.PodList
	if err := r.client.List(ctx, &pods, client.InNamespace(pg.Namespace), client.MatchingFields{podGroupIndex: pg.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the members of PodGroup %s: %w", req.NamespacedName, err)
	}
	st := podGroupStatus(&pg, pods.Items, seconds(r.clock.Now()))
	if equality.Semantic.DeepEqual(pg.Status, st) {
		return ctrl.Result{}, nil
	}
	if st.Phase != pg.Status.Phase {
		logger.V(2).Info("PodGroup changes phase", "from", pg.Status.Phase, "to", st.Phase, "scheduled", st.Scheduled, "running", st.Running)
	}
	patched := pg.DeepCopy()
	patched.Status = st
	requeue, err := patchStatusLocked(ctx, r.client, "PodGroup", &pg, patched)
	if requeue {
		logger.V(4).Info("PodGroup changed while its status was computed; computing it again")
		return ctrl.Result{RequeueAfter: conflictRetry}, nil
	}
	return ctrl.Result{}, err
}
