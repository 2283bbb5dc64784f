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

// Package foreign finds the pods of a schedulerName Berth serves that
// another scheduler bound.
package foreign

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Coexistence with another scheduler: a pod of a schedulerName that a live
// profile serves, seen going from pending to bound although this scheduler
// never sent it to be bound, was bound by someone else. So was a pod whose
// bind the apiserver refused because it was already bound, unless an
// earlier bind of this scheduler for it may have landed unseen (its reply
// lost). The pod's Scheduled event names who (its reporting controller);
// an event of Berth's own (a previous leader's bind) clears the suspicion.

// UnknownScheduler names the other scheduler when no Scheduled event says who bound the pod.
const UnknownScheduler = "unknown"

const (
	// foreignCheckDelay is how long after the binding the pod's Scheduled
	// event is looked for, so that the other scheduler has written it.
	foreignCheckDelay = 5 * time.Second
	// foreignStartupGrace is how long after this replica starts scheduling
	// a pod bound without any Scheduled event is not counted: the previous
	// leader's last binds may still arrive then.
	foreignStartupGrace = 30 * time.Second
	// sentBindingTTL is how long a bind this scheduler sent is remembered
	// when the pod is not seen bound: a bind whose reply was lost may still
	// have bound it.
	sentBindingTTL = 10 * time.Minute
	// maxForeignCandidates bounds the pods waiting to be checked; more are
	// dropped (and logged), which only delays the report.
	maxForeignCandidates = 1000
)

// Bindings is what this scheduler, while leading, saw of the pods of one
// schedulerName that another scheduler bound.
type Bindings struct {
	// Count is how many such pods it saw.
	Count int64
	// Scheduler names the other scheduler of the latest one: its
	// Scheduled event's reporting controller, or UnknownScheduler.
	Scheduler string
	// Pod is the latest one, as namespace/name.
	Pod string
	// First and Last are when the first and the latest were seen bound.
	First, Last time.Time
}

// candidate is a pod seen bound that this scheduler did not send to be bound.
type candidate struct {
	pod           types.NamespacedName
	uid           types.UID
	schedulerName string
	// profile is the SchedulingProfile serving schedulerName when the pod was bound.
	profile string
	seen    time.Time
}

// Counter counts the foreign bindings, by the profile serving their
// schedulerName and the scheduler that bound them.
type Counter interface {
	CountForeignBinding(profile, scheduler string)
}

// Watch remembers the binds this scheduler sent and finds out, off the
// scheduling loop, who bound the pods it did not.
type Watch struct {
	client  kubernetes.Interface
	clock   clock.WithTicker
	counter Counter

	mu sync.Mutex
	// sent holds, by pod UID, the binds this scheduler sent.
	sent      map[types.UID]sentBinding
	lastPrune time.Time
	// records are the foreign bindings seen, by schedulerName.
	records map[string]*Bindings
	// candidates wait to be checked against the pods' Scheduled events.
	candidates chan candidate
}

// New returns a watch that reads the pods' events with client, keeps time
// with clk and counts what it finds with counter.
func New(client kubernetes.Interface, clk clock.WithTicker, counter Counter) *Watch {
	return &Watch{
		client: client, clock: clk, counter: counter,
		sent:       make(map[types.UID]sentBinding),
		records:    make(map[string]*Bindings),
		candidates: make(chan candidate, maxForeignCandidates),
	}
}

// sentBinding is what is remembered of the binds sent for one pod.
type sentBinding struct {
	// at is when the latest was sent.
	at time.Time
	// unanswered is set when one of them got no answer from the apiserver
	// (a reset connection, a timeout): it may have bound the pod.
	unanswered bool
}

// Binding remembers that this scheduler is about to send the pod to be
// bound (through a Bind plugin or an extender); old entries are pruned
// once a minute.
func (w *Watch) Binding(uid types.UID) {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.sent[uid]
	b.at = now
	w.sent[uid] = b
	if now.Sub(w.lastPrune) < time.Minute {
		return
	}
	w.lastPrune = now
	for id, b := range w.sent {
		if now.Sub(b.at) > sentBindingTTL {
			delete(w.sent, id)
		}
	}
}

// BindFailed notes a bind of the pod that failed with err: one the
// apiserver did not answer may still have bound it.
func (w *Watch) BindFailed(uid types.UID, err error) {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if b, ok := w.sent[uid]; ok {
		b.unanswered = true
		w.sent[uid] = b
	}
}

// refusedAsBound reports whether a bind of the pod that the apiserver
// refused because the pod is bound proves that someone else bound it: no
// earlier bind of this scheduler for it went unanswered.
func (w *Watch) refusedAsBound(uid types.UID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.sent[uid].unanswered
}

// TakeSent reports whether this scheduler sent the pod to be bound, and forgets it.
func (w *Watch) TakeSent(uid types.UID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.sent[uid]
	delete(w.sent, uid)
	return ok
}

// Forget drops what is remembered of a deleted pod.
func (w *Watch) Forget(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.sent, uid)
}

// add records one foreign binding.
func (w *Watch) add(c candidate, scheduler string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.records[c.schedulerName]
	if r == nil {
		r = &Bindings{First: c.seen}
		w.records[c.schedulerName] = r
	}
	r.Count++
	r.Scheduler, r.Pod = scheduler, c.pod.String()
	if c.seen.After(r.Last) {
		r.Last = c.seen
	}
}

// Get returns the foreign bindings seen for schedulerName; false when none were.
func (w *Watch) Get(schedulerName string) (Bindings, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.records[schedulerName]
	if r == nil {
		return Bindings{}, false
	}
	return *r, true
}

// Waiting counts the pods waiting to be checked.
func (w *Watch) Waiting() int { return len(w.candidates) }

// LostBindRace is called when the apiserver refused this scheduler's bind
// of the pod, which profile placed, because the pod is bound already:
// unless an earlier bind of its own may have done it, another scheduler
// won the race, and the pod becomes a candidate. It reports whether it did.
func (w *Watch) LostBindRace(logger klog.Logger, pod *v1.Pod, profile string) bool {
	if !w.refusedAsBound(pod.UID) {
		return false
	}
	w.Candidate(logger, pod, profile)
	return true
}

// Candidate queues the pod, bound by someone else, to be checked; profile
// is the SchedulingProfile serving its schedulerName.
func (w *Watch) Candidate(logger klog.Logger, pod *v1.Pod, profile string) {
	c := candidate{
		pod: types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, uid: pod.UID,
		schedulerName: pod.Spec.SchedulerName, profile: profile, seen: w.clock.Now(),
	}
	select {
	case w.candidates <- c:
	default:
		logger.V(2).Info("Too many pods bound by another scheduler wait to be checked; dropping one", "pod", klog.KObj(pod))
	}
}

// Run checks each candidate once its Scheduled event has had time to be
// written, until ctx ends; started is when this replica started scheduling.
func (w *Watch) Run(ctx context.Context, started time.Time) {
	for {
		var c candidate
		select {
		case <-ctx.Done():
			return
		case c = <-w.candidates:
		}
		if wait := c.seen.Add(foreignCheckDelay).Sub(w.clock.Now()); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-w.clock.After(wait):
			}
		}
		w.check(ctx, c, started)
	}
}

// check decides whether another scheduler bound the candidate, from the
// pod's Scheduled events, and records it if so.
func (w *Watch) check(ctx context.Context, c candidate, started time.Time) {
	logger := klog.FromContext(ctx)
	selector := fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.uid", string(c.uid)),
		fields.OneTermEqualSelector("reason", scheduledReason),
	)
	var events []v1.Event
	list, err := w.client.CoreV1().Events(c.pod.Namespace).List(ctx, metav1.ListOptions{FieldSelector: selector.String()})
	if err != nil {
		// Who bound it stays unknown; the binding itself is the evidence.
		logger.V(2).Info("Could not read the Scheduled events of a pod bound by another scheduler", "pod", c.pod, "err", err)
	} else {
		events = list.Items
	}
	ours, reporter := scheduledBy(events, c.uid)
	if ours {
		// A previous leader of Berth bound it.
		return
	}
	if reporter == "" {
		if c.seen.Sub(started) < foreignStartupGrace {
			logger.V(2).Info("A pod was bound without a Scheduled event soon after this replica started scheduling; not counted", "pod", c.pod)
			return
		}
		reporter = UnknownScheduler
	}
	w.add(c, reporter)
	w.counter.CountForeignBinding(c.profile, reporter)
	logger.Info("A pod of a schedulerName Berth serves was bound by another scheduler", "pod", c.pod,
		"schedulerName", c.schedulerName, "profile", c.profile, "boundBy", reporter)
}

// scheduledReason is the reason of the event a scheduler records when it binds a pod.
const scheduledReason = "Scheduled"

// berthScheduledNote matches the end of the note of Berth's Scheduled events (see ScheduledNote).
var berthScheduledNote = regexp.MustCompile(` \(profile [^,()]+, generation -?[0-9]+\)$`)

// ScheduledNote is the note of the Scheduled event Berth records for a pod it
// bound: upstream's, plus the profile and generation that placed it.
func ScheduledNote(pod *v1.Pod, node, profile string, generation int64) string {
	return fmt.Sprintf("Successfully assigned %s/%s to %s (profile %s, generation %d)", pod.Namespace, pod.Name, node, profile, generation)
}

// scheduledBy reads the Scheduled events of the pod with uid: ours is true
// when one of them is Berth's, and reporter names the reporting controller
// of another one ("" when there is none).
func scheduledBy(events []v1.Event, uid types.UID) (ours bool, reporter string) {
	for i := range events {
		ev := &events[i]
		if ev.Reason != scheduledReason || ev.InvolvedObject.UID != uid {
			continue
		}
		if berthScheduledNote.MatchString(ev.Message) {
			return true, ""
		}
		switch {
		case ev.ReportingController != "":
			reporter = ev.ReportingController
		case ev.Source.Component != "":
			reporter = ev.Source.Component
		case reporter == "":
			reporter = UnknownScheduler
		}
	}
	return false, reporter
}

// alreadyAssigned matches the apiserver's refusal of a binding for a pod
// that is bound already, naming the node it is bound to.
var alreadyAssigned = regexp.MustCompile(`is already assigned to node "([^"]*)"`)

// BoundElsewhere reports whether err is the apiserver refusing a binding
// because the pod is bound already, and the node it names.
func BoundElsewhere(err error) (node string, ok bool) {
	if !apierrors.IsConflict(err) {
		return "", false
	}
	m := alreadyAssigned.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	return m[1], true
}
