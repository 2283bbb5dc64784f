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
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

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
	berth := scheduledEvent(pod, "berth-sched", scheduledNote(pod, "n1", "bin-packing", 3))
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

// foreignRig is a scheduler whose loop counts as started, serving
// schedulerName "berth-sched" with profile "coexist", on a fake clock.
type foreignRig struct {
	s      *Scheduler
	client *fake.Clientset
	clock  *testingclock.FakeClock
}

func newForeignRig(t *testing.T, objs ...runtime.Object) *foreignRig {
	t.Helper()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	clk := testingclock.NewFakeClock(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
	client := fake.NewClientset(objs...)
	_, m := st.Metrics(t)
	s, err := New(ctx, client, WithSeed(1), inTree(), WithClock(clk), WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetProfile(ctx, "berth-sched", "coexist", 1, &v1alpha1.SchedulingProfileSpec{}); err != nil {
		t.Fatal(err)
	}
	s.loopStarted.Store(true)
	return &foreignRig{s: s, client: client, clock: clk}
}

// candidates drains the candidates waiting to be checked.
func (r *foreignRig) candidates() []foreignCandidate {
	var out []foreignCandidate
	for {
		select {
		case c := <-r.s.foreign.candidates:
			out = append(out, c)
		default:
			return out
		}
	}
}

func TestNoticeBinding(t *testing.T) {
	pending := st.Pod("web").SchedulerName("berth-sched").Obj()
	bound := st.PodFrom(pending).NodeName("n1").Obj()
	tests := []struct {
		name string
		// sent is true when the scheduler sent the pod to be bound itself.
		sent bool
		// standby is true on a replica whose loop has not started.
		standby bool
		// old and new are the update the informer delivers; old nil is an add of new.
		old, new *v1.Pod
		want     []foreignCandidate
	}{
		{name: "bound by another scheduler", old: pending, new: bound, want: []foreignCandidate{{
			pod: types.NamespacedName{Namespace: "default", Name: "web"}, uid: pending.UID,
			schedulerName: "berth-sched", profile: "coexist",
		}}},
		{name: "bound by Berth", sent: true, old: pending, new: bound},
		{name: "seen by a standby", standby: true, old: pending, new: bound},
		{name: "created bound", new: bound},
		{name: "updated while bound", old: bound, new: st.PodFrom(bound).Label("a", "b").Obj()},
		{name: "still pending", old: pending, new: st.PodFrom(pending).Label("a", "b").Obj()},
		{name: "a schedulerName Berth does not serve", old: st.PodFrom(pending).SchedulerName("default-scheduler").Obj(),
			new: st.PodFrom(bound).SchedulerName("default-scheduler").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newForeignRig(t)
			r.s.loopStarted.Store(!tt.standby)
			if tt.sent {
				r.s.foreign.binding(pending.UID, r.clock.Now())
			}
			h := pendingPodHandler{s: r.s, logger: logr.Discard()}
			if tt.old == nil {
				h.OnAdd(tt.new, false)
			} else {
				h.OnUpdate(tt.old, tt.new)
			}
			got := r.candidates()
			for i := range got {
				got[i].seen = time.Time{}
			}
			if len(got) != len(tt.want) || len(got) == 1 && got[0] != tt.want[0] {
				t.Errorf("candidates = %+v, want %+v", got, tt.want)
			}
			if tt.sent && r.s.foreign.takeSent(pending.UID) {
				t.Error("the bind Berth sent is still remembered after the pod was seen bound")
			}
		})
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
			events: []runtime.Object{scheduledEvent(pod, "berth-sched", scheduledNote(pod, "n1", "coexist", 1))}},
		{name: "no event, long after the start", sinceStart: time.Minute, wantBy: UnknownScheduler},
		{name: "no event, soon after the start", sinceStart: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newForeignRig(t, tt.events...)
			reg, m := st.Metrics(t)
			r.s.metrics = m
			started := r.clock.Now()
			c := foreignCandidate{
				pod: types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, uid: pod.UID,
				schedulerName: "berth-sched", profile: "coexist", seen: started.Add(tt.sinceStart),
			}
			r.s.checkForeignBinding(klog.NewContext(t.Context(), logr.Discard()), c, started)

			got, ok := r.s.ForeignBindings("berth-sched")
			counted := st.CounterByLabel(t, reg, "berth_foreign_bindings_total", "scheduler")
			if tt.wantBy == "" {
				if ok || len(counted) != 0 {
					t.Errorf("recorded %+v and counted %v, want nothing", got, counted)
				}
				return
			}
			want := ForeignBindings{Count: 1, Scheduler: tt.wantBy, Pod: "default/web", First: c.seen, Last: c.seen}
			if !ok || got != want {
				t.Errorf("ForeignBindings = %+v, want %+v", got, want)
			}
			if counted[tt.wantBy] != 1 || len(counted) != 1 {
				t.Errorf("berth_foreign_bindings_total by scheduler = %v, want 1 for %s", counted, tt.wantBy)
			}
		})
	}
}

func TestForeignBindingsAccumulate(t *testing.T) {
	r := newForeignRig(t)
	start := r.clock.Now()
	for i, name := range []string{"a", "b", "c"} {
		r.s.foreign.add(foreignCandidate{
			pod: types.NamespacedName{Namespace: "ns", Name: name}, schedulerName: "berth-sched",
			seen: start.Add(time.Duration(i) * time.Minute),
		}, "default-scheduler")
	}
	want := ForeignBindings{Count: 3, Scheduler: "default-scheduler", Pod: "ns/c", First: start, Last: start.Add(2 * time.Minute)}
	if got, _ := r.s.ForeignBindings("berth-sched"); got != want {
		t.Errorf("ForeignBindings = %+v, want %+v", got, want)
	}
	if _, ok := r.s.ForeignBindings("other"); ok {
		t.Error("a schedulerName without foreign bindings has a record")
	}
}

func TestSentBindsExpire(t *testing.T) {
	r := newForeignRig(t)
	w := r.s.foreign
	w.binding("old", r.clock.Now())
	r.clock.Step(sentBindingTTL + time.Minute)
	// A later bind prunes what is older than the TTL.
	w.binding("new", r.clock.Now())
	if w.takeSent("old") {
		t.Error("a bind sent longer ago than the TTL is still remembered")
	}
	if !w.takeSent("new") {
		t.Error("a fresh bind is forgotten")
	}
}

// TestBerthsOwnBindIsNotForeign binds a pod through the scheduling cycle and
// delivers the informer's update of it: no candidate comes of it.
func TestBerthsOwnBindIsNotForeign(t *testing.T) {
	pod := st.Pod("web").SchedulerName("berth-sched").Req("cpu", "100m").Obj()
	r := newForeignRig(t, pod)
	ctx := klog.NewContext(t.Context(), logr.Discard())
	alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
	r.s.cache.AddNode(logr.Discard(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: alloc}})
	r.s.queue.Add(logr.Discard(), pod)
	r.s.scheduleOne(ctx)
	r.s.bindings.Wait()
	// Had the cycle not sent the pod to be bound, its update would be a candidate.
	bound := st.PodFrom(pod).NodeName("n1").Obj()
	pendingPodHandler{s: r.s, logger: logr.Discard()}.OnUpdate(pod, bound)
	if got := r.candidates(); len(got) != 0 {
		t.Errorf("Berth's own bind became a candidate: %+v", got)
	}
}

// TestLostBindRace runs a pod's cycle whose bind the apiserver refuses:
// refused because another scheduler bound the pod first, the pod is that
// scheduler's (a candidate, nothing written to the pod, out of the queue
// and the cache), unless an earlier bind of Berth's went unanswered and
// may have bound it; any other refusal is a failed bind, retried.
func TestLostBindRace(t *testing.T) {
	alreadyBound := apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, "web",
		fmt.Errorf("pod web is already assigned to node %q", "n2"))
	tests := []struct {
		name string
		// unanswered is set when an earlier bind of Berth's got no answer.
		unanswered bool
		// reply is the apiserver's answer to the bind.
		reply error
		// wantCandidate is set when the pod is counted as another
		// scheduler's; wantRetried when it is back in the queue.
		wantCandidate, wantRetried bool
	}{
		{name: "another scheduler bound it first", reply: alreadyBound, wantCandidate: true},
		{name: "an earlier bind of Berth's went unanswered", unanswered: true, reply: alreadyBound, wantRetried: true},
		{name: "another conflict", reply: apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, "web", errors.New("the object has been modified")), wantRetried: true},
		{name: "a server error", reply: apierrors.NewInternalError(errors.New("etcd timeout")), wantRetried: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := st.Pod("web").UID("web").SchedulerName("berth-sched").Req("cpu", "100m").Obj()
			r := newForeignRig(t, pod)
			ctx := klog.NewContext(t.Context(), logr.Discard())
			if err := r.s.informerFactory.Core().V1().Pods().Informer().GetIndexer().Add(pod); err != nil {
				t.Fatal(err)
			}
			alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
			r.s.cache.AddNode(logr.Discard(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: alloc}})
			if tt.unanswered {
				r.s.foreign.binding(pod.UID, r.clock.Now())
				r.s.foreign.bindFailed(pod.UID, fmt.Errorf("binding pod default/web to node n1: %w", errors.New("connection reset by peer")))
			}
			r.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "binding" {
					return false, nil, nil
				}
				return true, nil, tt.reply
			})
			r.s.queue.Add(logr.Discard(), pod)
			r.client.ClearActions()
			r.s.scheduleOne(ctx)
			r.s.bindings.Wait()

			if got := len(r.candidates()); got != map[bool]int{true: 1}[tt.wantCandidate] {
				t.Errorf("%d candidates, want the pod counted: %v", got, tt.wantCandidate)
			}
			if got := r.s.queue.Has(pod); got != tt.wantRetried {
				t.Errorf("pod in the queue: %v, want %v", got, tt.wantRetried)
			}
			if assumed, _ := r.s.cache.IsAssumedPod(pod); assumed {
				t.Error("the pod is still assumed in the cache")
			}
			statusWritten := false
			for _, a := range r.client.Actions() {
				if a.GetResource().Resource == "pods" && a.GetSubresource() == "status" {
					statusWritten = true
				}
			}
			if statusWritten != tt.wantRetried {
				t.Errorf("the pod's status was written: %v, want %v", statusWritten, tt.wantRetried)
			}
		})
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
			node, ok := boundElsewhere(tt.err)
			if node != tt.wantNode || ok != tt.wantOK {
				t.Errorf("boundElsewhere = %q, %v; want %q, %v", node, ok, tt.wantNode, tt.wantOK)
			}
		})
	}
}
