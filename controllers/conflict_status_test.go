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
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSchedulerConflictCondition(t *testing.T) {
	now := metav1.NewTime(t0.Add(time.Hour))
	live := &liveProfile{schedulerName: "sched", generation: 1}
	seen := &scheduler.ForeignBindings{Count: 2, Scheduler: "default-scheduler", Pod: "web/api-0",
		First: t0.Add(50 * time.Minute), Last: t0.Add(55 * time.Minute)}
	conflict := metav1.Condition{Type: v1alpha1.ConditionSchedulerConflict, Status: metav1.ConditionTrue,
		Reason: v1alpha1.ReasonPodsBoundByAnotherScheduler, LastTransitionTime: metav1.NewTime(t0)}
	tests := []struct {
		name string
		// before are the profile's conditions before the reconcile.
		before []metav1.Condition
		out    profileOutcome
		// want is the SchedulerConflict condition, nil for none.
		want *metav1.Condition
	}{
		{name: "no other scheduler: no condition", out: profileOutcome{schedulerName: "sched", live: live}},
		{name: "another scheduler bound pods lately",
			out: profileOutcome{schedulerName: "sched", live: live, foreign: seen, foreignRecent: true},
			want: &metav1.Condition{Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonPodsBoundByAnotherScheduler, LastTransitionTime: now,
				Message: "another scheduler binds pods of schedulerName sched: 2 since 2030-01-01T00:50:00Z, the latest web/api-0 by default-scheduler at 2030-01-01T00:55:00Z; " +
					"stop the other scheduler serving sched or give this profile another schedulerName (see Berth's docs/coexistence.md)"}},
		{name: "still True: the transition time stays", before: []metav1.Condition{conflict},
			out:  profileOutcome{schedulerName: "sched", live: live, foreign: seen, foreignRecent: true},
			want: &metav1.Condition{Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonPodsBoundByAnotherScheduler, LastTransitionTime: conflict.LastTransitionTime}},
		{name: "quiet period over", before: []metav1.Condition{conflict},
			out: profileOutcome{schedulerName: "sched", live: live, foreign: seen},
			want: &metav1.Condition{Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonNoRecentForeignBindings, LastTransitionTime: now,
				Message: "no pod of schedulerName sched bound by another scheduler since 2030-01-01T00:55:00Z (2 before, the latest web/api-0 by default-scheduler)"}},
		{name: "a new leader that saw none", before: []metav1.Condition{conflict},
			out: profileOutcome{schedulerName: "sched", live: live},
			want: &metav1.Condition{Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonNoRecentForeignBindings, LastTransitionTime: now,
				Message: "no pod of schedulerName sched bound by another scheduler since the current leader started"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := st.Profile("p").Created(t0).Generation(1).Obj()
			p.Status.Conditions = tt.before
			status := profileStatus(p, tt.out, now)
			got := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionSchedulerConflict)
			switch {
			case tt.want == nil && got != nil:
				t.Fatalf("SchedulerConflict = %+v, want none", got)
			case tt.want == nil:
			case got == nil:
				t.Fatal("no SchedulerConflict condition")
			case got.Status != tt.want.Status || got.Reason != tt.want.Reason || !got.LastTransitionTime.Equal(&tt.want.LastTransitionTime) ||
				tt.want.Message != "" && got.Message != tt.want.Message:
				t.Errorf("SchedulerConflict = %s/%s at %v %q\nwant %s/%s at %v %q", got.Status, got.Reason, got.LastTransitionTime, got.Message,
					tt.want.Status, tt.want.Reason, tt.want.LastTransitionTime, tt.want.Message)
			}

			// The condition is informational: the live profile stays Current.
			p.Status = status
			obj, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := kstatus.Compute(&unstructured.Unstructured{Object: obj})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != kstatus.CurrentStatus {
				t.Errorf("kstatus = %s (%s), want Current", res.Status, res.Message)
			}
		})
	}
}

func TestForeignBindingsReported(t *testing.T) {
	r := newRig(t, st.Profile("p").SchedulerName("sched").Obj())
	r.reconcileProfile("p")
	r.drainEvents()

	r.host.foreign = map[string]scheduler.ForeignBindings{"sched": {Count: 1, Scheduler: "default-scheduler", Pod: "web/a", First: t0, Last: t0}}
	r.reconcileProfile("p")
	expectCondition(t, r.profile("p"), v1alpha1.ConditionSchedulerConflict, metav1.ConditionTrue, v1alpha1.ReasonPodsBoundByAnotherScheduler, "web/a by default-scheduler")
	expectCondition(t, r.profile("p"), v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive, "")
	want := []string{"Warning PodsBoundByAnotherScheduler another scheduler bound 1 more pod(s) of schedulerName sched, the latest web/a by default-scheduler: two schedulers serve this name"}
	if got := r.drainEvents(); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}

	r.reconcileProfile("p")
	if got := r.drainEvents(); len(got) != 0 {
		t.Errorf("a reconcile with nothing new recorded %q", got)
	}

	r.host.foreign["sched"] = scheduler.ForeignBindings{Count: 3, Scheduler: "default-scheduler", Pod: "web/c", First: t0, Last: t0}
	r.reconcileProfile("p")
	if got := r.drainEvents(); len(got) != 1 || !strings.Contains(got[0], "bound 2 more pod(s)") {
		t.Errorf("events = %q, want one for 2 more pods", got)
	}

	r.clock.SetTime(t0.Add(DefaultForeignBindingQuietPeriod + time.Second))
	r.reconcileProfile("p")
	expectCondition(t, r.profile("p"), v1alpha1.ConditionSchedulerConflict, metav1.ConditionFalse, v1alpha1.ReasonNoRecentForeignBindings, "3 before")
}
