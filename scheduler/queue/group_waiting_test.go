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

	"github.com/berth-io/berth/scheduler/framework"
)

// memberAdd is the event a gang's waiting members are woken by.
var memberAdd = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}

// TestAddGroupWaiting checks that a member handed back to wait for its
// group is not charged the attempt: it keeps its timestamp and comes back,
// when another member arrives, straight to activeQ before the pods queued
// after it, as a member kube-scheduler's PreEnqueue held would.
func TestAddGroupWaiting(t *testing.T) {
	tests := []struct {
		name string
		// failedBefore fails the member once, as rejected by a plugin,
		// before the cycle that hands it back to wait.
		failedBefore bool
		// arrivesInFlight sends the member-add event while the member is
		// in flight, else after it is handed back.
		arrivesInFlight bool
		wantParked      string
		wantAttempts    int
		wantWoken       string
	}{
		{name: "first cycle, the missing member arrives later", wantParked: "unschedulable", wantWoken: "activeQ"},
		{name: "first cycle, the missing member arrived in flight", arrivesInFlight: true, wantParked: "activeQ", wantWoken: "activeQ"},
		// The earlier failure still counts; its backoff is over by then.
		{name: "failed once before: that attempt still counts", failedBefore: true, wantParked: "unschedulable", wantAttempts: 1, wantWoken: "activeQ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("GangScheduling", memberAdd, hintQueue)})
			m := member("m").UID("m").Obj()
			q.Add(tlog, m)
			if tc.failedBefore {
				info := q.pop()
				q.MoveAllToActiveOrBackoffQueue(tlog, memberAdd, nil, nil, nil)
				q.fail(info, "GangScheduling")
				for q.Stats().Active == 0 {
					q.clock.Step(time.Second)
					q.flushBackoffCompleted(tlog)
				}
			}
			info := q.pop()
			queuedAt := info.Timestamp
			q.clock.Step(time.Second)
			later := pendingPod("later").UID("later").Obj()
			q.Add(tlog, later)
			if tc.arrivesInFlight {
				q.MoveAllToActiveOrBackoffQueue(tlog, memberAdd, nil, nil, nil)
			}
			info.UnschedulablePlugins = sets.New("GangScheduling")
			if err := q.AddGroupWaiting(tlog, info, q.SchedulingCycle()); err != nil {
				t.Fatalf("AddGroupWaiting: %v", err)
			}
			if got := q.where(m); got != tc.wantParked {
				t.Fatalf("handed back to wait, the member is in %s, want %s", got, tc.wantParked)
			}
			if info.Attempts != tc.wantAttempts {
				t.Errorf("%d attempts, want %d", info.Attempts, tc.wantAttempts)
			}
			if got := info.InitialAttemptTimestamp != nil; got != tc.failedBefore {
				t.Errorf("initial attempt recorded: %v, want %v", got, tc.failedBefore)
			}
			if !info.Timestamp.Equal(queuedAt) {
				t.Errorf("timestamp %v, want the one it was queued with, %v", info.Timestamp, queuedAt)
			}
			q.MoveAllToActiveOrBackoffQueue(tlog, memberAdd, nil, nil, nil)
			if got := q.where(m); got != tc.wantWoken {
				t.Fatalf("after another member arrived the member is in %s, want %s", got, tc.wantWoken)
			}
			if tc.wantWoken != "activeQ" {
				return
			}
			if first := q.pop(); first.Pod.UID != m.UID {
				t.Errorf("popped %s first, want the member queued before it", first.Pod.Name)
			}
		})
	}
}

// TestAddAll checks that AddAll queues each pod as Add does: PreEnqueue
// runs for each, and the pods it lets through are in activeQ.
func TestAddAll(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().gating("SchedulingGates")})
	pods := []*v1.Pod{
		member("m1").UID("m1").Obj(),
		member("m2").UID("m2").Gates("example.com/hold").Obj(),
		member("m3").UID("m3").Obj(),
	}
	q.AddAll(tlog, pods)
	if st := q.Stats(); st.Active != 2 || st.Gated != 1 {
		t.Fatalf("queue %+v, want two members in activeQ and one gated", st)
	}
	popped := sets.New(q.pop().Pod.Name, q.pop().Pod.Name)
	if want := sets.New("m1", "m3"); !popped.Equal(want) {
		t.Errorf("popped %v, want %v", sets.List(popped), sets.List(want))
	}
}
