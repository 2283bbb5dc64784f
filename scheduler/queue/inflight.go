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
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// seenEvent is a cluster event observed while at least one pod was in flight.
type seenEvent struct {
	seq    uint64
	event  framework.ClusterEvent
	oldObj any
	newObj any
	// only, when set, restricts the event to the in-flight pod with this UID
	// (updates of the pod itself, activation requests).
	only types.UID
}

// popMark records when, in event sequence numbers, a pod was popped.
type popMark struct {
	uid types.UID
	seq uint64
}

// inFlight tracks pods between Pop and Done and the cluster events that arrive
// meanwhile, so that a pod which fails can be checked against every event it
// did not see. Every pod and event gets a sequence number; a pod cares about the
// events numbered at or after its own. Events older than the oldest pod in
// flight are dropped, so memory stays bounded by what in-flight pods still need.
type inFlight struct {
	next uint64
	pods map[types.UID]uint64
	// order holds pop marks in pop order; marks of finished pods are dropped lazily.
	order     []popMark
	orderHead int
	events    []seenEvent
	eventHead int
	// deleted holds in-flight pods deleted from the cluster meanwhile.
	deleted map[types.UID]struct{}
	// activated holds in-flight pods with an activation recorded since
	// they were popped: one is enough, however often it is asked for.
	activated map[types.UID]struct{}
}

func newInFlight() *inFlight {
	return &inFlight{pods: make(map[types.UID]uint64)}
}

func (f *inFlight) len() int { return len(f.pods) }

func (f *inFlight) has(uid types.UID) bool {
	_, ok := f.pods[uid]
	return ok
}

// start marks the pod as in flight. A pod already in flight keeps its older mark
// so that it misses no event.
func (f *inFlight) start(uid types.UID) bool {
	if _, ok := f.pods[uid]; ok {
		return false
	}
	f.pods[uid] = f.next
	f.order = append(f.order, popMark{uid: uid, seq: f.next})
	return true
}

// record remembers an event if any pod is in flight and reports whether it did.
func (f *inFlight) record(ev framework.ClusterEvent, oldObj, newObj any, only types.UID) bool {
	if len(f.pods) == 0 {
		return false
	}
	f.events = append(f.events, seenEvent{seq: f.next, event: ev, oldObj: oldObj, newObj: newObj, only: only})
	f.next++
	return true
}

// activate records an activation request for the in-flight pod, once per
// flight: a gang's Permit asks for its waiting members on every member it
// admits, which would otherwise record members × members events.
func (f *inFlight) activate(pod *v1.Pod) {
	if _, ok := f.activated[pod.UID]; ok {
		return
	}
	if f.record(framework.EventForceActivate, nil, pod, pod.UID) {
		if f.activated == nil {
			f.activated = map[types.UID]struct{}{}
		}
		f.activated[pod.UID] = struct{}{}
	}
}

// since returns the events recorded after the pod was popped. The slice is only
// valid until the tracker changes. ok is false if the pod is not in flight.
func (f *inFlight) since(uid types.UID) (events []seenEvent, ok bool) {
	mark, ok := f.pods[uid]
	if !ok {
		return nil, false
	}
	live := f.events[f.eventHead:]
	i := sort.Search(len(live), func(i int) bool { return live[i].seq >= mark })
	return live[i:], true
}

// done ends the pod's flight and forgets the events no remaining pod needs.
func (f *inFlight) done(uid types.UID) {
	if _, ok := f.pods[uid]; !ok {
		return
	}
	delete(f.pods, uid)
	delete(f.deleted, uid)
	delete(f.activated, uid)
	if len(f.pods) == 0 {
		clear(f.order)
		f.order, f.orderHead = f.order[:0], 0
		clear(f.events)
		f.events, f.eventHead = f.events[:0], 0
		return
	}
	for f.orderHead < len(f.order) {
		m := f.order[f.orderHead]
		if seq, ok := f.pods[m.uid]; ok && seq == m.seq {
			break
		}
		f.order[f.orderHead] = popMark{}
		f.orderHead++
	}
	oldest := f.order[f.orderHead].seq
	for f.eventHead < len(f.events) && f.events[f.eventHead].seq < oldest {
		f.events[f.eventHead] = seenEvent{}
		f.eventHead++
	}
	f.order, f.orderHead = compact(f.order, f.orderHead)
	f.events, f.eventHead = compact(f.events, f.eventHead)
}

// compact moves the live tail of s to the front once the dead head is at least
// half of it, keeping appends amortised O(1) without unbounded growth.
func compact[T any](s []T, head int) ([]T, int) {
	if head == 0 || head < len(s)-head {
		return s, head
	}
	n := copy(s, s[head:])
	clear(s[n:])
	return s[:n], 0
}

// markGone notes that an in-flight pod was deleted from the cluster.
func (f *inFlight) markGone(uid types.UID) {
	if _, ok := f.pods[uid]; !ok {
		return
	}
	if f.deleted == nil {
		f.deleted = make(map[types.UID]struct{})
	}
	f.deleted[uid] = struct{}{}
}

// gone reports whether the in-flight pod was deleted from the cluster.
func (f *inFlight) gone(uid types.UID) bool {
	_, ok := f.deleted[uid]
	return ok
}
