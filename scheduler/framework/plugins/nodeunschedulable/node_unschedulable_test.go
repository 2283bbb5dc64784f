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

package nodeunschedulable

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var tolerateCordon = v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}

func TestFilter(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		node *v1.Node
		want *framework.Status
	}{
		{"schedulable node", st.Pod("p").Obj(), st.Node("n").Obj(), nil},
		{"cordoned node", st.Pod("p").Obj(), st.Node("n").Unschedulable(true).Obj(),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)},
		{"cordoned node tolerated", st.Pod("p").Toleration(tolerateCordon).Obj(), st.Node("n").Unschedulable(true).Obj(), nil},
		{"tolerate everything", st.Pod("p").Toleration(v1.Toleration{Operator: v1.TolerationOpExists}).Obj(),
			st.Node("n").Unschedulable(true).Obj(), nil},
		{"wrong effect not tolerated", st.Pod("p").Toleration(v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}).Obj(),
			st.Node("n").Unschedulable(true).Obj(),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)},
	}
	pl := &NodeUnschedulable{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pl.Filter(context.Background(), framework.NewCycleState(), tt.pod, st.NodeInfo(tt.node))
			if !got.Equal(tt.want) {
				t.Errorf("Filter = %v, want %v", got, tt.want)
			}
		})
	}
	if got := pl.Filter(context.Background(), nil, st.Pod("p").Obj(), st.NodeInfo(nil)); got.Code() != framework.Error {
		t.Errorf("missing node: %v, want Error", got)
	}
}

func TestQueueingHints(t *testing.T) {
	pl := &NodeUnschedulable{}
	evs, _ := pl.EventsToRegister(context.Background())
	if len(evs) != 2 {
		t.Fatalf("events = %+v", evs)
	}
	nodeHint, podHint := evs[0].QueueingHintFn, evs[1].QueueingHintFn
	pod := st.Pod("p").Obj()
	cordoned, open := st.Node("n").Unschedulable(true).Obj(), st.Node("n").Obj()
	tests := []struct {
		name     string
		fn       framework.QueueingHintFn
		old, cur any
		want     framework.QueueingHint
	}{
		{"schedulable node added", nodeHint, nil, open, framework.Queue},
		{"cordoned node added", nodeHint, nil, cordoned, framework.QueueSkip},
		{"node uncordoned", nodeHint, cordoned, open, framework.Queue},
		{"node cordoned", nodeHint, open, cordoned, framework.QueueSkip},
		{"node stays open", nodeHint, open, open, framework.QueueSkip},
		{"pod gains toleration", podHint, pod, st.Pod("p").Toleration(tolerateCordon).Obj(), framework.Queue},
		{"pod gains unrelated toleration", podHint, pod, st.Pod("p").Toleration(v1.Toleration{Key: "x", Operator: v1.TolerationOpExists}).Obj(), framework.QueueSkip},
		{"other pod gains toleration", podHint, pod, st.Pod("q").Toleration(tolerateCordon).Obj(), framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn(logr.Discard(), pod, tt.old, tt.cur)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
