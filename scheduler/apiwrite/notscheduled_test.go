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

package apiwrite

import (
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNotScheduledPatch(t *testing.T) {
	earlier := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC))
	failing := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-1"},
		Status: v1.PodStatus{Conditions: []v1.PodCondition{{
			Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
			Message: "0/1 nodes are available: 1 Insufficient cpu.", LastTransitionTime: earlier,
		}}},
	}
	fresh := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-1"}}

	tests := []struct {
		name           string
		pod            *v1.Pod
		msg            string
		nominate       bool
		wantUpdate     bool
		wantTransition metav1.Time
		wantNominated  bool
	}{
		{name: "same condition needs no update", pod: failing, msg: "0/1 nodes are available: 1 Insufficient cpu.", wantUpdate: false},
		{name: "new message keeps the transition time", pod: failing, msg: "0/2 nodes are available: 2 Insufficient cpu.", wantUpdate: true, wantTransition: earlier},
		{name: "first failure starts the transition now", pod: fresh, msg: "0/1 nodes are available: 1 Too many pods.", wantUpdate: true, wantTransition: now},
		{name: "nomination is carried", pod: fresh, msg: "m", nominate: true, wantUpdate: true, wantTransition: now, wantNominated: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := notScheduledNeedsUpdate(tc.pod, v1.PodReasonUnschedulable, tc.msg); got != tc.wantUpdate {
				t.Fatalf("notScheduledNeedsUpdate = %v, want %v", got, tc.wantUpdate)
			}
			if !tc.wantUpdate {
				return
			}
			raw, err := notScheduledPatch(tc.pod, v1.PodReasonUnschedulable, tc.msg, "node-1", tc.nominate, now)
			if err != nil {
				t.Fatal(err)
			}
			var patch v1.Pod
			if err := json.Unmarshal(raw, &patch); err != nil {
				t.Fatalf("patch %s does not decode as a pod: %v", raw, err)
			}
			if patch.UID != tc.pod.UID {
				t.Errorf("patch UID precondition = %q, want %q", patch.UID, tc.pod.UID)
			}
			if len(patch.Status.Conditions) != 1 {
				t.Fatalf("patch conditions = %v, want one", patch.Status.Conditions)
			}
			c := patch.Status.Conditions[0]
			if c.Type != v1.PodScheduled || c.Status != v1.ConditionFalse || c.Reason != v1.PodReasonUnschedulable || c.Message != tc.msg {
				t.Errorf("patch condition = %+v", c)
			}
			if !c.LastTransitionTime.Equal(&tc.wantTransition) {
				t.Errorf("lastTransitionTime = %v, want %v", c.LastTransitionTime, tc.wantTransition)
			}
			if got := patch.Status.NominatedNodeName == "node-1"; got != tc.wantNominated {
				t.Errorf("nominatedNodeName = %q, want set: %v", patch.Status.NominatedNodeName, tc.wantNominated)
			}
		})
	}
}
