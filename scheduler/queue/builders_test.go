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
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const defaultProfile = "default-scheduler"

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// pendingPod starts a pod of the default profile at resourceVersion 1.
func pendingPod(name string) *st.PodBuilder {
	return st.Pod(name).ResourceVersion("1").SchedulerName(defaultProfile)
}

// unschedulable is a PodScheduled=False condition with the reason.
func unschedulable(reason string) v1.PodCondition {
	return v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reason}
}

// fakeProfile implements ProfileHooks.
type fakeProfile struct {
	initial, max time.Duration
	hints        map[string][]framework.ClusterEventWithHint
	// gatedBy gates pods with scheduling gates, in the name of this plugin, when set.
	gatedBy        string
	preEnqueueRuns int
	// gates are further PreEnqueue plugins, by name, run in this order
	// after gatedBy's: each gates the pods it returns true for.
	gates []namedGate
}

// namedGate is a PreEnqueue plugin of a fakeProfile.
type namedGate struct {
	name  string
	gates func(*v1.Pod) bool
}

func (f *fakeProfile) RunPreEnqueuePlugins(_ context.Context, pod *v1.Pod, skip ...string) *framework.Status {
	f.preEnqueueRuns++
	if f.gatedBy != "" && len(pod.Spec.SchedulingGates) > 0 {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for gates").WithPlugin(f.gatedBy)
	}
	for _, g := range f.gates {
		if !slices.Contains(skip, g.name) && g.gates(pod) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "gated").WithPlugin(g.name)
		}
	}
	return nil
}

func (f *fakeProfile) QueueingHintMap() map[string][]framework.ClusterEventWithHint { return f.hints }

func (f *fakeProfile) PodBackoff() (time.Duration, time.Duration) { return f.initial, f.max }

// profile builds a fakeProfile with 1s/10s backoff.
func profile() *fakeProfile {
	return &fakeProfile{initial: time.Second, max: 10 * time.Second, hints: map[string][]framework.ClusterEventWithHint{}}
}

func (f *fakeProfile) backoff(initial, maxBackoff time.Duration) *fakeProfile {
	f.initial, f.max = initial, maxBackoff
	return f
}

// on registers an event for a plugin with a hint function (nil: always Queue).
func (f *fakeProfile) on(plugin string, ev framework.ClusterEvent, fn framework.QueueingHintFn) *fakeProfile {
	f.hints[plugin] = append(f.hints[plugin], framework.ClusterEventWithHint{Event: ev, QueueingHintFn: fn})
	return f
}

func (f *fakeProfile) gating(plugin string) *fakeProfile { f.gatedBy = plugin; return f }

// Common events and hints.
var (
	nodeAdd     = framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}
	nodeTaint   = framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeTaint}
	podDelete   = framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}
	podAdd      = framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add}
	podLabelUpd = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodLabel}
	gatesGone   = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodSchedulingGatesEliminated}
)

func hintQueue(logr.Logger, *v1.Pod, any, any) (framework.QueueingHint, error) {
	return framework.Queue, nil
}

func hintSkip(logr.Logger, *v1.Pod, any, any) (framework.QueueingHint, error) {
	return framework.QueueSkip, nil
}

func hintErr(logr.Logger, *v1.Pod, any, any) (framework.QueueingHint, error) {
	return framework.QueueSkip, context.DeadlineExceeded
}

// byPriority is PrioritySort: higher priority first, then earlier timestamp.
func byPriority(a, b *framework.QueuedPodInfo) bool {
	pa, pb := prio(a.Pod), prio(b.Pod)
	if pa != pb {
		return pa > pb
	}
	return a.Timestamp.Before(b.Timestamp)
}

func prio(p *v1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// testQueue is a queue on a fake clock with named profiles.
type testQueue struct {
	*PriorityQueue
	t     *testing.T
	clock *testingclock.FakeClock
}

func newTestQueue(t *testing.T, profiles map[string]*fakeProfile, opts ...Option) *testQueue {
	t.Helper()
	clk := testingclock.NewFakeClock(t0)
	lookup := func(name string) ProfileHooks {
		if p, ok := profiles[name]; ok {
			return p
		}
		return nil
	}
	q := New(byPriority, lookup, append([]Option{WithClock(clk)}, opts...)...)
	t.Cleanup(q.Close)
	return &testQueue{PriorityQueue: q, t: t, clock: clk}
}

var tlog = logr.Discard()

// pop pops without blocking: the test fails if Pop would wait.
func (q *testQueue) pop() *framework.QueuedPodInfo {
	q.t.Helper()
	if q.wouldBlock() {
		q.t.Fatalf("pop: nothing to pop")
	}
	info, err := q.Pop(tlog)
	if err != nil {
		q.t.Fatalf("pop: %v", err)
	}
	return info
}

// fail hands a popped pod back as rejected by the plugins (none: an Error).
func (q *testQueue) fail(info *framework.QueuedPodInfo, plugins ...string) {
	q.t.Helper()
	info.UnschedulablePlugins = sets.New(plugins...)
	if err := q.AddUnschedulableIfNotPresent(tlog, info, q.SchedulingCycle()); err != nil {
		q.t.Fatalf("AddUnschedulableIfNotPresent: %v", err)
	}
}

// where names the sub-queue holding the pod, "inFlight" or "none".
func (q *testQueue) where(pod *v1.Pod) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.queued[keyOf(pod)]; ok {
		if e.at == inUnschedulable && e.gated {
			return "gated"
		}
		return e.at.String()
	}
	if q.flight.has(pod.UID) {
		return "inFlight"
	}
	return "none"
}

// parkAfterFailure adds, pops and fails a pod so that it waits in the unschedulable set.
func (q *testQueue) parkAfterFailure(pod *v1.Pod, plugins ...string) *framework.QueuedPodInfo {
	q.t.Helper()
	q.Add(tlog, pod)
	info := q.pop()
	q.fail(info, plugins...)
	if got := q.where(pod); got != "unschedulable" {
		q.t.Fatalf("pod %s is in %s, want unschedulable", pod.Name, got)
	}
	return info
}
