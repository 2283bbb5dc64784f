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

package defaultpreemption

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestPreEnqueueGatesWhileVictimsAreEvicted holds the delete of the last
// victim (the least important one, evicted after the others)
// and checks the preemptor is gated until the informer shows that
// victim terminating, and not after the background work ends.
func TestPreEnqueueGatesWhileVictimsAreEvicted(t *testing.T) {
	first := st.Pod("first").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0).Obj()
	last := st.Pod("last").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0.Add(time.Minute)).Obj()
	pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
	e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{first, last, pod}})
	lastDeleting, release := make(chan struct{}), make(chan struct{})
	e.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.DeleteAction).GetName() == "last" {
			close(lastDeleting)
			<-release
		}
		return false, nil, nil
	})
	ctx := context.Background()
	if status := e.plugin.PreEnqueue(ctx, pod); !status.IsSuccess() {
		t.Fatalf("PreEnqueue before any preemption: %v", status)
	}
	state, statuses := e.filter(t, pod)
	if _, status := e.fwk.RunPostFilterPlugins(ctx, state, pod, statuses); !status.IsSuccess() {
		t.Fatalf("PostFilter: %v", status)
	}
	<-lastDeleting
	status := e.plugin.PreEnqueue(ctx, pod)
	if status.Code() != framework.UnschedulableAndUnresolvable || status.Message() != msgPreempting {
		t.Errorf("PreEnqueue while the last victim is being deleted: %v", status)
	}
	// The informer sees the last victim terminating: the wait is over.
	terminating := last.DeepCopy()
	now := metav1.NewTime(t0)
	terminating.DeletionTimestamp = &now
	if err := e.fwk.SharedInformerFactory().Core().V1().Pods().Informer().GetIndexer().Update(terminating); err != nil {
		t.Fatal(err)
	}
	if status := e.plugin.PreEnqueue(ctx, pod); !status.IsSuccess() {
		t.Errorf("PreEnqueue once the last victim terminates: %v", status)
	}
	close(release)
	e.plugin.background.Wait()
	if status := e.plugin.PreEnqueue(ctx, pod); !status.IsSuccess() {
		t.Errorf("PreEnqueue after the preemption: %v", status)
	}
	if got := e.deleted(); len(got) != 2 {
		t.Errorf("deleted %v, want both victims", got)
	}
}

// TestPreEnqueueGatesAcrossAProfileSwap starts a preemption under one
// generation of a profile and asks the next generation, a new framework
// and plugin, whether the preemptor may be tried: with the scheduler's
// shared record it is held back; a plugin with a record of its own would
// let it be tried again and pick more victims.
func TestPreEnqueueGatesAcrossAProfileSwap(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared record", false: "own record"}[shared], func(t *testing.T) {
			first := st.Pod("first").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0).Obj()
			last := st.Pod("last").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0.Add(time.Minute)).Obj()
			pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
			c := cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{first, last, pod}}
			if shared {
				c.preemptions = framework.NewPreemptionsInFlight()
			}
			gen1 := newEnv(t, c)
			lastDeleting, release := make(chan struct{}), make(chan struct{})
			gen1.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.(clienttesting.DeleteAction).GetName() == "last" {
					close(lastDeleting)
					<-release
				}
				return false, nil, nil
			})
			defer func() { close(release); gen1.plugin.background.Wait() }()
			state, statuses := gen1.filter(t, pod)
			if _, status := gen1.fwk.RunPostFilterPlugins(context.Background(), state, pod, statuses); !status.IsSuccess() {
				t.Fatalf("PostFilter: %v", status)
			}
			<-lastDeleting

			gen2 := newEnv(t, c)
			status := gen2.plugin.PreEnqueue(context.Background(), pod)
			if gated := status.Code() == framework.UnschedulableAndUnresolvable; gated != shared {
				t.Errorf("the next generation's PreEnqueue = %v; want the preemptor held back: %v", status, shared)
			}
		})
	}
}

func TestPreEnqueueUngatesAfterAFailure(t *testing.T) {
	victim := st.Pod("v").Priority(1).Container("cpu", "2").NodeName("n1").Obj()
	pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
	e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{victim, pod}})
	e.client.PrependReactor("patch", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errInjected
	})
	if _, status := e.schedule(t, pod); !status.IsSuccess() {
		t.Fatalf("PostFilter: %v", status)
	}
	if status := e.plugin.PreEnqueue(context.Background(), pod); !status.IsSuccess() {
		t.Errorf("PreEnqueue after a failed preemption: %v", status)
	}
	if got := e.deleted(); len(got) != 0 {
		t.Errorf("deleted %v although marking the victim failed", got)
	}
}

func TestEventsToRegister(t *testing.T) {
	for _, sync := range []bool{false, true} {
		e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "1")}, sync: sync})
		events, err := e.plugin.EventsToRegister(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sync {
			if len(events) != 0 {
				t.Errorf("sync mode registers %v", events)
			}
			continue
		}
		if len(events) != 1 || events[0].Event != (framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}) {
			t.Fatalf("events %v, want the deletion of bound pods", events)
		}
		if hint, err := events[0].QueueingHintFn(e.plugin.logger(), nil, nil, nil); err != nil || hint != framework.QueueSkip {
			t.Errorf("hint %v, %v; want QueueSkip", hint, err)
		}
	}
}

// TestPreEnqueueGatesAGroupWhileItsVictimsAreEvicted checks a PodGroup's
// preemption as upstream's asynchronous one: the members are gated, with
// the pod group's reason, until the informer shows the last victim
// terminating, so the group's next cycle does not come while the victims
// it chose are still being evicted.
func TestPreEnqueueGatesAGroupWhileItsVictimsAreEvicted(t *testing.T) {
	group := st.WorkloadGroup("crew").UID("crew-uid").Gang(1).Priority(1000).Obj()
	member := st.Pod("m").UID("m").Req("cpu", "2").SchedulingGroup("crew").SchedulerName(v1.DefaultSchedulerName).Obj()
	low := st.Pod("low").UID("low").Req("cpu", "2").Priority(1).NodeName("node-1").Obj()
	e := newEnv(t, cluster{
		nodes:  []*v1.Node{makeNode("node-1", "2")},
		pods:   []*v1.Pod{low, member},
		groups: []*schedulingv1beta1.PodGroup{group},
	})
	deleting, release := make(chan struct{}), make(chan struct{})
	e.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.DeleteAction).GetName() == "low" {
			close(deleting)
			<-release
		}
		return false, nil, nil
	})
	ctx := context.Background()
	sim := &gangSimulation{fwk: e.fwk, snapshot: e.snapshot, members: []*v1.Pod{member}}
	_, s := e.plugin.PodGroupPostFilter(ctx, framework.PodGroupNode(group), []*v1.Pod{member}, sim)
	if want := "pod group preemption: found a placement for podgroup, preempting 1 victims"; !s.IsSuccess() || s.Message() != want {
		t.Fatalf("PodGroupPostFilter: %v, want Success with %q", s, want)
	}
	<-deleting
	if status := e.plugin.PreEnqueue(ctx, member); status.Code() != framework.UnschedulableAndUnresolvable || status.Message() != msgGroupPreempting {
		t.Errorf("PreEnqueue of a member while the victim is being deleted: %v", status)
	}
	terminating := low.DeepCopy()
	now := metav1.NewTime(t0)
	terminating.DeletionTimestamp = &now
	if err := e.fwk.SharedInformerFactory().Core().V1().Pods().Informer().GetIndexer().Update(terminating); err != nil {
		t.Fatal(err)
	}
	if status := e.plugin.PreEnqueue(ctx, member); !status.IsSuccess() {
		t.Errorf("PreEnqueue of a member once the victim terminates: %v", status)
	}
	close(release)
	e.plugin.background.Wait()
	if got := e.deleted(); !slices.Equal(got, []string{"low"}) {
		t.Errorf("deleted %v, want [low]", got)
	}
}
