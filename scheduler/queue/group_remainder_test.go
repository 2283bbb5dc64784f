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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestAddGroupRemainder(t *testing.T) {
	tests := []struct {
		name string
		// remainder hands the left-out member back with AddGroupRemainder,
		// else with AddUnschedulableIfNotPresent.
		remainder bool
		// deleted deletes the member while it is in flight.
		deleted   bool
		wantWhere string
		// wantFirst is whether the member pops before a pod of its
		// priority queued while it was in flight.
		wantFirst bool
	}{
		{name: "left out by a successful cycle: activeQ at once, before later pods", remainder: true, wantWhere: "activeQ", wantFirst: true},
		{name: "failed as usual: parked until an event", wantWhere: "unschedulable"},
		{name: "deleted while in flight: dropped", remainder: true, deleted: true, wantWhere: "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
			m := member("left-out").UID("left-out").Obj()
			q.Add(tlog, m)
			info := q.pop()
			queuedAt := info.Timestamp
			q.clock.Step(time.Second)
			later := pendingPod("later").UID("later").Obj()
			q.Add(tlog, later)
			if tc.deleted {
				q.Delete(m)
			}
			info.UnschedulablePlugins = sets.New("NodeResourcesFit")
			var err error
			if tc.remainder {
				err = q.AddGroupRemainder(tlog, info, q.SchedulingCycle())
			} else {
				err = q.AddUnschedulableIfNotPresent(tlog, info, q.SchedulingCycle())
			}
			if err != nil {
				t.Fatalf("requeue: %v", err)
			}
			if got := q.where(m); got != tc.wantWhere {
				t.Fatalf("member is in %s, want %s", got, tc.wantWhere)
			}
			if tc.remainder && !tc.deleted && !info.Timestamp.Equal(queuedAt) {
				t.Errorf("timestamp %v, want the one it was queued with, %v", info.Timestamp, queuedAt)
			}
			if tc.wantWhere != "activeQ" {
				return
			}
			if err := q.AddGroupRemainder(tlog, info, q.SchedulingCycle()); err == nil {
				t.Errorf("a member already queued was handed back again")
			}
			if first := q.pop(); (first.Pod.UID == m.UID) != tc.wantFirst {
				t.Errorf("popped %s first", first.Pod.Name)
			}
		})
	}
}

// TestGroupMemberBackoff checks a PodGroup member's backoff against
// kube-scheduler v1.37.1's for its group: the cap grows with the square
// root of the members requeued together, and a group that scheduled backs
// off afresh.
func TestGroupMemberBackoff(t *testing.T) {
	tests := []struct {
		name      string
		groupSize int
		// failures are the cycles that ended unschedulable.
		failures int
		// leftOutAfter, when above zero, is the failure after which a
		// successful cycle of the group left the member out.
		leftOutAfter int
		want         time.Duration
	}{
		{name: "alone: capped at 10s", groupSize: 1, failures: 6, want: 10 * time.Second},
		{name: "three members, fifth failure: 16s", groupSize: 3, failures: 5, want: 16 * time.Second},
		{name: "three members, sixth failure: 10s·√3", groupSize: 3, failures: 6, want: 17320508075 * time.Nanosecond},
		{name: "eight members, capped at 10s·√8", groupSize: 8, failures: 9, want: 28284271247 * time.Nanosecond},
		{name: "left out by a cycle that scheduled, then failed once: 1s", groupSize: 4, failures: 5, leftOutAfter: 4, want: time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
			m := member("m").UID("m").Obj()
			q.Add(tlog, m)
			for i := 1; i <= tc.failures; i++ {
				for q.Stats().Active == 0 {
					q.clock.Step(time.Second)
					q.flushBackoffCompleted(tlog)
				}
				info := q.pop()
				if i == tc.leftOutAfter+1 && tc.leftOutAfter > 0 {
					// The cycle before this one scheduled the group.
					if err := q.AddGroupRemainder(tlog, info, q.SchedulingCycle()); err != nil {
						t.Fatal(err)
					}
					info = q.pop()
				}
				info.GroupSize = tc.groupSize
				// A group that failed comes back without rejectors (see
				// moveToBackoff): it waits in backoffQ.
				q.fail(info)
			}
			got := q.queued[keyOf(m)]
			if got == nil || got.at != inBackoff {
				t.Fatalf("member is in %s, want backoffQ", q.where(m))
			}
			// Popping from backoffQ is on: the backoff ends with its window.
			if want := windowEnd(got.info.Timestamp.Add(tc.want)); !got.backoffUntil.Equal(want) {
				t.Errorf("backoff ends %v after the failure, want %v (%v and its window)",
					got.backoffUntil.Sub(got.info.Timestamp), want.Sub(got.info.Timestamp), tc.want)
			}
		})
	}
}

// TestAddGroupFailure checks that a member of a PodGroup whose cycle failed
// waits out its backoff and is retried without an event, and that an event
// its rejecting plugin registered does not move it early, as kube-scheduler
// v1.37.1 requeues a pod group; a pod alone, rejected the same way, waits
// for the event.
func TestAddGroupFailure(t *testing.T) {
	tests := []struct {
		name  string
		group bool
		// event sends a node-add that NodeResourcesFit registered right
		// after the failure.
		event     bool
		wantAfter string
		wantLater string
	}{
		{name: "group member: backoffQ, then activeQ when the backoff ends", group: true, wantAfter: "backoffQ", wantLater: "activeQ"},
		{name: "group member: a node added changes nothing", group: true, event: true, wantAfter: "backoffQ", wantLater: "activeQ"},
		{name: "pod alone: parked until an event", wantAfter: "unschedulable", wantLater: "unschedulable"},
		{name: "pod alone: a node added moves it to backoffQ", event: true, wantAfter: "backoffQ", wantLater: "activeQ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("NodeResourcesFit", nodeAdd, hintQueue)})
			pod := member("m").UID("m").Obj()
			if !tc.group {
				pod = pendingPod("m").UID("m").Obj()
			}
			q.Add(tlog, pod)
			info := q.pop()
			info.UnschedulablePlugins = sets.New("NodeResourcesFit")
			var err error
			if tc.group {
				err = q.AddGroupFailure(tlog, info, false, q.SchedulingCycle())
			} else {
				err = q.AddUnschedulableIfNotPresent(tlog, info, q.SchedulingCycle())
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.event {
				q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
			}
			if got := q.where(pod); got != tc.wantAfter {
				t.Fatalf("after the failure the pod is in %s, want %s", got, tc.wantAfter)
			}
			q.clock.Step(2 * time.Second)
			q.flushBackoffCompleted(tlog)
			if got := q.where(pod); got != tc.wantLater {
				t.Errorf("2s later the pod is in %s, want %s", got, tc.wantLater)
			}
			if info.ConsecutiveErrorsCount != 0 {
				t.Errorf("consecutive errors %d after an unschedulable cycle, want 0", info.ConsecutiveErrorsCount)
			}
		})
	}
}

// TestTriedGroupMemberPreEnqueue checks what a member of a PodGroup whose
// cycle failed is asked on its way back: not the group's admission (a gang
// whose minCount was raised after its members were tried still gets its
// cycle), but every other PreEnqueue plugin, so a preemption of its group
// still running holds it back.
func TestTriedGroupMemberPreEnqueue(t *testing.T) {
	tests := []struct {
		name               string
		admits, preempting bool
		want               string
	}{
		{name: "admitted, no preemption: backoffQ", admits: true, want: "backoffQ"},
		{name: "no longer admitted: backoffQ, the admission is not asked again", want: "backoffQ"},
		{name: "its group's preemption running: gated", admits: true, preempting: true, want: "gated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			admits, preempting := true, false
			prof := profile()
			prof.gates = []namedGate{
				{name: "GangScheduling", gates: func(*v1.Pod) bool { return !admits }},
				{name: "DefaultPreemption", gates: func(*v1.Pod) bool { return preempting }},
			}
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: prof}, WithGroupAdmission("GangScheduling"))
			pod := member("m").UID("m").Obj()
			q.Add(tlog, pod)
			info := q.pop()
			info.UnschedulablePlugins = sets.New("NodeResourcesFit")
			admits, preempting = tc.admits, tc.preempting
			if err := q.AddGroupFailure(tlog, info, false, q.SchedulingCycle()); err != nil {
				t.Fatal(err)
			}
			if got := q.where(pod); got != tc.want {
				t.Errorf("after the failure the pod is in %s, want %s", got, tc.want)
			}
			if tc.want == "gated" && info.GatingPlugin != "DefaultPreemption" {
				t.Errorf("gated by %q, want DefaultPreemption", info.GatingPlugin)
			}
		})
	}
}

// TestGroupFailureGatedByPreemptionIsRequeuedByTheVictimsDeletion checks a
// member that failed for its group's sake, gated while its group's
// preemption runs: once the preemption is over, the deletion of a victim
// requeues it although the gate's own hint says Skip, as any event
// requeues kube-scheduler's PodGroup whose members failed for the group.
// A member rejected by a plugin is still left to that plugin's hints.
func TestGroupFailureGatedByPreemptionIsRequeuedByTheVictimsDeletion(t *testing.T) {
	tests := []struct {
		name      string
		rejectors []string
		want      string
	}{
		{name: "failed for its group", want: "backoffQ"},
		{name: "rejected by a plugin whose hint skips the deletion", rejectors: []string{"NodeAffinity"}, want: "gated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			preempting := false
			prof := profile().on("DefaultPreemption", podDelete, hintSkip).on("NodeAffinity", nodeAdd, hintQueue)
			prof.gates = []namedGate{{name: "DefaultPreemption", gates: func(*v1.Pod) bool { return preempting }}}
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: prof}, WithGroupAdmission("GangScheduling"))
			pod := member("m").UID("m").Obj()
			q.Add(tlog, pod)
			info := q.pop()
			info.UnschedulablePlugins = sets.New(tc.rejectors...)
			preempting = true
			if err := q.AddGroupFailure(tlog, info, false, q.SchedulingCycle()); err != nil {
				t.Fatal(err)
			}
			if got := q.where(pod); got != "gated" {
				t.Fatalf("while its group preempts the pod is in %s, want gated", got)
			}
			preempting = false
			q.MoveAllToActiveOrBackoffQueue(tlog, podDelete, pendingPod("victim").NodeName("n1").Obj(), nil, nil)
			if got := q.where(pod); got != tc.want {
				t.Errorf("after a victim's deletion the pod is in %s, want %s", got, tc.want)
			}
		})
	}
}
