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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// How a pod is placed before the pops of TestPopFromBackoff.
const (
	// toActive adds the pod: it waits in activeQ.
	toActive = iota
	// toRejected fails the pod's first attempt with plugin X while a node
	// was added: it waits in backoffQ, among the pods Pop may take early.
	toRejected
	// toErrored fails the pod's first attempt with an error: it waits out
	// its backoff in backoffQ.
	toErrored
)

// A member of the scheduling.k8s.io PodGroup "pg".
func member(name string) *st.PodBuilder { return pendingPod(name).SchedulingGroup("pg") }

// A member of Berth's PodGroup "gang".
func gangMember(name string) *st.PodBuilder { return pendingPod(name).Group("gang") }

// backOffRejected adds, pops and fails a pod as rejected by X while an event
// X registered arrives, so that it waits in backoffQ.
func (q *testQueue) backOffRejected(pod *v1.Pod) {
	q.t.Helper()
	q.Add(tlog, pod)
	info := q.pop()
	if info.Pod.Name != pod.Name {
		q.t.Fatalf("popped %s, want %s", info.Pod.Name, pod.Name)
	}
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	q.fail(info, "X")
	if got := q.where(pod); got != "backoffQ" {
		q.t.Fatalf("rejected pod %s is in %s, want backoffQ", pod.Name, got)
	}
}

// wouldBlock reports whether Pop would wait.
func (q *testQueue) wouldBlock() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active.len() == 0 && !q.mayPopBackoff()
}

// backoffEnd returns when the queued pod's backoff ends.
func (q *testQueue) backoffEnd(pod *v1.Pod) time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queued[keyOf(pod)].backoffUntil
}

func TestPopFromBackoff(t *testing.T) {
	type placed struct {
		pod *v1.Pod
		how int
		// at is when, after t0, the pod is placed.
		at time.Duration
	}
	tests := []struct {
		name string
		off  bool
		// place lists the pods in the order they are placed; the clock only goes forward.
		place []placed
		// want is the order of the pops until Pop would block.
		want []string
		// left are the pods still in backoffQ then.
		left []string
	}{
		{
			name: "activeQ first, then backoffQ by priority",
			place: []placed{
				{pod: pendingPod("low").Priority(1).Obj(), how: toRejected},
				{pod: pendingPod("high").Priority(10).Obj(), how: toRejected, at: 100 * time.Millisecond},
				{pod: pendingPod("active").Priority(0).Obj(), how: toActive, at: 200 * time.Millisecond},
			},
			want: []string{"active", "high", "low"},
		},
		{
			name: "an earlier window before a higher priority",
			place: []placed{
				{pod: pendingPod("early").Priority(1).Obj(), how: toRejected, at: 900 * time.Millisecond},
				{pod: pendingPod("late").Priority(10).Obj(), how: toRejected, at: 1100 * time.Millisecond},
			},
			want: []string{"early", "late"},
		},
		{
			name: "equal priority in one window: earlier failure first",
			place: []placed{
				{pod: pendingPod("first").Obj(), how: toRejected, at: 100 * time.Millisecond},
				{pod: pendingPod("second").Obj(), how: toRejected, at: 800 * time.Millisecond},
			},
			want: []string{"first", "second"},
		},
		{
			name: "pods that failed with an error wait out their backoff",
			place: []placed{
				{pod: pendingPod("errored").Priority(10).Obj(), how: toErrored},
				{pod: pendingPod("rejected").Obj(), how: toRejected},
			},
			want: []string{"rejected"},
			left: []string{"errored"},
		},
		{
			name: "members of a scheduling.k8s.io PodGroup wait out their backoff",
			place: []placed{
				{pod: member("member").Priority(10).Obj(), how: toRejected},
				{pod: pendingPod("plain").Obj(), how: toRejected},
			},
			want: []string{"plain"},
			left: []string{"member"},
		},
		{
			name: "members of Berth's PodGroups wait out their backoff",
			place: []placed{
				{pod: gangMember("member").Priority(10).Obj(), how: toRejected},
				{pod: pendingPod("plain").Obj(), how: toRejected},
			},
			want: []string{"plain"},
			left: []string{"member"},
		},
		{
			name: "off: backoffQ is never popped",
			off:  true,
			place: []placed{
				{pod: pendingPod("rejected").Obj(), how: toRejected},
				{pod: pendingPod("active").Obj(), how: toActive},
			},
			want: []string{"active"},
			left: []string{"rejected"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil)}, WithPopFromBackoff(!tt.off))
			for _, p := range tt.place {
				q.clock.SetTime(t0.Add(p.at))
				switch p.how {
				case toActive:
					q.Add(tlog, p.pod)
				case toRejected:
					q.backOffRejected(p.pod)
				case toErrored:
					q.Add(tlog, p.pod)
					q.fail(q.pop())
				}
			}
			var got []string
			for !q.wouldBlock() {
				info, err := q.Pop(tlog)
				if err != nil {
					t.Fatalf("Pop: %v", err)
				}
				got = append(got, info.Pod.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("pops %v, want %v", got, tt.want)
			}
			var left []string
			for _, p := range tt.place {
				if q.where(p.pod) == "backoffQ" {
					left = append(left, p.pod.Name)
				}
			}
			if !slices.Equal(left, tt.left) {
				t.Errorf("left in backoffQ %v, want %v", left, tt.left)
			}
		})
	}
}

func TestPoppedEarlyFromBackoff(t *testing.T) {
	reg, m := st.Metrics(t)
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil)}, WithMetrics(m))
	q.clock.Step(300 * time.Millisecond)
	pod := pendingPod("p").Obj()
	q.backOffRejected(pod)
	if got, want := q.backoffEnd(pod), t0.Add(2*time.Second); !got.Equal(want) {
		t.Fatalf("first backoff ends at %v, want the end of its window %v", got, want)
	}

	info := q.pop()
	if info.Pod != pod || info.Attempts != 2 || info.UnschedulablePlugins.Len() != 0 || q.SchedulingCycle() != 2 {
		t.Fatalf("popped %s with %d attempts, rejectors %v, cycle %d", info.Pod.Name, info.Attempts, info.UnschedulablePlugins, q.SchedulingCycle())
	}
	if diff := cmp.Diff(Stats{InFlight: 1}, q.Stats()); diff != "" {
		t.Fatalf("stats after the early pop (-want +got):\n%s", diff)
	}
	if got := incomingByQueueAndEvent(t, reg)["active/PopFromBackoffQ"]; got != 1 {
		t.Errorf("queue_incoming_pods_total{active,PopFromBackoffQ} = %v, want 1", got)
	}

	// The backoff it left early ends: nothing comes out of backoffQ again.
	q.clock.Step(time.Minute)
	q.flushBackoffCompleted(tlog)
	if got := q.where(pod); got != "inFlight" || !q.wouldBlock() {
		t.Fatalf("after its old backoff ended the pod is in %s (Pop would block: %v)", got, q.wouldBlock())
	}

	// Failing again, it backs off for its second attempt: 2 s, to the end of the window.
	failedAt := q.clock.Now()
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	q.fail(info, "X")
	if got, want := q.backoffEnd(pod), windowEnd(failedAt.Add(2*time.Second)); q.where(pod) != "backoffQ" || !got.Equal(want) {
		t.Errorf("after the second failure the pod is in %s until %v, want backoffQ until %v", q.where(pod), got, want)
	}
	if diff := cmp.Diff(Stats{Backoff: 1}, q.Stats()); diff != "" {
		t.Errorf("stats after the second failure (-want +got):\n%s", diff)
	}
	q.Done(pod.UID) // idempotent after AddUnschedulableIfNotPresent
	if q.Stats().InFlight != 0 {
		t.Errorf("pod still in flight after Done")
	}
}

func TestPopWakesWhenBackoffQFills(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil)})
	pod := pendingPod("p").Obj()
	q.parkAfterFailure(pod, "X")
	got := make(chan string, 1)
	go func() {
		info, err := q.Pop(tlog)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- info.Pod.Name
	}()
	// The node that may help moves the pod to backoffQ, which wakes Pop.
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	select {
	case name := <-got:
		if name != "p" {
			t.Errorf("Pop returned %q, want p", name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Pop did not wake up when a pod entered backoffQ")
	}
}

func TestCloseWinsOverBackoffQ(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil)})
	q.backOffRejected(pendingPod("p").Obj())
	q.Close()
	if _, err := q.Pop(tlog); !errors.Is(err, ErrClosed) {
		t.Errorf("Pop after Close: %v, want ErrClosed", err)
	}
}

func TestUpdateReordersBackoffQ(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil)})
	a, b := pendingPod("a").Priority(1).Obj(), pendingPod("b").Priority(2).Obj()
	q.backOffRejected(a)
	q.backOffRejected(b)
	q.Update(tlog, a, st.PodFrom(a).Priority(5).ResourceVersion("2").Obj())
	if got := q.pop().Pod.Name; got != "a" {
		t.Errorf("popped %s first, want a after its priority rose", got)
	}
}

func TestTakeMembersAfterPopFromBackoff(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, nil)})
	rejected := pendingPod("rejected").UID("rejected").Obj()
	errored := pendingPod("errored").UID("errored").Obj()
	parked := pendingPod("parked").UID("parked").Obj()
	q.backOffRejected(rejected)
	q.Add(tlog, errored)
	q.fail(q.pop())
	q.parkAfterFailure(parked, "Y")

	first := q.pop()
	if first.Pod != rejected {
		t.Fatalf("popped %s, want the rejected member", first.Pod.Name)
	}
	var taken []string
	infos, _ := q.TakeMembers(tlog, []*v1.Pod{errored, parked}, "")
	for _, qpi := range infos {
		taken = append(taken, qpi.Pod.Name)
	}
	if want := []string{"errored", "parked"}; !slices.Equal(taken, want) {
		t.Errorf("taken %v, want %v", taken, want)
	}
	if diff := cmp.Diff(Stats{InFlight: 3}, q.Stats()); diff != "" {
		t.Errorf("stats with the group in flight (-want +got):\n%s", diff)
	}
	q.clock.Step(time.Minute)
	q.flushBackoffCompleted(tlog)
	if !q.wouldBlock() {
		t.Errorf("a member came out of the queue again: %+v", q.Stats())
	}
	for _, p := range []*v1.Pod{rejected, errored, parked} {
		q.Done(p.UID)
	}
	if diff := cmp.Diff(Stats{}, q.Stats()); diff != "" {
		t.Errorf("stats after Done (-want +got):\n%s", diff)
	}
}

func TestRunFlushesBackoffAtWindowEnds(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{
		defaultProfile: profile(),
		"quick":        profile().backoff(500*time.Millisecond, time.Second),
	}, withFlushIntervals(time.Second, 0))
	// Both fail with an error 300 ms into the first window: quick's backoff
	// ends in that window, the other's in the next.
	q.clock.Step(300 * time.Millisecond)
	quick, slow := pendingPod("quick").SchedulerName("quick").Obj(), pendingPod("slow").Obj()
	q.Add(tlog, quick)
	q.fail(q.pop())
	q.Add(tlog, slow)
	q.fail(q.pop())
	q.Run(tlog)
	waitFor(t, q.clock.HasWaiters)
	// The flusher's timer fires at the end of the window, not a second after Run.
	q.clock.Step(700 * time.Millisecond)
	waitFor(t, func() bool { return q.where(quick) == "activeQ" })
	waitFor(t, q.clock.HasWaiters) // the flush is over and the next one waits
	if got := q.where(slow); got != "backoffQ" {
		t.Fatalf("at the end of the first window slow is in %s, want backoffQ", got)
	}
	q.clock.Step(time.Second)
	waitFor(t, func() bool { return q.where(slow) == "activeQ" })
}

// withFlushIntervals sets the periods of the backoffQ flush and of the
// unschedulable-timeout flush (0 stops that flush), for tests that step a
// fake clock through them.
func withFlushIntervals(backoffFlush, unschedulableFlush time.Duration) Option {
	return func(cfg *config) {
		cfg.backoffFlushEvery = backoffFlush
		cfg.unschedulableFlushEvery = unschedulableFlush
	}
}
