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
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/message"
	"github.com/berth-io/berth/scheduler/rebalance"
)

// +kubebuilder:rbac:groups=scheduling.berth.io,resources=rebalancepolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.berth.io,resources=rebalancepolicies/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=pods;nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch

// Condition reasons and event reasons of the RebalancePolicy controller.
const (
	// ReasonScheduled means the policy is valid and runs on its schedule.
	ReasonScheduled = "Scheduled"
	// ReasonProfileNotFound means a SchedulingProfile the object names (a
	// policy's nodeFit profile, a PluginWeight's profileRef) does not exist.
	ReasonProfileNotFound = "ProfileNotFound"
	// ReasonRunFailed means the last run could not complete.
	ReasonRunFailed = "RunFailed"
	// EventRebalanceRun is recorded on a policy after each run.
	EventRebalanceRun = "RebalanceRun"
	// EventInvalidPolicy is a Warning event: the policy does not validate.
	EventInvalidPolicy = "InvalidPolicy"
	// RebalanceEventRecorderName is the reporting controller of the rebalancer's events.
	RebalanceEventRecorderName = "berth-rebalancer"
)

// PolicyRunner runs RebalancePolicies; *rebalance.Rebalancer is one.
type PolicyRunner interface {
	// SetPolicy validates spec and runs it from the policy's next run on.
	SetPolicy(name string, generation int64, spec *v1alpha1.RebalancePolicySpec) error
	// RemovePolicy stops running the policy.
	RemovePolicy(name string)
	// LastRun returns the policy's most recent run.
	LastRun(name string) (rebalance.RunResult, bool)
	// NextRun returns when the policy runs next.
	NextRun(name string) (time.Time, bool)
}

var _ PolicyRunner = (*rebalance.Rebalancer)(nil)

// RebalancePolicyReconciler validates RebalancePolicies, hands them to the
// rebalancer and writes each policy's last run, plan and conditions.
type RebalancePolicyReconciler struct {
	client   client.Client
	runner   PolicyRunner
	recorder events.EventRecorder
	clock    clock.PassiveClock
	// defaultProfile is the nodeFit profile of a policy without profileRef.
	defaultProfile string
}

// NewRebalancePolicyReconciler returns a reconciler that hands policies to
// runner; a policy without profileRef reads rebalance.DefaultProfileName for
// nodeFit unless WithDefaultProfile says otherwise.
func NewRebalancePolicyReconciler(c client.Client, runner PolicyRunner, recorder events.EventRecorder, clk clock.PassiveClock, opts ...Option) *RebalancePolicyReconciler {
	o := options{defaultProfile: rebalance.DefaultProfileName}
	for _, opt := range opts {
		opt(&o)
	}
	return &RebalancePolicyReconciler{client: c, runner: runner, recorder: recorder, clock: clk, defaultProfile: o.defaultProfile}
}

// SetupRebalanceWithManager adds the rebalancer rb to mgr (it runs on the
// leader only) and registers the RebalancePolicy reconciler, which hands rb
// the policies.
func SetupRebalanceWithManager(mgr ctrl.Manager, rb *rebalance.Rebalancer, opts ...Option) error {
	if rb == nil {
		return errors.New("SetupRebalanceWithManager needs a Rebalancer (internal/manager.Setup builds the one Berth runs)")
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	runs := make(chan event.GenericEvent)
	rb.OnRun(func(ctx context.Context, name string) {
		select {
		case runs <- event.GenericEvent{Object: &v1alpha1.RebalancePolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}}:
		case <-ctx.Done():
		}
	})
	if err := mgr.Add(rb); err != nil {
		return fmt.Errorf("adding the rebalancer: %w", err)
	}
	r := NewRebalancePolicyReconciler(mgr.GetClient(), rb, mgr.GetEventRecorder(RebalanceEventRecorderName), clock.RealClock{}, opts...)
	err := ctrl.NewControllerManagedBy(mgr).
		Named("rebalancepolicy").
		For(&v1alpha1.RebalancePolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.SchedulingProfile{}, handler.EnqueueRequestsFromMapFunc(r.policiesOf)).
		WatchesRawSource(source.Channel(runs, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(o.skipNameValidation)}).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the RebalancePolicy controller: %w", err)
	}
	return nil
}

// policiesOf maps a SchedulingProfile to the policies whose nodeFit reads it.
func (r *RebalancePolicyReconciler) policiesOf(ctx context.Context, obj client.Object) []ctrl.Request {
	var policies v1alpha1.RebalancePolicyList
	if err := r.client.List(ctx, &policies); err != nil {
		log.FromContext(ctx).Error(err, "Listing RebalancePolicies")
		return nil
	}
	var reqs []ctrl.Request
	for i := range policies.Items {
		if p := &policies.Items[i]; r.profileOf(p) == obj.GetName() {
			reqs = append(reqs, requestFor(p.Name))
		}
	}
	return reqs
}

// profileOf names the SchedulingProfile a policy's nodeFit reads: its
// profileRef, or the install's default profile.
func (r *RebalancePolicyReconciler) profileOf(p *v1alpha1.RebalancePolicy) string {
	if p.Spec.ProfileRef != nil && p.Spec.ProfileRef.Name != "" {
		return p.Spec.ProfileRef.Name
	}
	return r.defaultProfile
}

// nodeFit reports whether the policy asks for nodeFit.
func nodeFit(p *v1alpha1.RebalancePolicy) bool {
	return p.Spec.Evictor != nil && p.Spec.Evictor.NodeFit
}

// Reconcile hands one policy to the rebalancer and writes its status.
func (r *RebalancePolicyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("rebalancePolicy", klog.KRef("", req.Name))
	ctx = log.IntoContext(ctx, logger)
	var p v1alpha1.RebalancePolicy
	if err := r.client.Get(ctx, req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			r.runner.RemovePolicy(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting RebalancePolicy %s: %w", req.Name, err)
	}
	if p.DeletionTimestamp != nil {
		r.runner.RemovePolicy(p.Name)
		return ctrl.Result{}, nil
	}
	reason, problem, err := r.admit(ctx, &p)
	if err != nil {
		return ctrl.Result{}, err
	}
	if problem != "" {
		logger.Info("RebalancePolicy does not run", "reason", reason, "problem", problem)
		if p.Status.ObservedGeneration != p.Generation || !policyCondition(&p, v1alpha1.ConditionStalled, reason) {
			r.recorder.Eventf(&p, nil, corev1.EventTypeWarning, EventInvalidPolicy, "Validate", "%s", message.Truncate(problem))
		}
	}
	return ctrl.Result{}, r.writeStatus(ctx, &p, reason, problem)
}

// admit validates the policy and hands it to the runner, or stops it. It
// returns the Stalled reason and message when the policy cannot run.
func (r *RebalancePolicyReconciler) admit(ctx context.Context, p *v1alpha1.RebalancePolicy) (reason, problem string, err error) {
	spec := &p.Spec
	if nodeFit(p) {
		name := r.profileOf(p)
		var profile v1alpha1.SchedulingProfile
		switch err := r.client.Get(ctx, types.NamespacedName{Name: name}, &profile); {
		case apierrors.IsNotFound(err):
			r.runner.RemovePolicy(p.Name)
			return ReasonProfileNotFound, fmt.Sprintf("nodeFit needs SchedulingProfile %s, which does not exist%s", name, r.profileHint(p)), nil
		case err != nil:
			return "", "", fmt.Errorf("getting SchedulingProfile %s: %w", name, err)
		}
		// The runner reads the profile the policy resolved to, whatever its default.
		spec = spec.DeepCopy()
		spec.ProfileRef = &v1alpha1.ProfileReference{Name: name}
	}
	if err := r.runner.SetPolicy(p.Name, p.Generation, spec); err != nil {
		return v1alpha1.ReasonInvalid, fmt.Sprintf("generation %d is invalid: %v", p.Generation, err), nil
	}
	return "", "", nil
}

// profileHint says, for a policy without profileRef, where its nodeFit
// profile's name came from.
func (r *RebalancePolicyReconciler) profileHint(p *v1alpha1.RebalancePolicy) string {
	if p.Spec.ProfileRef != nil && p.Spec.ProfileRef.Name != "" {
		return ""
	}
	return " (the install's default profile; set spec.profileRef to use another)"
}

// writeStatus patches the policy's status when it changed, and records an
// event for a run the status did not show yet.
func (r *RebalancePolicyReconciler) writeStatus(ctx context.Context, p *v1alpha1.RebalancePolicy, reason, problem string) error {
	now := metav1.NewTime(r.clock.Now())
	st := v1alpha1.RebalancePolicyStatus{
		ObservedGeneration: p.Generation,
		LastRun:            p.Status.LastRun,
		Plan:               p.Status.Plan,
		Conditions:         slices.Clone(p.Status.Conditions),
	}
	if nodeFit(p) {
		st.Profile = r.profileOf(p)
	}
	last, ran := r.runner.LastRun(p.Name)
	if ran {
		st.LastRun, st.Plan = runStatus(last), last.Plan
		if len(st.Plan) > rebalance.MaxPlanEntries {
			st.Plan = st.Plan[:rebalance.MaxPlanEntries]
		}
		// The rebalancer records a run's start before it evicts; a status
		// without the run's completion has not told of it yet.
		if recorded := p.Status.LastRun; recorded == nil || recorded.CompletionTime == nil || !recorded.StartTime.Equal(&st.LastRun.StartTime) {
			r.recordRun(p, last)
		}
	}
	if next, ok := r.runner.NextRun(p.Name); ok && problem == "" {
		st.NextRunTime = ptr.To(seconds(next))
	}

	ready, stalled := metav1.ConditionTrue, metav1.ConditionFalse
	msg := "the policy runs on its schedule"
	switch {
	case problem != "":
		ready, stalled, msg = metav1.ConditionFalse, metav1.ConditionTrue, problem
	case ran && last.Err != nil && last.Generation == p.Generation:
		ready, reason, msg = metav1.ConditionFalse, ReasonRunFailed, "the last run failed: "+last.Err.Error()
	default:
		reason = ReasonScheduled
		if st.NextRunTime != nil {
			msg = "next run at " + st.NextRunTime.UTC().Format(time.RFC3339)
		}
	}
	msg = message.Truncate(msg)
	for typ, status := range map[string]metav1.ConditionStatus{
		v1alpha1.ConditionReady: ready, v1alpha1.ConditionStalled: stalled, v1alpha1.ConditionReconciling: metav1.ConditionFalse,
	} {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: p.Generation, LastTransitionTime: now,
		})
	}
	if equality.Semantic.DeepEqual(p.Status, st) {
		return nil
	}
	patched := p.DeepCopy()
	patched.Status = st
	base := p
	if ran {
		// The run replaces lastRun and plan whole: the rebalancer wrote the
		// run's start behind the cache, so a patch of only what differs from
		// the cached status could leave fields of that start in place.
		base = p.DeepCopy()
		base.Status.LastRun, base.Status.Plan = nil, nil
	}
	return patchStatus(ctx, r.client, "RebalancePolicy", base, patched)
}

// recordRun records an event on the policy summarizing a run.
func (r *RebalancePolicyReconciler) recordRun(p *v1alpha1.RebalancePolicy, run rebalance.RunResult) {
	switch {
	case run.Err != nil:
		r.recorder.Eventf(p, nil, corev1.EventTypeWarning, EventRebalanceRun, "Run", "%s", message.Truncate("run failed: "+run.Err.Error()))
	case run.DryRun:
		r.recorder.Eventf(p, nil, corev1.EventTypeNormal, EventRebalanceRun, "Run", "dry run planned %d evictions", run.Planned)
	case run.Blocked > 0 || run.Failed > 0:
		r.recorder.Eventf(p, nil, corev1.EventTypeWarning, EventRebalanceRun, "Run",
			"evicted %d pods; %d blocked by PodDisruptionBudgets, %d failed", run.Evicted, run.Blocked, run.Failed)
	default:
		r.recorder.Eventf(p, nil, corev1.EventTypeNormal, EventRebalanceRun, "Run", "evicted %d pods", run.Evicted)
	}
}

// runStatus is the status summary of a run.
func runStatus(run rebalance.RunResult) *v1alpha1.RebalanceRun {
	return &v1alpha1.RebalanceRun{
		Result:    runOutcome(run),
		StartTime: seconds(run.Start), CompletionTime: ptr.To(seconds(run.End)),
		DryRun: run.DryRun, Planned: run.Planned, Evicted: run.Evicted, Blocked: run.Blocked, Failed: run.Failed,
	}
}

// runOutcome is how a completed run ended.
func runOutcome(run rebalance.RunResult) v1alpha1.RunOutcome {
	switch {
	case run.Err != nil:
		return v1alpha1.RunFailed
	case run.Blocked > 0 || run.Failed > 0:
		return v1alpha1.RunIncomplete
	default:
		return v1alpha1.RunSucceeded
	}
}

// policyCondition reports whether the policy's condition is True with reason.
func policyCondition(p *v1alpha1.RebalancePolicy, typ, reason string) bool {
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason == reason
}

// seconds is t as the API stores it, so that a status read back compares equal.
func seconds(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }
