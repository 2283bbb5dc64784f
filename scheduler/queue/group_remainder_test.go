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
