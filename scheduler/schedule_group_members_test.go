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
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestNotQueued(t *testing.T) {
	tests := []struct {
		name                       string
		minCount, taken, placed, n int
		want                       int
	}{
		{name: "every member taken", minCount: 3, taken: 3, n: 3},
		{name: "more members than minCount, some not queued yet", minCount: 3, taken: 3, n: 5},
		{name: "placed members count", minCount: 3, taken: 1, placed: 2, n: 3},
		{name: "members the queue has not been given", minCount: 1000, taken: 163, n: 1000, want: 837},
		{name: "too few members at all: the cycle says so", minCount: 3, taken: 2, n: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notQueued(tt.minCount, tt.taken, tt.placed, tt.n); got != tt.want {
				t.Errorf("notQueued = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestGangWaitsForItsMembersToReachTheQueue checks that a gang's cycle that
// the queue gave fewer than minCount members, while the informer shows
// them all, writes nothing and requeues the member it has.
func TestGangWaitsForItsMembersToReachTheQueue(t *testing.T) {
	h := newGroupHarness(t, &v1alpha1.SchedulingProfileSpec{}, nil, []*v1.Node{rackNode("n1", "r1", "8").Obj()})
	s := h.s
	pg := st.WorkloadGroup("crew").Gang(3).Obj()
	if err := s.workloads.Informer().GetStore().Add(pg); err != nil {
		t.Fatal(err)
	}
	pods := members("crew", 3, "1")
	for _, p := range pods {
		if err := s.informerFactory.Core().V1().Pods().Informer().GetIndexer().Add(p); err != nil {
			t.Fatal(err)
		}
	}
	// Only the first member reached the queue; it was popped.
	s.queue.Add(logr.Discard(), pods[0])
	qpi, err := s.queue.Pop(logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	client := s.client.(*fake.Clientset)
	client.ClearActions()
	prof := s.profiles.Get(v1.DefaultSchedulerName)
	s.scheduleGroup(h.ctx, prof, qpi, framework.RefOf(pg), s.queue.SchedulingCycle())
	s.bindings.Wait()
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("the cycle wrote to the API: %v", actions)
	}
	if !s.queue.Has(pods[0]) {
		t.Error("the popped member is not back in the queue")
	}
}
