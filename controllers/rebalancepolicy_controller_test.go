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
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeRunner is a PolicyRunner that records what the reconciler hands it.
type fakeRunner struct {
	invalid error
	last    *rebalance.RunResult
	next    time.Time
	set     []string
	removed []string
	// profile is the nodeFit profile of the last spec set.
	profile string
}

func (f *fakeRunner) SetPolicy(name string, _ int64, spec *v1alpha1.RebalancePolicySpec) error {
	if f.invalid != nil {
		return f.invalid
	}
	f.set = append(f.set, name)
	f.profile = ""
	if spec.ProfileRef != nil {
		f.profile = spec.ProfileRef.Name
	}
	return nil
}

func (f *fakeRunner) RemovePolicy(name string) { f.removed = append(f.removed, name) }

func (f *fakeRunner) LastRun(string) (rebalance.RunResult, bool) {
	if f.last == nil {
		return rebalance.RunResult{}, false
	}
	return *f.last, true
}

func (f *fakeRunner) NextRun(string) (time.Time, bool) { return f.next, !f.next.IsZero() }

// makePolicy is a dry-run RemoveDuplicates policy at generation 2.
func makePolicy(name string, nodeFit bool) *v1alpha1.RebalancePolicy {
	return &v1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 2},
		Spec: v1alpha1.RebalancePolicySpec{
			Schedule:   v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Minute}},
			DryRun:     ptr.To(true),
			Evictor:    &v1alpha1.EvictorOptions{NodeFit: nodeFit},
			Strategies: []v1alpha1.Strategy{{Name: "RemoveDuplicates"}},
		},
	}
}

// withProfileRef sets the policy's profileRef.
func withProfileRef(p *v1alpha1.RebalancePolicy, name string) *v1alpha1.RebalancePolicy {
	p.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: name}
	return p
}

func TestRebalancePolicyReconcile(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		policy   *v1alpha1.RebalancePolicy
		opts     []Option
		profiles []client.Object
		runner   *fakeRunner
		// wantProfile is status.profile and the profile the runner reads.
		wantProfile  string
		wantResult   v1alpha1.RunOutcome
		wantReady    metav1.ConditionStatus
		wantReason   string
		wantMessage  string
		wantSet      bool
		wantRemoved  bool
		wantEvicted  int32
		wantPlan     int
		wantEventHas string
	}{
		{
			name: "a valid policy runs on its schedule", policy: makePolicy("p", false),
			runner:    &fakeRunner{next: start.Add(time.Minute)},
			wantReady: metav1.ConditionTrue, wantReason: ReasonScheduled, wantMessage: "next run at 2026-11-22T10:01:00Z", wantSet: true,
		},
		{
			name: "nodeFit without its profile stalls and stops the policy", policy: makePolicy("p", true),
			runner:    &fakeRunner{},
			wantReady: metav1.ConditionFalse, wantReason: ReasonProfileNotFound, wantMessage: "nodeFit needs SchedulingProfile default-scheduler",
			wantProfile: "default-scheduler",
			wantRemoved: true, wantEventHas: "InvalidPolicy",
		},
		{
			name: "nodeFit with its profile runs", policy: makePolicy("p", true),
			profiles:  []client.Object{st.Profile("default-scheduler").Created(t0).Obj()},
			runner:    &fakeRunner{},
			wantReady: metav1.ConditionTrue, wantReason: ReasonScheduled, wantSet: true, wantProfile: "default-scheduler",
		},
		{
			name: "nodeFit without profileRef reads the install's default profile", policy: makePolicy("p", true),
			opts:      []Option{WithDefaultProfile("berth")},
			profiles:  []client.Object{st.Profile("berth").Created(t0).Obj()},
			runner:    &fakeRunner{},
			wantReady: metav1.ConditionTrue, wantReason: ReasonScheduled, wantSet: true, wantProfile: "berth",
		},
		{
			name: "nodeFit without the install's default profile stalls, naming it", policy: makePolicy("p", true),
			opts:      []Option{WithDefaultProfile("berth")},
			profiles:  []client.Object{st.Profile("default-scheduler").Created(t0).Obj()},
			runner:    &fakeRunner{},
			wantReady: metav1.ConditionFalse, wantReason: ReasonProfileNotFound, wantProfile: "berth",
			wantMessage: "nodeFit needs SchedulingProfile berth, which does not exist (the install's default profile; set spec.profileRef to use another)",
			wantRemoved: true, wantEventHas: "InvalidPolicy",
		},
		{
			name: "profileRef wins over the install's default profile", policy: withProfileRef(makePolicy("p", true), "bin-packing"),
			opts:      []Option{WithDefaultProfile("berth")},
			profiles:  []client.Object{st.Profile("berth").Created(t0).Obj(), st.Profile("bin-packing").Created(t0).Obj()},
			runner:    &fakeRunner{},
			wantReady: metav1.ConditionTrue, wantReason: ReasonScheduled, wantSet: true, wantProfile: "bin-packing",
		},
		{
			name: "args the rebalancer refuses stall the policy", policy: makePolicy("p", false),
			runner:    &fakeRunner{invalid: errors.New("invalid args of strategy PodLifeTime: maxPodLifeTimeSeconds: Required value")},
			wantReady: metav1.ConditionFalse, wantReason: v1alpha1.ReasonInvalid, wantMessage: "generation 2 is invalid: invalid args of strategy PodLifeTime: maxPodLifeTimeSeconds: Required value",
			wantEventHas: "InvalidPolicy",
		},
		{
			name: "the last run and its plan reach the status", policy: makePolicy("p", false),
			runner: &fakeRunner{last: &rebalance.RunResult{
				Generation: 2, Start: start, End: start.Add(time.Second), Planned: 2, Evicted: 1, Blocked: 1,
				Plan: []v1alpha1.PlannedEviction{
					{Namespace: "ns", Pod: "a", Node: "n", Strategy: "RemoveDuplicates", Result: v1alpha1.EvictionEvicted},
					{Namespace: "ns", Pod: "b", Node: "n", Strategy: "RemoveDuplicates", Result: v1alpha1.EvictionBlocked},
				},
			}},
			wantReady: metav1.ConditionTrue, wantReason: ReasonScheduled, wantSet: true, wantResult: v1alpha1.RunIncomplete,
			wantEvicted: 1, wantPlan: 2, wantEventHas: "1 blocked by PodDisruptionBudgets",
		},
		{
			name: "a failed run of this generation is not Ready", policy: makePolicy("p", false),
			runner: &fakeRunner{last: &rebalance.RunResult{
				Generation: 2, Start: start, End: start, Err: errors.New("listing pods: forbidden"),
			}},
			wantReady: metav1.ConditionFalse, wantReason: ReasonRunFailed, wantMessage: "the last run failed: listing pods: forbidden",
			wantSet: true, wantEventHas: "run failed", wantResult: v1alpha1.RunFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := log.IntoContext(context.Background(), logr.Discard())
			scheme := k8sruntime.NewScheme()
			if err := v1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			c := fakeclient.NewClientBuilder().WithScheme(scheme).
				WithObjects(append(tt.profiles, tt.policy)...).
				WithStatusSubresource(&v1alpha1.RebalancePolicy{}).Build()
			rec := events.NewFakeRecorder(10)
			r := NewRebalancePolicyReconciler(c, tt.runner, rec, clocktesting.NewFakePassiveClock(start), tt.opts...)
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: tt.policy.Name}}); err != nil {
				t.Fatalf("Reconcile: %v", err)
			}

			var got v1alpha1.RebalancePolicy
			if err := c.Get(ctx, client.ObjectKey{Name: tt.policy.Name}, &got); err != nil {
				t.Fatal(err)
			}
			ready := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady)
			if ready == nil || ready.Status != tt.wantReady || ready.Reason != tt.wantReason {
				t.Fatalf("Ready = %+v, want %s/%s", ready, tt.wantReady, tt.wantReason)
			}
			if !strings.Contains(ready.Message, tt.wantMessage) {
				t.Errorf("Ready message %q lacks %q", ready.Message, tt.wantMessage)
			}
			stalled := meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionStalled)
			if stalled != (tt.wantReason == ReasonProfileNotFound || tt.wantReason == v1alpha1.ReasonInvalid) {
				t.Errorf("Stalled = %v with reason %s", stalled, tt.wantReason)
			}
			if got.Status.Profile != tt.wantProfile {
				t.Errorf("status.profile = %q, want %q", got.Status.Profile, tt.wantProfile)
			}
			if tt.wantSet && tt.runner.profile != tt.wantProfile {
				t.Errorf("the runner reads profile %q for nodeFit, want %q", tt.runner.profile, tt.wantProfile)
			}
			if tt.wantResult != "" && (got.Status.LastRun == nil || got.Status.LastRun.Result != tt.wantResult) {
				t.Errorf("lastRun = %+v, want result %s", got.Status.LastRun, tt.wantResult)
			}
			if got.Status.ObservedGeneration != 2 {
				t.Errorf("observedGeneration = %d, want 2", got.Status.ObservedGeneration)
			}
			if (len(tt.runner.set) > 0) != tt.wantSet || (len(tt.runner.removed) > 0) != tt.wantRemoved {
				t.Errorf("runner set %v removed %v; want set %v removed %v", tt.runner.set, tt.runner.removed, tt.wantSet, tt.wantRemoved)
			}
			if tt.wantPlan > 0 {
				if got.Status.LastRun == nil || got.Status.LastRun.Evicted != tt.wantEvicted || len(got.Status.Plan) != tt.wantPlan {
					t.Errorf("lastRun %+v plan %d; want evicted %d plan %d", got.Status.LastRun, len(got.Status.Plan), tt.wantEvicted, tt.wantPlan)
				}
			}
			var recorded []string
			for len(rec.Events) > 0 {
				recorded = append(recorded, <-rec.Events)
			}
			if tt.wantEventHas == "" && len(recorded) > 0 {
				t.Errorf("events %q, want none", recorded)
			}
			if tt.wantEventHas != "" && !strings.Contains(strings.Join(recorded, "\n"), tt.wantEventHas) {
				t.Errorf("events %q lack %q", recorded, tt.wantEventHas)
			}

			// A second pass with nothing new writes nothing and records nothing.
			before := got.ResourceVersion
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: tt.policy.Name}}); err != nil {
				t.Fatal(err)
			}
			if err := c.Get(ctx, client.ObjectKey{Name: tt.policy.Name}, &got); err != nil {
				t.Fatal(err)
			}
			if got.ResourceVersion != before {
				t.Errorf("an unchanged status was written again")
			}
			if len(rec.Events) > 0 {
				t.Errorf("an unchanged status recorded %q", <-rec.Events)
			}
		})
	}
}

func TestRebalancePolicyDeletedStopsRunning(t *testing.T) {
	ctx := log.IntoContext(context.Background(), logr.Discard())
	scheme := k8sruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fakeclient.NewClientBuilder().WithScheme(scheme).Build()
	runner := &fakeRunner{}
	r := NewRebalancePolicyReconciler(c, runner, events.NewFakeRecorder(1), clocktesting.NewFakePassiveClock(time.Now()))
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "gone"}}); err != nil {
		t.Fatal(err)
	}
	if len(runner.removed) != 1 || runner.removed[0] != "gone" {
		t.Errorf("removed %v, want [gone]", runner.removed)
	}
}
