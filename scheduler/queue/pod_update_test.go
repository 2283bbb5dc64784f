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

package queue

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPodUpdateEvents(t *testing.T) {
	base := pendingPod("p").Req("cpu", "2").Gates("g").Obj()
	tests := []struct {
		name        string
		update      func(*st.PodBuilder) *st.PodBuilder
		mayHelp     bool
		wantActions []framework.ActionType
	}{
		{name: "resourceVersion only", update: func(b *st.PodBuilder) *st.PodBuilder { return b.ResourceVersion("9") }, wantActions: []framework.ActionType{framework.Update}},
		{name: "status condition", update: func(b *st.PodBuilder) *st.PodBuilder { return b.Condition(unschedulable("Unschedulable")) }, wantActions: []framework.ActionType{framework.Update}},
		{name: "managed fields", update: func(b *st.PodBuilder) *st.PodBuilder {
			b.Obj().ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
			return b
		}, wantActions: []framework.ActionType{framework.Update}},
		{name: "label", update: func(b *st.PodBuilder) *st.PodBuilder { return b.Label("a", "b") }, mayHelp: true, wantActions: []framework.ActionType{framework.UpdatePodLabel}},
		{name: "scale down", update: func(b *st.PodBuilder) *st.PodBuilder { return b.Req("cpu", "1") }, mayHelp: true, wantActions: []framework.ActionType{framework.UpdatePodScaleDown}},
		{name: "scale up is a general update", update: func(b *st.PodBuilder) *st.PodBuilder { return b.Req("cpu", "3") }, mayHelp: true, wantActions: []framework.ActionType{framework.Update}},
		{name: "toleration", update: func(b *st.PodBuilder) *st.PodBuilder {
			b.Obj().Spec.Tolerations = append(b.Obj().Spec.Tolerations, v1.Toleration{Key: "k", Operator: v1.TolerationOpExists})
			return b
		}, mayHelp: true, wantActions: []framework.ActionType{framework.UpdatePodToleration}},
		{name: "gates removed and label", update: func(b *st.PodBuilder) *st.PodBuilder {
			b.Obj().Spec.SchedulingGates = nil
			return b.Label("x", "y")
		}, mayHelp: true, wantActions: []framework.ActionType{framework.UpdatePodLabel, framework.UpdatePodSchedulingGatesEliminated}},
		{name: "generated resource claim", update: func(b *st.PodBuilder) *st.PodBuilder {
			name := "claim-1"
			b.Obj().Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "c", ResourceClaimName: &name}}
			return b
		}, mayHelp: true, wantActions: []framework.ActionType{framework.UpdatePodGeneratedResourceClaim}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newPod := tt.update(st.PodFrom(base)).Obj()
			if got := mayHelpScheduling(base, newPod); got != tt.mayHelp {
				t.Errorf("mayHelpScheduling = %v, want %v", got, tt.mayHelp)
			}
			events := podUpdateEvents(base, newPod)
			if len(events) != len(tt.wantActions) {
				t.Fatalf("events %v, want actions %v", events, tt.wantActions)
			}
			for i, ev := range events {
				if ev.Resource != framework.UnscheduledPod || ev.ActionType != tt.wantActions[i] {
					t.Errorf("event %d = %s, want UnscheduledPod %s", i, ev.Label(), tt.wantActions[i])
				}
			}
		})
	}
}
