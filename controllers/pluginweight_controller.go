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
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/berth-io/berth/api/v1alpha1"
)

// PluginWeightReconciler reports, in each PluginWeight's status, the
// profiles it is live in and, when it is not live everywhere it points, why.
// It reads what is live from the profiles' status, which the
// ProfileReconciler writes.
type PluginWeightReconciler struct {
	client client.Client
	clock  clock.PassiveClock
}

// NewPluginWeightReconciler returns a PluginWeightReconciler.
func NewPluginWeightReconciler(c client.Client, clk clock.PassiveClock) *PluginWeightReconciler {
	return &PluginWeightReconciler{client: c, clock: clk}
}

func (r *PluginWeightReconciler) setupWithManager(mgr ctrl.Manager, skipNameValidation bool) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("pluginweight").
		For(&v1alpha1.PluginWeight{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// Every change of a profile, its status included, may change where a weight is live.
		Watches(&v1alpha1.SchedulingProfile{}, oldAndNew(r.weightsOf)).
		// An older weight's arrival or departure decides a newer one's conflicts.
		Watches(&v1alpha1.PluginWeight{}, oldAndNew(r.rivalsOf), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(skipNameValidation)}).
		Complete(r)
}

// Reconcile brings one PluginWeight's status up to date.
func (r *PluginWeightReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("pluginWeight", klog.KRef("", req.Name))
	ctx = log.IntoContext(ctx, logger)

	var pw v1alpha1.PluginWeight
	if err := r.client.Get(ctx, req.NamespacedName, &pw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var profiles v1alpha1.SchedulingProfileList
	if err := r.client.List(ctx, &profiles); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing SchedulingProfiles: %w", err)
	}
	var weights v1alpha1.PluginWeightList
	if err := r.client.List(ctx, &weights); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing PluginWeights: %w", err)
	}
	targets, selectorErr := PlanWeights(profiles.Items, weights.Items).Targets(pw.Name)
	byName := make(map[string]*v1alpha1.SchedulingProfile, len(profiles.Items))
	for i := range profiles.Items {
		byName[profiles.Items[i].Name] = &profiles.Items[i]
	}

	st := pluginWeightStatus(&pw, targets, selectorErr, byName, metav1.NewTime(r.clock.Now()))
	if equality.Semantic.DeepEqual(pw.Status, st) {
		return ctrl.Result{}, nil
	}
	patched := pw.DeepCopy()
	patched.Status = st
	return ctrl.Result{}, patchStatus(ctx, r.client, "PluginWeight", &pw, patched)
}

// weightsOf maps a profile to the PluginWeights that select it or are live in it.
func (r *PluginWeightReconciler) weightsOf(ctx context.Context, obj client.Object) []ctrl.Request {
	p, ok := obj.(*v1alpha1.SchedulingProfile)
	if !ok {
		return nil
	}
	var weights v1alpha1.PluginWeightList
	if err := r.client.List(ctx, &weights); err != nil {
		log.FromContext(ctx).Error(err, "Listing PluginWeights")
		return nil
	}
	var reqs []ctrl.Request
	for i := range weights.Items {
		if pw := &weights.Items[i]; selects(pw, p) || slices.Contains(pw.Status.AppliedTo, p.Name) {
			reqs = append(reqs, requestFor(pw.Name))
		}
	}
	return reqs
}

// rivalsOf maps a PluginWeight to the other PluginWeights on the same plugin.
func (r *PluginWeightReconciler) rivalsOf(ctx context.Context, obj client.Object) []ctrl.Request {
	pw, ok := obj.(*v1alpha1.PluginWeight)
	if !ok {
		return nil
	}
	var weights v1alpha1.PluginWeightList
	if err := r.client.List(ctx, &weights); err != nil {
		log.FromContext(ctx).Error(err, "Listing PluginWeights")
		return nil
	}
	var reqs []ctrl.Request
	for i := range weights.Items {
		if other := &weights.Items[i]; other.Name != pw.Name && other.Spec.Plugin == pw.Spec.Plugin {
			reqs = append(reqs, requestFor(other.Name))
		}
	}
	return reqs
}
