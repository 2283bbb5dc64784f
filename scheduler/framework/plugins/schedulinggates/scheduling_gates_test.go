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

package schedulinggates

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPreEnqueue(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		want *framework.Status
	}{
		{"no gates", st.Pod("p").Obj(), nil},
		{"one gate", st.Pod("p").Gates("a").Obj(),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for scheduling gates: [a]")},
		{"two gates", st.Pod("p").Gates("a", "b").Obj(),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for scheduling gates: [a b]")},
	}
	pl := &SchedulingGates{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pl.PreEnqueue(context.Background(), tt.pod); !got.Equal(tt.want) {
				t.Errorf("PreEnqueue = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEventsToRegister(t *testing.T) {
	pl := &SchedulingGates{}
	evs, err := pl.EventsToRegister(context.Background())
	if err != nil || len(evs) != 1 {
		t.Fatalf("EventsToRegister = %v, %v", evs, err)
	}
	ev := evs[0].Event
	if ev.Resource != framework.UnscheduledPod || ev.ActionType != framework.UpdatePodSchedulingGatesEliminated {
		t.Errorf("event = %+v", ev)
	}
	target := st.Pod("p").Gates("a").Obj()
	tests := []struct {
		name     string
		old, cur any
		want     framework.QueueingHint
		wantErr  bool
	}{
		{"gates removed", target, st.Pod("p").Obj(), framework.Queue, false},
		{"one gate left", target, st.Pod("p").Gates("b").Obj(), framework.QueueSkip, false},
		{"another pod", target, st.Pod("other").Obj(), framework.QueueSkip, false},
		{"wrong type", target, &v1.Node{}, framework.Queue, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evs[0].QueueingHintFn(logr.Discard(), target, tt.old, tt.cur)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("hint = %v, %v; want %v, err %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
