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
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPopOrder(t *testing.T) {
	type added struct {
		pod   *v1.Pod
		after time.Duration // clock advance before the Add
	}
	tests := []struct {
		name string
		add  []added
		want []string
	}{
		{
			name: "higher priority first",
			add: []added{
				{pod: pendingPod("low").Priority(1).Obj()},
				{pod: pendingPod("high").Priority(100).Obj()},
				{pod: pendingPod("mid").Priority(10).Obj()},
			},
			want: []string{"high", "mid", "low"},
		},
		{
			name: "equal priority in arrival order",
			add: []added{
				{pod: pendingPod("a").Obj()},
				{pod: pendingPod("b").Obj(), after: time.Second},
				{pod: pendingPod("c").Obj(), after: time.Second},
			},
			want: []string{"a", "b", "c"},
		},
		{
			name: "priority beats age",
			add: []added{
				{pod: pendingPod("old").Priority(1).Obj()},
				{pod: pendingPod("young").Priority(2).Obj(), after: time.Hour},
			},
			want: []string{"young", "old"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
			for _, a := range tt.add {
				q.clock.Step(a.after)
				q.Add(tlog, a.pod)
			}
			var got []string
			for range tt.want {
				got = append(got, q.pop().Pod.Name)
			}
			if !equalStrings(got, tt.want) {
				t.Errorf("pop order %v, want %v", got, tt.want)
			}
			if q.SchedulingCycle() != int64(len(tt.want)) {
				t.Errorf("SchedulingCycle %d, want %d", q.SchedulingCycle(), len(tt.want))
			}
		})
	}
}

func TestPopSetsAttemptBookkeeping(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Obj()
	info := q.parkAfterFailure(pod, "X")
	if info.Attempts != 1 || info.InitialAttemptTimestamp == nil || !info.InitialAttemptTimestamp.Equal(t0) {
		t.Fatalf("after first pop: attempts %d, initial %v", info.Attempts, info.InitialAttemptTimestamp)
	}
	q.clock.Step(time.Minute)
	q.Activate(tlog, map[string]*v1.Pod{"default/p": pod})
	info = q.pop()
	if info.Attempts != 2 || !info.InitialAttemptTimestamp.Equal(t0) {
		t.Errorf("after second pop: attempts %d, initial %v", info.Attempts, info.InitialAttemptTimestamp)
	}
	if info.UnschedulablePlugins.Len() != 0 {
		t.Errorf("rejectors of the previous attempt kept: %v", info.UnschedulablePlugins)
	}
}

func TestPopBlocksUntilAdd(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	got := make(chan string, 1)
	go func() {
		info, err := q.Pop(tlog)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- info.Pod.Name
	}()
	select {
	case name := <-got:
		t.Fatalf("Pop returned %q on an empty queue", name)
	case <-time.After(20 * time.Millisecond):
	}
	q.Add(tlog, pendingPod("p").Obj())
	select {
	case name := <-got:
		if name != "p" {
			t.Errorf("Pop returned %q, want p", name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Pop did not wake up after Add")
	}
}

func TestCloseUnblocksPop(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	q.Run(tlog)
	const waiters = 3
	errs := make(chan error, waiters)
	for range waiters {
		go func() {
			_, err := q.Pop(tlog)
			errs <- err
		}()
	}
	q.Close()
	q.Close() // idempotent
	for range waiters {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrClosed) {
				t.Errorf("Pop error %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Pop still blocked after Close")
		}
	}
	if _, err := q.Pop(tlog); !errors.Is(err, ErrClosed) {
		t.Errorf("Pop after Close: %v, want ErrClosed", err)
	}
}

func TestBackoffDuration(t *testing.T) {
	tests := []struct {
		attempts     int
		initial, max time.Duration
		want         time.Duration
	}{
		{attempts: 0, initial: time.Second, max: 10 * time.Second, want: 0},
		{attempts: 1, initial: time.Second, max: 10 * time.Second, want: time.Second},
		{attempts: 2, initial: time.Second, max: 10 * time.Second, want: 2 * time.Second},
		{attempts: 3, initial: time.Second, max: 10 * time.Second, want: 4 * time.Second},
		{attempts: 4, initial: time.Second, max: 10 * time.Second, want: 8 * time.Second},
		{attempts: 5, initial: time.Second, max: 10 * time.Second, want: 10 * time.Second},
		{attempts: 500, initial: time.Second, max: 10 * time.Second, want: 10 * time.Second},
		{attempts: 3, initial: 3 * time.Second, max: 11 * time.Second, want: 11 * time.Second},
		{attempts: 2, initial: 5 * time.Second, max: 10 * time.Second, want: 10 * time.Second},
		{attempts: 3, initial: time.Second, max: 0, want: 0},
		{attempts: 3, initial: 20 * time.Second, max: 10 * time.Second, want: 10 * time.Second},
	}
	for _, tt := range tests {
		if got := backoffDuration(tt.attempts, tt.initial, tt.max); got != tt.want {
			t.Errorf("backoffDuration(%d, %v, %v) = %v, want %v", tt.attempts, tt.initial, tt.max, got, tt.want)
		}
	}
}

func TestBackoffPerProfile(t *testing.T) {
	tests := []struct {
		name      string
		scheduler string
		attempts  int
		// windowed is whether popping from backoffQ is on, so that the
		// backoff ends with its window.
		windowed bool
		// want is how long after the last failure the backoff ends.
		want time.Duration
	}{
		{name: "default profile, first failure", scheduler: defaultProfile, attempts: 1, want: time.Second},
		{name: "default profile, third failure", scheduler: defaultProfile, attempts: 3, want: 4 * time.Second},
		{name: "default profile, capped", scheduler: defaultProfile, attempts: 6, want: 10 * time.Second},
		{name: "slow profile, first failure", scheduler: "slow", attempts: 1, want: 5 * time.Second},
		{name: "slow profile, second failure", scheduler: "slow", attempts: 2, want: 7 * time.Second},
		{name: "no profile uses queue defaults", scheduler: "gone", attempts: 2, want: 4 * time.Second},
		{name: "windowed: first failure ends with its window", scheduler: defaultProfile, attempts: 1, windowed: true, want: 1700 * time.Millisecond},
		{name: "windowed: third failure", scheduler: defaultProfile, attempts: 3, windowed: true, want: 4700 * time.Millisecond},
		{name: "windowed: slow profile", scheduler: "slow", attempts: 2, windowed: true, want: 7700 * time.Millisecond},
		{name: "windowed: no backoff stays none", scheduler: "none", attempts: 2, windowed: true, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{
				defaultProfile: profile(),
				"slow":         profile().backoff(5*time.Second, 7*time.Second),
				"none":         profile().backoff(time.Second, 0),
			}, WithDefaultPodBackoff(2*time.Second, 30*time.Second), WithPopFromBackoff(tt.windowed))
			// Failures 300 ms into a window: a windowed backoff ends 700 ms after the plain one.
			q.clock.Step(300 * time.Millisecond)
			pod := pendingPod("p").SchedulerName(tt.scheduler).Obj()
			q.Add(tlog, pod)
			for i := 0; i < tt.attempts; i++ {
				for q.Stats().Active == 0 {
					q.clock.Step(time.Second)
					q.flushBackoffCompleted(tlog)
				}
				q.fail(q.pop()) // an Error: no rejecting plugin
			}
			start := q.clock.Now()
			if tt.want == 0 {
				if got := q.where(pod); got != "activeQ" {
					t.Fatalf("without backoff the pod is in %s, want activeQ", got)
				}
				return
			}
			if got := q.where(pod); got != "backoffQ" {
				t.Fatalf("after failure the pod is in %s, want backoffQ", got)
			}
			q.clock.SetTime(start.Add(tt.want - time.Millisecond))
			q.flushBackoffCompleted(tlog)
			if got := q.where(pod); got != "backoffQ" {
				t.Fatalf("1ms before the backoff ends the pod is in %s", got)
			}
			q.clock.SetTime(start.Add(tt.want))
			q.flushBackoffCompleted(tlog)
			if got := q.where(pod); got != "activeQ" {
				t.Errorf("when the backoff ends the pod is in %s, want activeQ", got)
			}
		})
	}
}

func TestErrorCountsConsecutively(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Obj()
	q.Add(tlog, pod)
	for want := 1; want <= 2; want++ {
		info := q.pop()
		q.fail(info)
		if info.ConsecutiveErrorsCount != want {
			t.Fatalf("after %d errors ConsecutiveErrorsCount = %d", want, info.ConsecutiveErrorsCount)
		}
		q.Activate(tlog, map[string]*v1.Pod{"p": pod})
	}
	info := q.pop()
	q.fail(info, "X")
	if info.ConsecutiveErrorsCount != 0 {
		t.Errorf("a rejection did not reset ConsecutiveErrorsCount: %d", info.ConsecutiveErrorsCount)
	}
}

func TestEventHints(t *testing.T) {
	tests := []struct {
		name      string
		prof      *fakeProfile
		rejectors []string
		pending   []string
		event     framework.ClusterEvent
		newObj    any
		// sinceFailure is how long after the failure the event arrives.
		sinceFailure time.Duration
		want         string
	}{
		{name: "hint says Queue, backoff running", prof: profile().on("X", nodeAdd, hintQueue), rejectors: []string{"X"}, event: nodeAdd, want: "backoffQ"},
		{name: "hint says Queue, backoff over", prof: profile().on("X", nodeAdd, hintQueue), rejectors: []string{"X"}, event: nodeAdd, sinceFailure: time.Minute, want: "activeQ"},
		{name: "hint says Skip", prof: profile().on("X", nodeAdd, hintSkip), rejectors: []string{"X"}, event: nodeAdd, want: "unschedulable"},
		{name: "hint fails: counts as Queue", prof: profile().on("X", nodeAdd, hintErr), rejectors: []string{"X"}, event: nodeAdd, want: "backoffQ"},
		{name: "no hint function: Queue", prof: profile().on("X", nodeAdd, nil), rejectors: []string{"X"}, event: nodeAdd, want: "backoffQ"},
		{name: "registered by another plugin only", prof: profile().on("X", nodeAdd, hintQueue).on("Y", podDelete, hintQueue), rejectors: []string{"X"}, event: podDelete, want: "unschedulable"},
		{name: "action does not match", prof: profile().on("X", nodeTaint, hintQueue), rejectors: []string{"X"}, event: nodeAdd, want: "unschedulable"},
		{name: "one of two rejectors queues", prof: profile().on("X", nodeAdd, hintSkip).on("Y", nodeAdd, hintQueue), rejectors: []string{"X", "Y"}, event: nodeAdd, want: "backoffQ"},
		{name: "wildcard registration", prof: profile().on("X", framework.ClusterEvent{Resource: framework.WildCard, ActionType: framework.All}, nil), rejectors: []string{"X"}, event: podDelete, want: "backoffQ"},
		{name: "pending plugin Queue skips backoff", prof: profile().on("P", nodeAdd, hintQueue), pending: []string{"P"}, event: nodeAdd, want: "activeQ"},
		{name: "pending plugin Skip, unschedulable plugin Queue", prof: profile().on("P", nodeAdd, hintSkip).on("X", nodeAdd, hintQueue), rejectors: []string{"X"}, pending: []string{"P"}, event: nodeAdd, want: "backoffQ"},
		{name: "force activate aimed at another pod", prof: profile(), rejectors: []string{"X"}, event: framework.EventForceActivate, newObj: pendingPod("other").Obj(), want: "unschedulable"},
		{name: "force activate aimed at the pod", prof: profile(), rejectors: []string{"X"}, event: framework.EventForceActivate, newObj: pendingPod("p").Obj(), want: "backoffQ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: tt.prof})
			pod := pendingPod("p").Obj()
			q.Add(tlog, pod)
			info := q.pop()
			info.PendingPlugins = sets.New(tt.pending...)
			q.fail(info, tt.rejectors...)
			if got := q.where(pod); got != "unschedulable" {
				t.Fatalf("after failure the pod is in %s", got)
			}
			q.clock.Step(tt.sinceFailure)
			q.MoveAllToActiveOrBackoffQueue(tlog, tt.event, nil, tt.newObj, nil)
			if got := q.where(pod); got != tt.want {
				t.Errorf("after %s the pod is in %s, want %s", tt.event.Label(), got, tt.want)
			}
		})
	}
}

func TestMovePreCheck(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", podDelete, nil)})
	low, high := pendingPod("low").Priority(1).Obj(), pendingPod("high").Priority(100).Obj()
	q.parkAfterFailure(low, "X")
	q.parkAfterFailure(high, "X")
	q.MoveAllToActiveOrBackoffQueue(tlog, podDelete, nil, nil, func(p *v1.Pod) bool { return prio(p) <= 10 })
	if got := q.where(low); got != "backoffQ" {
		t.Errorf("low-priority pod in %s, want backoffQ", got)
	}
	if got := q.where(high); got != "unschedulable" {
		t.Errorf("high-priority pod in %s, want unschedulable", got)
	}
}

func TestAssignedPodEvents(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().
		on("Affinity", podAdd, nil).
		on("Labels", framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.UpdatePodLabel}, nil)})
	a, b := pendingPod("a").Obj(), pendingPod("b").Obj()
	q.parkAfterFailure(a, "Affinity")
	q.parkAfterFailure(b, "Labels")
	bound := pendingPod("bound").NodeName("n1").Obj()
	q.AssignedPodAdded(tlog, bound)
	if q.where(a) != "backoffQ" || q.where(b) != "unschedulable" {
		t.Fatalf("after AssignedPodAdded: a in %s, b in %s", q.where(a), q.where(b))
	}
	relabelled := st.PodFrom(bound).Label("app", "x").Obj()
	q.AssignedPodUpdated(tlog, bound, relabelled, framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.UpdatePodLabel})
	if got := q.where(b); got != "backoffQ" {
		t.Errorf("after AssignedPodUpdated b in %s, want backoffQ", got)
	}
}

func TestInFlightEvents(t *testing.T) {
	tests := []struct {
		name string
		// before is offered before the pod is popped, during while it is in flight.
		before, during []framework.ClusterEvent
		rejectors      []string
		pending        []string
		want           string
	}{
		{name: "node added mid-cycle is not missed", during: []framework.ClusterEvent{nodeAdd}, rejectors: []string{"X"}, want: "backoffQ"},
		{name: "event before the pop does not count", before: []framework.ClusterEvent{nodeAdd}, rejectors: []string{"X"}, want: "unschedulable"},
		{name: "event for another plugin", during: []framework.ClusterEvent{podDelete}, rejectors: []string{"X"}, want: "unschedulable"},
		{name: "pending plugin queues immediately", during: []framework.ClusterEvent{podDelete, nodeAdd}, pending: []string{"P"}, want: "activeQ"},
		{name: "error failure backs off regardless", want: "backoffQ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil).on("P", nodeAdd, nil)})
			pod := pendingPod("p").Obj()
			q.Add(tlog, pod)
			// A second pod keeps the event log alive across the first pod's Done.
			other := pendingPod("other").Priority(-1).Obj()
			q.Add(tlog, other)
			for _, ev := range tt.before {
				q.MoveAllToActiveOrBackoffQueue(tlog, ev, nil, nil, nil)
			}
			info := q.pop()
			otherInfo := q.pop()
			for _, ev := range tt.during {
				q.MoveAllToActiveOrBackoffQueue(tlog, ev, nil, nil, nil)
			}
			info.PendingPlugins = sets.New(tt.pending...)
			q.fail(info, tt.rejectors...)
			if got := q.where(pod); got != tt.want {
				t.Errorf("pod in %s, want %s", got, tt.want)
			}
			q.Done(otherInfo.Pod.UID)
			if n := len(q.flight.events) - q.flight.eventHead; n != 0 || q.flight.len() != 0 {
				t.Errorf("in-flight bookkeeping not released: %d events, %d pods", n, q.flight.len())
			}
		})
	}
}

func TestInFlightUpdateOfThePodItself(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("Labels", podLabelUpd, nil)})
	pod := pendingPod("p").Obj()
	q.Add(tlog, pod)
	info := q.pop()
	q.Update(tlog, pod, st.PodFrom(pod).Label("fixed", "yes").ResourceVersion("2").Obj())
	q.fail(info, "Labels")
	if got := q.where(pod); got != "backoffQ" {
		t.Errorf("pod updated in flight is in %s, want backoffQ", got)
	}
}

func TestDeletedWhileInFlight(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Obj()
	q.Add(tlog, pod)
	info := q.pop()
	q.Delete(pod)
	q.fail(info, "X")
	if got := q.where(pod); got != "none" {
		t.Errorf("pod deleted in flight came back into %s", got)
	}
}

func TestAddUnschedulableRejectsDuplicates(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Obj()
	q.Add(tlog, pod)
	info := q.pop()
	q.Add(tlog, st.PodFrom(pod).Obj()) // ignored: in flight
	if got := q.where(pod); got != "inFlight" {
		t.Fatalf("re-added in-flight pod is in %s", got)
	}
	q.fail(info, "X")
	info.UnschedulablePlugins = sets.New("X")
	if err := q.AddUnschedulableIfNotPresent(tlog, info, 1); err == nil {
		t.Error("second AddUnschedulableIfNotPresent succeeded")
	}
}

func TestUnschedulableTimeoutFlush(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Obj()
	q.parkAfterFailure(pod, "X")
	q.clock.Step(DefaultUnschedulableTimeout)
	q.flushUnschedulableTimedOut(tlog)
	if got := q.where(pod); got != "unschedulable" {
		t.Fatalf("at exactly the timeout the pod is in %s", got)
	}
	q.clock.Step(time.Second)
	q.flushUnschedulableTimedOut(tlog)
	if got := q.where(pod); got != "activeQ" {
		t.Errorf("after the timeout the pod is in %s, want activeQ", got)
	}
}

func TestRunFlushesPeriodically(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()}, WithPopFromBackoff(false))
	parked, backedOff := pendingPod("parked").Obj(), pendingPod("backed-off").Obj()
	q.parkAfterFailure(parked, "X")
	q.Add(tlog, backedOff)
	q.fail(q.pop())
	q.Run(tlog)
	waitFor(t, func() bool { return q.clock.HasWaiters() })
	// Backoff of one second ends at the first backoff tick.
	q.clock.Step(time.Second)
	waitFor(t, func() bool { return q.where(backedOff) == "activeQ" })
	// The clock stops exactly at the timeout (the pod was parked a second
	// before the backoff step): a flush that reads the clock late must still
	// leave it.
	for elapsed := 2 * time.Second; elapsed <= DefaultUnschedulableTimeout; elapsed += time.Second {
		q.clock.Step(time.Second)
	}
	if got := q.where(parked); got != "unschedulable" {
		t.Fatalf("parked pod moved before the timeout, to %s", got)
	}
	q.clock.Step(30 * time.Second)
	waitFor(t, func() bool { return q.where(parked) == "activeQ" })
	late := pendingPod("late").Priority(100).Obj()
	q.parkAfterFailure(late, "X")
	// Close returns only once both flushers have exited.
	closed := make(chan struct{})
	go func() { q.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the flushers")
	}
	q.clock.Step(time.Hour)
	time.Sleep(10 * time.Millisecond)
	if got := q.where(late); got != "unschedulable" {
		t.Errorf("a flusher ran after Close and moved a pod to %s", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestGatedPod(t *testing.T) {
	prof := profile().gating("SchedulingGates").on("SchedulingGates", gatesGone, nil)
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: prof})
	gated := pendingPod("p").Gates("example.com/wait").Obj()
	q.Add(tlog, gated)
	if got, stats := q.where(gated), q.Stats(); got != "gated" || stats.Gated != 1 || stats.Active != 0 || stats.Unschedulable != 0 {
		t.Fatalf("gated pod in %s, stats %+v", got, stats)
	}
	runs := prof.preEnqueueRuns
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	if prof.preEnqueueRuns != runs || q.where(gated) != "gated" {
		t.Fatalf("event the gate does not care about re-ran PreEnqueue or moved the pod")
	}
	statusOnly := st.PodFrom(gated).Condition(unschedulable("SchedulingGated")).ResourceVersion("2").Obj()
	q.Update(tlog, gated, statusOnly)
	if prof.preEnqueueRuns != runs || q.where(gated) != "gated" {
		t.Fatalf("status-only update re-ran PreEnqueue or moved the pod")
	}
	stillGated := st.PodFrom(statusOnly).Label("a", "b").ResourceVersion("3").Obj()
	q.Update(tlog, statusOnly, stillGated)
	if prof.preEnqueueRuns != runs+1 || q.where(gated) != "gated" {
		t.Fatalf("update keeping the gate: runs %d, pod in %s", prof.preEnqueueRuns-runs, q.where(gated))
	}
	ungated := st.PodFrom(stillGated).ResourceVersion("4").Obj()
	ungated.Spec.SchedulingGates = nil
	q.Update(tlog, stillGated, ungated)
	if got, stats := q.where(gated), q.Stats(); got != "activeQ" || stats.Gated != 0 {
		t.Fatalf("ungated pod in %s, stats %+v", got, stats)
	}
	if info := q.pop(); info.Pod != ungated || info.GatingPlugin != "" {
		t.Errorf("popped %v with gating plugin %q", info.Pod.ResourceVersion, info.GatingPlugin)
	}
}

func TestGatedPodRetriedOnTimeout(t *testing.T) {
	prof := profile().gating("Gate")
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: prof})
	gated := pendingPod("p").Gates("g").Obj()
	q.Add(tlog, gated)
	runs := prof.preEnqueueRuns
	q.clock.Step(DefaultUnschedulableTimeout + time.Second)
	q.flushUnschedulableTimedOut(tlog)
	if prof.preEnqueueRuns != runs+1 || q.where(gated) != "gated" {
		t.Fatalf("timeout flush: runs %d, pod in %s", prof.preEnqueueRuns-runs, q.where(gated))
	}
	q.clock.Step(time.Minute)
	q.flushUnschedulableTimedOut(tlog)
	if prof.preEnqueueRuns != runs+1 {
		t.Errorf("gated pod re-checked again before another timeout")
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name   string
		update func(*v1.Pod) *v1.Pod
		want   string
	}{
		{name: "status only", update: func(p *v1.Pod) *v1.Pod {
			return st.PodFrom(p).Condition(unschedulable("Unschedulable")).ResourceVersion("2").Obj()
		}, want: "unschedulable"},
		{name: "label the rejector cares about", update: func(p *v1.Pod) *v1.Pod { return st.PodFrom(p).Label("a", "b").ResourceVersion("2").Obj() }, want: "backoffQ"},
		{name: "requests shrink, rejector cares about labels only", update: func(p *v1.Pod) *v1.Pod { return st.PodFrom(p).Req("cpu", "1").ResourceVersion("2").Obj() }, want: "unschedulable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("Labels", podLabelUpd, nil)})
			pod := pendingPod("p").Req("cpu", "2").Obj()
			q.parkAfterFailure(pod, "Labels")
			newPod := tt.update(pod)
			q.Update(tlog, pod, newPod)
			if got := q.where(pod); got != tt.want {
				t.Errorf("pod in %s, want %s", got, tt.want)
			}
			q.mu.Lock()
			stored := q.queued[keyOf(pod)].info.Pod
			q.mu.Unlock()
			if stored != newPod {
				t.Error("queue kept the old version of the pod")
			}
		})
	}
}

func TestUpdateReordersActiveQ(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	a, b := pendingPod("a").Priority(10).Obj(), pendingPod("b").Priority(5).Obj()
	q.Add(tlog, a)
	q.Add(tlog, b)
	q.Update(tlog, b, st.PodFrom(b).Priority(50).ResourceVersion("2").Obj())
	if got := q.pop().Pod.Name; got != "b" {
		t.Errorf("popped %s first, want b after its priority rose", got)
	}
}

func TestUpdateUnknownPodAddsIt(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Obj()
	q.Update(tlog, nil, pod)
	if got := q.where(pod); got != "activeQ" {
		t.Errorf("pod in %s, want activeQ", got)
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name  string
		place func(q *testQueue, pod *v1.Pod)
		want  string
	}{
		{name: "activeQ", place: func(q *testQueue, pod *v1.Pod) { q.Add(tlog, pod) }, want: "activeQ"},
		{name: "backoffQ", place: func(q *testQueue, pod *v1.Pod) { q.Add(tlog, pod); q.fail(q.pop()) }, want: "backoffQ"},
		{name: "unschedulable", place: func(q *testQueue, pod *v1.Pod) { q.parkAfterFailure(pod, "X") }, want: "unschedulable"},
		{name: "gated", place: func(q *testQueue, pod *v1.Pod) {
			gated := st.PodFrom(pod).Gates("g").Obj()
			*pod = *gated
			q.Add(tlog, pod)
		}, want: "gated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().gating("Gate")})
			pod := pendingPod("p").Nominated("n1").Obj()
			tt.place(q, pod)
			if got := q.where(pod); got != tt.want {
				t.Fatalf("pod in %s before delete, want %s", got, tt.want)
			}
			if len(q.NominatedPodsForNode("n1")) != 1 {
				t.Fatalf("pod not nominated before delete")
			}
			q.Delete(pod)
			if q.Has(pod) || q.where(pod) != "none" {
				t.Errorf("pod still in %s", q.where(pod))
			}
			if diff := cmp.Diff(Stats{}, q.Stats()); diff != "" {
				t.Errorf("stats after delete (-want +got):\n%s", diff)
			}
			if n := len(q.NominatedPodsForNode("n1")); n != 0 {
				t.Errorf("%d pods still nominated", n)
			}
		})
	}
}

func TestActivate(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	parked, backedOff, flying := pendingPod("parked").Obj(), pendingPod("backed-off").Obj(), pendingPod("flying").Obj()
	q.parkAfterFailure(parked, "X")
	q.Add(tlog, backedOff)
	q.fail(q.pop())
	q.Add(tlog, flying)
	flyingInfo := q.pop()
	q.Activate(tlog, map[string]*v1.Pod{"a": parked, "b": backedOff, "c": flying, "d": pendingPod("stranger").Obj()})
	if q.where(parked) != "activeQ" || q.where(backedOff) != "activeQ" {
		t.Errorf("after Activate: parked in %s, backed-off in %s", q.where(parked), q.where(backedOff))
	}
	q.fail(flyingInfo, "X")
	if got := q.where(flying); got != "backoffQ" {
		t.Errorf("pod activated in flight went to %s, want backoffQ", got)
	}
	if q.Stats().Active != 2 {
		t.Errorf("stats %+v", q.Stats())
	}
}

func TestPendingPodsAndStats(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().gating("Gate")})
	q.parkAfterFailure(pendingPod("u").Obj(), "X")
	q.Add(tlog, pendingPod("b").Obj())
	q.fail(q.pop())
	q.Add(tlog, pendingPod("g").Gates("x").Obj())
	q.Add(tlog, pendingPod("a").Obj())
	q.Add(tlog, pendingPod("f").Priority(100).Obj())
	q.pop()
	pods, summary := q.PendingPods()
	if len(pods) != 4 {
		t.Errorf("PendingPods returned %d pods, want 4", len(pods))
	}
	if want := "activeQ:1; backoffQ:1; unschedulablePods:1; gatedPods:1"; summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	if diff := cmp.Diff(Stats{Active: 1, Backoff: 1, Unschedulable: 1, Gated: 1, InFlight: 1}, q.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestNoProfileDoesNotPanic(t *testing.T) {
	q := newTestQueue(t, nil)
	pod := pendingPod("p").SchedulerName("nobody").Obj()
	q.Add(tlog, pod)
	info := q.pop()
	q.fail(info, "X")
	if got := q.where(pod); got != "unschedulable" {
		t.Fatalf("pod without profile in %s, want unschedulable", got)
	}
	// Without hints to ask, any event may help.
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	if got := q.where(pod); got != "backoffQ" {
		t.Errorf("after an event the pod without profile is in %s, want backoffQ", got)
	}
}

func TestNilLoggerSafe(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	q.Add(logr.Logger{}, pendingPod("p").Obj())
	if q.Stats().Active != 1 {
		t.Error("zero logger broke Add")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRejectorGroups(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("Affinity", nodeAdd, nil).on("Fit", podDelete, nil)})
	a1, a2, fit, both := pendingPod("a1").Obj(), pendingPod("a2").Obj(), pendingPod("fit").Obj(), pendingPod("both").Obj()
	q.parkAfterFailure(a1, "Affinity")
	q.parkAfterFailure(a2, "Affinity")
	q.parkAfterFailure(fit, "Fit")
	q.parkAfterFailure(both, "Fit", "Affinity")
	groups := func() map[string]int {
		q.mu.Lock()
		defer q.mu.Unlock()
		out := map[string]int{}
		members := 0
		for _, g := range q.groups {
			out[strings.Join(g.plugins, "+")] = len(g.members)
			members += len(g.members)
		}
		if members != len(q.unschedulable) {
			t.Errorf("groups hold %d pods, the unschedulable set %d", members, len(q.unschedulable))
		}
		return out
	}
	if diff := cmp.Diff(map[string]int{"Affinity": 2, "Fit": 1, "Affinity+Fit": 1}, groups()); diff != "" {
		t.Errorf("groups after parking (-want +got):\n%s", diff)
	}
	// A deleted pod frees room: only the groups Fit rejected move.
	q.MoveAllToActiveOrBackoffQueue(tlog, podDelete, nil, nil, nil)
	for pod, want := range map[*v1.Pod]string{a1: "unschedulable", a2: "unschedulable", fit: "backoffQ", both: "backoffQ"} {
		if got := q.where(pod); got != want {
			t.Errorf("after a pod deletion %s is in %s, want %s", pod.Name, got, want)
		}
	}
	if diff := cmp.Diff(map[string]int{"Affinity": 2}, groups()); diff != "" {
		t.Errorf("groups after the deletion (-want +got):\n%s", diff)
	}
	q.Delete(a1)
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	if got := q.where(a2); got != "backoffQ" {
		t.Errorf("after a node was added a2 is in %s, want backoffQ", got)
	}
	if diff := cmp.Diff(map[string]int{}, groups()); diff != "" {
		t.Errorf("groups once the set is empty (-want +got):\n%s", diff)
	}
}

func TestTakeMembers(t *testing.T) {
	tests := []struct {
		name      string
		gatingBy  string // the plugin the fake profile gates pods with gates in the name of
		gatedBy   string // TakeMembers' argument
		wantTaken []string
	}{
		{name: "gated members stay", gatingBy: "SchedulingGates", wantTaken: []string{"active"}},
		{name: "members another plugin gates stay", gatingBy: "SchedulingGates", gatedBy: "GangScheduling", wantTaken: []string{"active"}},
		{name: "members the group's plugin gates come along", gatingBy: "GangScheduling", gatedBy: "GangScheduling", wantTaken: []string{"active", "held"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().gating(tc.gatingBy)})
			active := pendingPod("active").UID("active").Obj()
			held := pendingPod("held").UID("held").Gates("example.com/wait").Obj()
			stranger := pendingPod("stranger").UID("stranger").Obj()
			q.Add(tlog, active)
			q.Add(tlog, held)
			q.Add(tlog, stranger)
			var got []string
			taken, unseen := q.TakeMembers(tlog, []*v1.Pod{active, held, pendingPod("absent").UID("absent").Obj()}, tc.gatedBy)
			if unseen != 1 {
				t.Errorf("%d pods counted as never handed to the queue, want 1 (the absent one)", unseen)
			}
			for _, qpi := range taken {
				got = append(got, qpi.Pod.Name)
				if qpi.Attempts != 1 {
					t.Errorf("%s: %d attempts, want 1", qpi.Pod.Name, qpi.Attempts)
				}
				q.Done(qpi.Pod.UID)
			}
			if !slices.Equal(got, tc.wantTaken) {
				t.Errorf("taken %v, want %v", got, tc.wantTaken)
			}
			if where := q.where(stranger); where != "activeQ" {
				t.Errorf("a pod not asked for is in %s, want activeQ", where)
			}
		})
	}
}
