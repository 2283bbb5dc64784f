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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPodGroupStatus(t *testing.T) {
	m := func(i int) *st.PodBuilder { return member("p"+string(rune('0'+i)), "gang") }
	tests := []struct {
		name      string
		minCount  int32
		pods      []corev1.Pod
		phase     v1alpha1.PodGroupPhase
		scheduled int32
		running   int32
		// ready is the Ready condition's status; reconciling and stalled follow from the phase.
		ready   metav1.ConditionStatus
		reason  string
		message string
	}{
		{"no members", 3, nil, v1alpha1.PodGroupPending, 0, 0, metav1.ConditionFalse, ReasonAwaitingMembers, "0 of minCount 3 members exist"},
		{"two of three", 3, members(m(0), m(1)), v1alpha1.PodGroupPending, 0, 0, metav1.ConditionFalse, ReasonAwaitingMembers, "2 of minCount 3"},
		{"two of three, both bound", 3, members(m(0).NodeName("n1"), m(1).NodeName("n1")), v1alpha1.PodGroupPending, 2, 0, metav1.ConditionFalse, ReasonAwaitingMembers, "2 of minCount 3"},
		{"three, none bound", 3, members(m(0), m(1), m(2)), v1alpha1.PodGroupScheduling, 0, 0, metav1.ConditionFalse, ReasonGangScheduling, "0 of minCount 3 members are bound"},
		{"three, two bound", 3, members(m(0).NodeName("n1"), m(1).NodeName("n2"), m(2)), v1alpha1.PodGroupScheduling, 2, 0, metav1.ConditionFalse, ReasonGangScheduling, "2 of minCount 3"},
		{"three bound", 3, members(m(0).NodeName("n1"), m(1).NodeName("n2"), m(2).NodeName("n2")), v1alpha1.PodGroupScheduled, 3, 0, metav1.ConditionTrue, ReasonGangScheduled, "3 members are bound"},
		{"four, three bound", 3, members(m(0).NodeName("n1"), m(1).NodeName("n2"), m(2).NodeName("n2"), m(3)), v1alpha1.PodGroupScheduled, 3, 0, metav1.ConditionTrue, ReasonGangScheduled, "3 members are bound"},
		{"three bound, two running", 3, members(m(0).NodeName("n1").Phase(corev1.PodRunning), m(1).NodeName("n2").Phase(corev1.PodRunning), m(2).NodeName("n2")), v1alpha1.PodGroupScheduled, 3, 2, metav1.ConditionTrue, ReasonGangScheduled, "2 running"},
		{"three running", 3, members(m(0).NodeName("n1").Phase(corev1.PodRunning), m(1).NodeName("n2").Phase(corev1.PodRunning), m(2).NodeName("n2").Phase(corev1.PodRunning)), v1alpha1.PodGroupRunning, 3, 3, metav1.ConditionTrue, ReasonGangRunning, "3 members are running and 0 have succeeded"},
		{"two running, one succeeded", 3, members(m(0).NodeName("n1").Phase(corev1.PodRunning), m(1).NodeName("n2").Phase(corev1.PodRunning), m(2).NodeName("n2").Phase(corev1.PodSucceeded)), v1alpha1.PodGroupRunning, 3, 2, metav1.ConditionTrue, ReasonGangRunning, "1 have succeeded"},
		{"all succeeded", 2, members(m(0).NodeName("n1").Phase(corev1.PodSucceeded), m(1).NodeName("n1").Phase(corev1.PodSucceeded)), v1alpha1.PodGroupRunning, 2, 0, metav1.ConditionTrue, ReasonGangRunning, "0 members are running and 2 have succeeded"},
		{"a bound member failed", 3, members(m(0).NodeName("n1").Phase(corev1.PodRunning), m(1).NodeName("n2").Phase(corev1.PodRunning), m(2).NodeName("n2").Phase(corev1.PodFailed)), v1alpha1.PodGroupFailed, 2, 2, metav1.ConditionFalse, ReasonMemberFailed, "1 members failed; the 2 others are fewer than minCount 3"},
		{"an unbound member failed", 2, members(m(0), m(1).Phase(corev1.PodFailed)), v1alpha1.PodGroupFailed, 0, 0, metav1.ConditionFalse, ReasonMemberFailed, "the 1 others"},
		{"a failed member was replaced", 3, members(m(0).NodeName("n1").Phase(corev1.PodRunning), m(1).NodeName("n2").Phase(corev1.PodRunning), m(2).NodeName("n2").Phase(corev1.PodFailed), m(3).NodeName("n1").Phase(corev1.PodRunning)), v1alpha1.PodGroupRunning, 3, 3, metav1.ConditionTrue, ReasonGangRunning, "3 members are running"},
		{"a failed member's replacement is pending", 3, members(m(0).NodeName("n1").Phase(corev1.PodRunning), m(1).NodeName("n2").Phase(corev1.PodRunning), m(2).NodeName("n2").Phase(corev1.PodFailed), m(3)), v1alpha1.PodGroupScheduling, 2, 2, metav1.ConditionFalse, ReasonGangScheduling, "2 of minCount 3"},
		{"a terminating member does not count", 3, members(m(0).NodeName("n1"), m(1).NodeName("n1"), m(2).NodeName("n1").Terminating(t0).Finalizers("test/hold")), v1alpha1.PodGroupPending, 2, 0, metav1.ConditionFalse, ReasonAwaitingMembers, "2 of minCount 3"},
		{"a terminating failed member fails nothing", 2, members(m(0), m(1), m(2).Phase(corev1.PodFailed).Terminating(t0).Finalizers("test/hold")), v1alpha1.PodGroupScheduling, 0, 0, metav1.ConditionFalse, ReasonGangScheduling, "0 of minCount 2"},
	}
	now := metav1.NewTime(t0)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg := podGroup("gang", tc.minCount).Generation(4).Obj()
			got := podGroupStatus(pg, tc.pods, now)
			if got.Phase != tc.phase || got.Scheduled != tc.scheduled || got.Running != tc.running {
				t.Errorf("phase %s, scheduled %d, running %d; want %s, %d, %d", got.Phase, got.Scheduled, got.Running, tc.phase, tc.scheduled, tc.running)
			}
			if got.ObservedGeneration != 4 {
				t.Errorf("observedGeneration = %d, want 4", got.ObservedGeneration)
			}
			want := map[string]metav1.ConditionStatus{
				v1alpha1.ConditionReady:       tc.ready,
				v1alpha1.ConditionReconciling: metav1.ConditionFalse,
				v1alpha1.ConditionStalled:     metav1.ConditionFalse,
			}
			switch tc.phase {
			case v1alpha1.PodGroupPending, v1alpha1.PodGroupScheduling:
				want[v1alpha1.ConditionReconciling] = metav1.ConditionTrue
			case v1alpha1.PodGroupFailed:
				want[v1alpha1.ConditionStalled] = metav1.ConditionTrue
			}
			if len(got.Conditions) != len(want) {
				t.Errorf("%d conditions, want %d: %+v", len(got.Conditions), len(want), got.Conditions)
			}
			for typ, status := range want {
				c := meta.FindStatusCondition(got.Conditions, typ)
				if c == nil {
					t.Errorf("no %s condition", typ)
					continue
				}
				if c.Status != status || c.Reason != tc.reason || !strings.Contains(c.Message, tc.message) || c.ObservedGeneration != 4 {
					t.Errorf("%s = %s/%s %q (generation %d); want %s/%s containing %q (generation 4)",
						typ, c.Status, c.Reason, c.Message, c.ObservedGeneration, status, tc.reason, tc.message)
				}
			}
		})
	}
}

// TestPodGroupStatusIsStable checks that recomputing a status from the same
// pods changes nothing, however late, and that a phase change moves only
// the transition times of the conditions whose status changed.
func TestPodGroupStatusIsStable(t *testing.T) {
	t1 := metav1.NewTime(t0.Add(time.Minute))
	t2 := metav1.NewTime(t0.Add(2 * time.Minute))
	pending := members(member("a", "gang"), member("b", "gang"))
	first := podGroupStatus(podGroup("gang", 2).Obj(), pending, metav1.NewTime(t0))

	again := podGroupStatus(podGroup("gang", 2).Status(first).Obj(), pending, t1)
	if !equality.Semantic.DeepEqual(first, again) {
		t.Errorf("the same pods gave a new status:\n%+v\n%+v", first, again)
	}

	bound := members(member("a", "gang").NodeName("n1"), member("b", "gang").NodeName("n2"))
	next := podGroupStatus(podGroup("gang", 2).Status(first).Obj(), bound, t2)
	if next.Phase != v1alpha1.PodGroupScheduled {
		t.Fatalf("phase %s, want Scheduled", next.Phase)
	}
	for typ, want := range map[string]metav1.Time{
		v1alpha1.ConditionReady:       t2, // False -> True
		v1alpha1.ConditionReconciling: t2, // True -> False
		v1alpha1.ConditionStalled:     metav1.NewTime(t0),
	} {
		if c := meta.FindStatusCondition(next.Conditions, typ); !c.LastTransitionTime.Equal(&want) {
			t.Errorf("%s changed at %s, want %s", typ, c.LastTransitionTime, want)
		}
	}
}
