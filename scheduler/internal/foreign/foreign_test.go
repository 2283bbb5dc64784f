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

package foreign

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// noCounter counts nothing.
type noCounter struct{}

func (noCounter) CountForeignBinding(string, string) {}

// newWatch is a watch on a fake client holding objs, with a fake clock.
func newWatch(t *testing.T, objs ...runtime.Object) (*Watch, *testingclock.FakeClock) {
	t.Helper()
	clk := testingclock.NewFakeClock(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
	return New(fake.NewClientset(objs...), clk, noCounter{}), clk
}

// scheduledEvent is a pod's Scheduled event as reporter writes it, with the note.
func scheduledEvent(pod *v1.Pod, reporter, note string) *v1.Event {
	return &v1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name + "." + reporter},
		InvolvedObject:      v1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Reason:              scheduledReason,
		Message:             note,
		ReportingController: reporter,
	}
}

func TestScheduledBy(t *testing.T) {
	pod := st.Pod("web").Obj()
	other := st.Pod("other").Obj()
	berth := scheduledEvent(pod, "berth-sched", ScheduledNote(pod, "n1", "bin-packing", 3))
	kube := scheduledEvent(pod, "default-scheduler", "Successfully assigned default/web to n1")
	legacy := scheduledEvent(pod, "", "Successfully assigned default/web to n1")
	legacy.Source.Component = "my-scheduler"
	anonymous := scheduledEvent(pod, "", "bound")
	failed := scheduledEvent(pod, "default-scheduler", "0/3 nodes are available")
	failed.Reason = "FailedScheduling"
	tests := []struct {
		name         string
		events       []*v1.Event
		wantOurs     bool
		wantReporter string
	}{
		{name: "no event"},
		{name: "Berth's own event", events: []*v1.Event{berth}, wantOurs: true},
		{name: "kube-scheduler's event names it", events: []*v1.Event{kube}, wantReporter: "default-scheduler"},
		{name: "a core/v1 event names its source", events: []*v1.Event{legacy}, wantReporter: "my-scheduler"},
		{name: "an event naming nobody", events: []*v1.Event{anonymous}, wantReporter: UnknownScheduler},
		{name: "Berth's event wins over another", events: []*v1.Event{kube, berth}, wantOurs: true},
		{name: "another pod's event is not read", events: []*v1.Event{scheduledEvent(other, "default-scheduler", "x")}},
		{name: "other reasons are not read", events: []*v1.Event{failed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var evs []v1.Event
			for _, ev := range tt.events {
				evs = append(evs, *ev)
			}
			ours, reporter := scheduledBy(evs, pod.UID)
			if ours != tt.wantOurs || reporter != tt.wantReporter {
				t.Errorf("scheduledBy = %v, %q; want %v, %q", ours, reporter, tt.wantOurs, tt.wantReporter)
			}
		})
	}
}

// TestCandidate checks what is kept of a pod bound by someone else.
func TestCandidate(t *testing.T) {
	w, clk := newWatch(t)
	pod := st.Pod("web").UID("web-uid").SchedulerName("berth-sched").NodeName("n1").Obj()
	w.Candidate(logr.Discard(), pod, "coexist")
	if w.Waiting() != 1 {
		t.Fatalf("%d candidates waiting, want 1", w.Waiting())
	}
	want := candidate{pod: types.NamespacedName{Namespace: "default", Name: "web"}, uid: "web-uid", schedulerName: "berth-sched", profile: "coexist", seen: clk.Now()}
	if got := <-w.candidates; got != want {
		t.Errorf("candidate = %+v, want %+v", got, want)
	}
}

func TestCheckForeignBinding(t *testing.T) {
	pod := st.Pod("web").SchedulerName("berth-sched").NodeName("n1").Obj()
	tests := []struct {
		name   string
		events []runtime.Object
		// sinceStart is how long after the loop started the pod was seen bound.
		sinceStart time.Duration
		// wantBy names the other scheduler recorded; "" means nothing is.
		wantBy string
	}{
		{name: "kube-scheduler's Scheduled event", sinceStart: time.Second,
			events: []runtime.Object{scheduledEvent(pod, "default-scheduler", "Successfully assigned default/web to n1")},
			wantBy: "default-scheduler"},
		{name: "a previous Berth leader's Scheduled event", sinceStart: time.Second,
			events: []runtime.Object{scheduledEvent(pod, "berth-sched", ScheduledNote(pod, "n1", "coexist", 1))}},
		{name: "no event, long after the start", sinceStart: time.Minute, wantBy: UnknownScheduler},
		{name: "no event, soon after the start", sinceStart: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, clk := newWatch(t, tt.events...)
			reg, m := st.Metrics(t)
			w.counter = m
			started := clk.Now()
			c := candidate{
				pod: types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, uid: pod.UID,
				schedulerName: "berth-sched", profile: "coexist", seen: started.Add(tt.sinceStart),
			}
			w.check(klog.NewContext(t.Context(), logr.Discard()), c, started)

			got, ok := w.Get("berth-sched")
			counted := st.CounterByLabel(t, reg, "berth_foreign_bindings_total", "scheduler")
			if tt.wantBy == "" {
				if ok || len(counted) != 0 {
					t.Errorf("recorded %+v and counted %v, want nothing", got, counted)
				}
				return
			}
			want := Bindings{Count: 1, Scheduler: tt.wantBy, Pod: "default/web", First: c.seen, Last: c.seen}
			if !ok || got != want {
				t.Errorf("Get = %+v, want %+v", got, want)
			}
			if counted[tt.wantBy] != 1 || len(counted) != 1 {
				t.Errorf("berth_foreign_bindings_total by scheduler = %v, want 1 for %s", counted, tt.wantBy)
			}
		})
	}
}

func TestBindingsAccumulate(t *testing.T) {
	w, clk := newWatch(t)
	start := clk.Now()
	for i, name := range []string{"a", "b", "c"} {
		w.add(candidate{
			pod: types.NamespacedName{Namespace: "ns", Name: name}, schedulerName: "berth-sched",
			seen: start.Add(time.Duration(i) * time.Minute),
		}, "default-scheduler")
	}
	want := Bindings{Count: 3, Scheduler: "default-scheduler", Pod: "ns/c", First: start, Last: start.Add(2 * time.Minute)}
	if got, _ := w.Get("berth-sched"); got != want {
		t.Errorf("Get = %+v, want %+v", got, want)
	}
	if _, ok := w.Get("other"); ok {
		t.Error("a schedulerName without foreign bindings has a record")
	}
}

func TestSentBindsExpire(t *testing.T) {
	w, clk := newWatch(t)
	w.Binding("old")
	clk.Step(sentBindingTTL + time.Minute)
	// A later bind prunes what is older than the TTL.
	w.Binding("new")
	if w.TakeSent("old") {
		t.Error("a bind sent longer ago than the TTL is still remembered")
	}
	if !w.TakeSent("new") {
		t.Error("a fresh bind is forgotten")
	}
}

func TestBoundElsewhere(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods/binding"}
	tests := []struct {
		name     string
		err      error
		wantNode string
		wantOK   bool
	}{
		{name: "the apiserver's refusal", err: apierrors.NewConflict(gr, "web", fmt.Errorf("pod web is already assigned to node %q", "n2")), wantNode: "n2", wantOK: true},
		{name: "wrapped by the binder", err: fmt.Errorf("binding pod default/web to node n1: %w", apierrors.NewConflict(gr, "web", fmt.Errorf("pod web is already assigned to node %q", "n2"))), wantNode: "n2", wantOK: true},
		{name: "another conflict", err: apierrors.NewConflict(gr, "web", errors.New("the object has been modified"))},
		{name: "the words without a conflict", err: fmt.Errorf("pod web is already assigned to node %q", "n2")},
		{name: "no error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node, ok := BoundElsewhere(tt.err)
			if node != tt.wantNode || ok != tt.wantOK {
				t.Errorf("boundElsewhere = %q, %v; want %q, %v", node, ok, tt.wantNode, tt.wantOK)
			}
		})
	}
}
