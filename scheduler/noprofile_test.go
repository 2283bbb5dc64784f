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

package scheduler

import (
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestRemoveProfileReportsParkedPods(t *testing.T) {
	mine, other := st.Pod("mine").Namespace("ns").SchedulerName("packing").Image("img").Obj(), st.Pod("other").Namespace("ns").SchedulerName("spreading").Image("img").Obj()
	h := newHarness(t, withObjects(mine, other),
		withProfile("packing", "packing", &v1alpha1.SchedulingProfileSpec{}), withProfile("spreading", "spreading", &v1alpha1.SchedulingProfileSpec{}))
	ctx, s, client := h.ctx, h.s, h.client
	s.queue.Add(logr.Discard(), mine)
	s.queue.Add(logr.Discard(), other)

	s.RemoveProfile(ctx, "packing")
	s.bindings.Wait()

	if s.ParkedPods() != 1 {
		t.Errorf("parked pods = %d, want 1", s.ParkedPods())
	}
	tests := []struct {
		pod         string
		wantMessage string // "" means no PodScheduled condition
	}{
		{pod: "mine", wantMessage: `no SchedulingProfile serves schedulerName "packing"`},
		{pod: "other"},
	}
	for _, tt := range tests {
		got, err := client.CoreV1().Pods("ns").Get(ctx, tt.pod, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var cond *v1.PodCondition
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == v1.PodScheduled {
				cond = &got.Status.Conditions[i]
			}
		}
		switch {
		case tt.wantMessage == "" && cond != nil:
			t.Errorf("pod %s got condition %+v, want none", tt.pod, cond)
		case tt.wantMessage != "" && cond == nil:
			t.Errorf("pod %s has no PodScheduled condition", tt.pod)
		case tt.wantMessage != "" && (cond.Status != v1.ConditionFalse || cond.Reason != v1.PodReasonUnschedulable || cond.Message != tt.wantMessage):
			t.Errorf("pod %s condition = %s/%s %q, want False/Unschedulable %q", tt.pod, cond.Status, cond.Reason, cond.Message, tt.wantMessage)
		}
	}

	// Removing a name nobody serves patches nothing more.
	before := len(client.Actions())
	s.RemoveProfile(ctx, "packing")
	s.bindings.Wait()
	if after := len(client.Actions()); after != before {
		t.Errorf("a second removal made %d API calls", after-before)
	}
}
