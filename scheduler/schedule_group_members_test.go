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
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestWaitsForMembers(t *testing.T) {
	tests := []struct {
		name                  string
		minCount, all, unseen int
		want                  bool
	}{
		{name: "every member reached the queue", minCount: 3, all: 3},
		{name: "more members than minCount, some not queued yet", minCount: 3, all: 5, unseen: 2},
		{name: "members the queue has not been given", minCount: 1000, all: 1000, unseen: 837, want: true},
		{name: "one member short of minCount in the queue", minCount: 8, all: 8, unseen: 1, want: true},
		{name: "gated members reached the queue: the cycle runs", minCount: 8, all: 8},
		{name: "too few members at all: the cycle says so", minCount: 3, all: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitsForMembers(tt.minCount, tt.all, tt.unseen); got != tt.want {
				t.Errorf("waitsForMembers(%d, %d, %d) = %v, want %v", tt.minCount, tt.all, tt.unseen, got, tt.want)
			}
		})
	}
}

// runGang puts the gang pg and its members in the informer and the API,
// hands queued of them to the queue, pops one and runs its group cycle.
// It returns the API's client, its actions cleared before the cycle.
func (h *harness) runGang(pg *schedulingv1beta1.PodGroup, pods, queued []*v1.Pod) *fake.Clientset {
	h.t.Helper()
	s := h.s
	if err := s.workloads.Informer().GetStore().Add(pg); err != nil {
		h.t.Fatal(err)
	}
	client := s.client.(*fake.Clientset)
	for _, p := range pods {
		if err := s.informerFactory.Core().V1().Pods().Informer().GetIndexer().Add(p); err != nil {
			h.t.Fatal(err)
		}
		if _, err := client.CoreV1().Pods(p.Namespace).Create(h.ctx, p, metav1.CreateOptions{}); err != nil {
			h.t.Fatal(err)
		}
	}
	for _, p := range queued {
		s.queue.Add(logr.Discard(), p)
	}
	qpi, err := s.queue.Pop(logr.Discard())
	if err != nil {
		h.t.Fatal(err)
	}
	client.ClearActions()
	s.scheduleGroup(h.ctx, s.profiles.Get(v1.DefaultSchedulerName), qpi, framework.RefOf(pg), s.queue.SchedulingCycle())
	s.bindings.Wait()
	return client
}

// TestGangWaitsForItsMembersToReachTheQueue checks that a gang's cycle that
// the queue gave fewer than minCount members, while the informer shows
// them all, writes nothing and requeues the member it has.
func TestGangWaitsForItsMembersToReachTheQueue(t *testing.T) {
	h := newGroupHarness(t, &v1alpha1.SchedulingProfileSpec{}, []*v1.Node{rackNode("n1", "r1", "8").Obj()})
	pods := members("crew", 3, "1")
	// Only the first member reached the queue; it was popped.
	client := h.runGang(st.WorkloadGroup("crew").Gang(3).Obj(), pods, pods[:1])
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("the cycle wrote to the API: %v", actions)
	}
	if !h.s.queue.Has(pods[0]) {
		t.Fatal("the popped member is not back in the queue")
	}
	// The members the informer showed reach the queue: the first one is
	// back in activeQ at once, ahead of them, its wait not counted as an
	// attempt.
	for _, p := range pods[1:] {
		h.s.onPendingPodAdd(logr.Discard(), p)
	}
	if st := h.s.queue.Stats(); st.Active != len(pods) {
		t.Fatalf("queue %+v, want all %d members in activeQ", st, len(pods))
	}
	qpi, err := h.s.queue.Pop(logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if qpi.Pod.UID != pods[0].UID || qpi.Attempts != 1 {
		t.Errorf("popped %s on its attempt %d, want %s on its first", qpi.Pod.Name, qpi.Attempts, pods[0].Name)
	}
}

// TestGangCycleRunsWithoutItsGatedMembers checks that a member a
// scheduling gate holds back counts as having reached the queue: the
// gang's cycle runs with the members it has, turns them down for want of
// minCount and writes so to them, as kube-scheduler's does, rather than
// waiting for the gate to go.
func TestGangCycleRunsWithoutItsGatedMembers(t *testing.T) {
	h := newGroupHarness(t, &v1alpha1.SchedulingProfileSpec{}, []*v1.Node{rackNode("n1", "r1", "8").Obj()})
	pods := members("crew", 3, "1")
	pods[2].Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	client := h.runGang(st.WorkloadGroup("crew").Gang(3).Obj(), pods, pods)
	written := sets.New[string]()
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "pods" {
			written.Insert(p.GetName())
		}
	}
	if want := sets.New(pods[0].Name, pods[1].Name); !written.Equal(want) {
		t.Errorf("the cycle wrote to pods %v, want %v", sets.List(written), sets.List(want))
	}
	for _, p := range pods[:2] {
		got, err := client.CoreV1().Pods(p.Namespace).Get(h.ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c := podScheduledCondition(got); c == nil || c.Status != v1.ConditionFalse {
			t.Errorf("%s: PodScheduled %v, want False", p.Name, c)
		}
	}
	if !h.s.queue.Has(pods[2]) {
		t.Error("the gated member left the queue")
	}
}

// podScheduledCondition returns the pod's PodScheduled condition, or nil.
func podScheduledCondition(p *v1.Pod) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
