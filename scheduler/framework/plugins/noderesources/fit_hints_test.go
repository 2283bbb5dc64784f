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

package noderesources

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func hintFor(t *testing.T, pl *Fit, ev framework.ClusterEvent) framework.QueueingHintFn {
	t.Helper()
	evs, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Event == ev {
			return e.QueueingHintFn
		}
	}
	t.Fatalf("event %v not registered; have %+v", ev.Label(), evs)
	return nil
}

func TestFitQueueingHints(t *testing.T) {
	pl := mustFit(t, "")
	var (
		podDelete   = framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}
		podScale    = framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.UpdatePodScaleDown}
		ownScale    = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodScaleDown}
		nodeChanged = framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable}
	)
	target := pod("cpu", "2", "example.com/gpu", "1")
	nodeWith := func(pairs ...string) *v1.Node { return st.Node("n").Alloc(pairs...).Obj() }
	tests := []struct {
		name     string
		event    framework.ClusterEvent
		old, cur any
		want     framework.QueueingHint
		wantErr  bool
	}{
		{"assigned pod deleted", podDelete, assigned("a", "cpu", "1"), nil, framework.Queue, false},
		{"nominated pod deleted", podDelete, st.Pod("a").Nominated("n").Obj(), nil, framework.Queue, false},
		{"tombstone of assigned pod", podDelete, cache.DeletedFinalStateUnknown{Obj: assigned("a")}, nil, framework.Queue, false},
		{"unscheduled pod deleted", podDelete, st.Pod("a").Obj(), nil, framework.QueueSkip, false},
		{"deleted object of wrong type", podDelete, &v1.Node{}, nil, framework.Queue, true},

		{"assigned pod freed cpu", podScale, assigned("a", "cpu", "2"), assigned("a", "cpu", "1"), framework.Queue, false},
		{"assigned pod freed unrelated memory", podScale, assigned("a", "memory", "2Gi"), assigned("a", "memory", "1Gi"), framework.QueueSkip, false},
		{"assigned pod freed gpu", podScale, assigned("a", "example.com/gpu", "2"), assigned("a", "example.com/gpu", "1"), framework.Queue, false},
		{"unassigned pod scaled down", podScale, pod("cpu", "2"), pod("cpu", "1"), framework.QueueSkip, false},

		{"pod itself scaled down", ownScale, target, pod("cpu", "1"), framework.Queue, false},
		{"another unscheduled pod scaled down", ownScale, st.Pod("x").Obj(), st.Pod("x").Obj(), framework.QueueSkip, false},

		{"big node added", nodeChanged, nil, nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "10"), framework.Queue, false},
		{"small node added", nodeChanged, nil, nodeWith("cpu", "1", "example.com/gpu", "1", "pods", "10"), framework.QueueSkip, false},
		{"node without pod room added", nodeChanged, nil, nodeWith("cpu", "4", "example.com/gpu", "1"), framework.QueueSkip, false},
		{"node grew cpu enough", nodeChanged, nodeWith("cpu", "1", "example.com/gpu", "1", "pods", "10"),
			nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "10"), framework.Queue, false},
		{"node grew but still too small", nodeChanged, nodeWith("cpu", "1", "example.com/gpu", "1", "pods", "10"),
			nodeWith("cpu", "1500m", "example.com/gpu", "1", "pods", "10"), framework.QueueSkip, false},
		{"node grew an unrelated resource", nodeChanged, nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "10"),
			nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "10", "memory", "8Gi"), framework.QueueSkip, false},
		{"node grew pod capacity", nodeChanged, nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "10"),
			nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "20"), framework.Queue, false},
		{"node grew gpu", nodeChanged, nodeWith("cpu", "4", "example.com/gpu", "1", "pods", "10"),
			nodeWith("cpu", "4", "example.com/gpu", "2", "pods", "10"), framework.Queue, false},
		{"wrong node type", nodeChanged, nil, &v1.Pod{}, framework.Queue, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hintFor(t, pl, tt.event)(logr.Discard(), target, tt.old, tt.cur)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("hint = %v, %v; want %v (err %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestBalancedAllocationRegistersNoEvents(t *testing.T) {
	evs, err := mustBalanced(t, "").EventsToRegister(context.Background())
	if err != nil || len(evs) != 0 {
		t.Errorf("EventsToRegister = %v, %v", evs, err)
	}
}
