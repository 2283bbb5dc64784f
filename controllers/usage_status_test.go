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
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/usage"
)

func TestUsageAvailableCondition(t *testing.T) {
	now := metav1.NewTime(t0.Add(time.Hour))
	live := &liveProfile{schedulerName: "sched", generation: 1}
	server := runtime.PluginUsage{Plugin: "TargetLoadPacking", Source: usage.Source{Type: usage.MetricsServer}}
	prom := runtime.PluginUsage{Plugin: "LoadAwareScheduling", Source: usage.Source{Type: usage.Prometheus, Address: "https://prom:9091"}}
	available := metav1.Condition{Type: v1alpha1.ConditionUsageAvailable, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonUsageRead, LastTransitionTime: metav1.NewTime(t0)}
	tests := []struct {
		name   string
		before []metav1.Condition
		usage  []usageState
		// want is the UsageAvailable condition, nil for none.
		want *metav1.Condition
	}{
		{name: "no plugin reads usage: no condition"},
		{name: "a condition left from a generation that read usage goes", before: []metav1.Condition{available}},
		{name: "every source read", usage: []usageState{{PluginUsage: server, read: true}, {PluginUsage: prom, read: true}},
			want: &metav1.Condition{Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonUsageRead, LastTransitionTime: now,
				Message: "TargetLoadPacking reads KubernetesMetricsServer; LoadAwareScheduling reads Prometheus https://prom:9091"}},
		{name: "still True: the transition time stays", before: []metav1.Condition{available}, usage: []usageState{{PluginUsage: server, read: true}},
			want: &metav1.Condition{Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonUsageRead, LastTransitionTime: available.LastTransitionTime}},
		{name: "a source that fails is named", before: []metav1.Condition{available},
			usage: []usageState{{PluginUsage: server, read: true}, {PluginUsage: prom, read: true, err: errors.New(`the Secret berth-system/prom is not found`)}},
			want: &metav1.Condition{Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonUsageSourceFailing, LastTransitionTime: now,
				Message: "LoadAwareScheduling cannot read Prometheus https://prom:9091: the Secret berth-system/prom is not found; until it can, nodes are judged on their pods' requests"}},
		{name: "a source never read", usage: []usageState{{PluginUsage: server}},
			want: &metav1.Condition{Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonUsageNotReadYet, LastTransitionTime: now,
				Message: "TargetLoadPacking has not read KubernetesMetricsServer yet; until it has, nodes are judged on their pods' requests"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := st.Profile("p").Created(t0).Generation(1).Obj()
			p.Status.Conditions = tt.before
			status := profileStatus(p, profileOutcome{schedulerName: "sched", live: live, usage: tt.usage}, now)
			got := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionUsageAvailable)
			switch {
			case tt.want == nil && got != nil:
				t.Fatalf("UsageAvailable = %+v, want none", got)
			case tt.want == nil:
			case got == nil:
				t.Fatal("no UsageAvailable condition")
			case got.Status != tt.want.Status || got.Reason != tt.want.Reason || !got.LastTransitionTime.Equal(&tt.want.LastTransitionTime) ||
				tt.want.Message != "" && got.Message != tt.want.Message:
				t.Errorf("UsageAvailable = %s/%s at %v %q\nwant %s/%s at %v %q", got.Status, got.Reason, got.LastTransitionTime, got.Message,
					tt.want.Status, tt.want.Reason, tt.want.LastTransitionTime, tt.want.Message)
			}
			if ready := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionReady); ready == nil || ready.Status != metav1.ConditionTrue {
				t.Errorf("Ready = %+v, want True: the condition is informational", ready)
			}
		})
	}
}
