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
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

func TestInFlightLog(t *testing.T) {
	f := newInFlight()
	if f.record(nodeAdd, nil, nil, "") {
		t.Fatal("event recorded with no pod in flight")
	}
	f.start("a")
	f.record(nodeAdd, nil, nil, "")
	f.start("b")
	f.record(podDelete, nil, nil, "")
	f.record(nodeTaint, nil, nil, "b")

	labels := func(uid types.UID) []string {
		evs, ok := f.since(uid)
		if !ok {
			return nil
		}
		var out []string
		for _, e := range evs {
			out = append(out, e.event.Label())
		}
		return out
	}
	if got := labels("a"); len(got) != 3 {
		t.Errorf("a saw %v, want 3 events", got)
	}
	if got := labels("b"); len(got) != 2 || got[0] != podDelete.Label() {
		t.Errorf("b saw %v, want the 2 events after its pop", got)
	}
	f.done("a")
	if live := len(f.events) - f.eventHead; live != 2 {
		t.Errorf("after a is done %d events kept, want the 2 b still needs", live)
	}
	if f.start("b") {
		t.Error("restarting a pod in flight replaced its mark")
	}
	f.markGone("b")
	if !f.gone("b") || f.gone("a") {
		t.Error("gone marks wrong")
	}
	f.done("b")
	if f.len() != 0 || len(f.events) != 0 || f.gone("b") {
		t.Errorf("empty tracker keeps %d events, %d pods", len(f.events), f.len())
	}
	f.done("b") // idempotent
}

func TestInFlightLogStaysBounded(t *testing.T) {
	// Pods overlap so that the tracker is never empty and never resets.
	f := newInFlight()
	var prev types.UID
	for i := range 10_000 {
		uid := types.UID(strconv.Itoa(i))
		f.start(uid)
		f.record(nodeAdd, nil, nil, "")
		if prev != "" {
			f.done(prev)
		}
		prev = uid
	}
	if live := len(f.events) - f.eventHead; live != 1 || f.len() != 1 {
		t.Errorf("%d events and %d pods live, want 1 and 1", live, f.len())
	}
	if cap(f.events) > 64 || cap(f.order) > 64 {
		t.Errorf("tracker grew: events cap %d, order cap %d", cap(f.events), cap(f.order))
	}
}

func TestInFlightActivationRecordedOncePerFlight(t *testing.T) {
	f := newInFlight()
	a, b := pendingPod("a").Obj(), pendingPod("b").Obj()
	f.activate(a) // not in flight: nothing to record
	if len(f.events) != 0 {
		t.Fatalf("activation of a pod not in flight recorded %d events", len(f.events))
	}
	f.start(a.UID)
	f.start(b.UID)
	for range 3 {
		f.activate(a)
		f.activate(b)
	}
	for _, uid := range []types.UID{a.UID, b.UID} {
		evs, _ := f.since(uid)
		n := 0
		for _, e := range evs {
			if e.event == framework.EventForceActivate && e.only == uid {
				n++
			}
		}
		if n != 1 {
			t.Errorf("pod %s: %d activations recorded, want 1", uid, n)
		}
	}
	// A new flight of the pod is activated afresh.
	f.done(a.UID)
	f.start(a.UID)
	f.activate(a)
	evs, _ := f.since(a.UID)
	if len(evs) != 1 || evs[0].event != framework.EventForceActivate {
		t.Errorf("after a new pop the pod saw %d events, want its new activation", len(evs))
	}
}
