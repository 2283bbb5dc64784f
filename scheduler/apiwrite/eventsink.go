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

package apiwrite

import (
	"context"
	"errors"
	"sync/atomic"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// Limits of the broadcaster's sink: how many event writes may be in flight,
// and how many more may wait for one of them before events are dropped.
const (
	maxEventWritesInFlight = 16
	maxEventWritesWaiting  = 1000
)

// errEventWritesFull is why an event was dropped: too many were waiting.
var errEventWritesFull = errors.New("too many events are waiting to be written; dropping this one")

// eventSink writes the scheduler's events through the events.k8s.io/v1 API.
// Creating one is a plain REST request: the typed client would spend
// reflection on encoding empty CreateOptions into no query parameters.
// Updates and patches, rare (event series), go through the typed client.
//
// client-go's broadcaster writes each event from a goroutine of its own, so
// a burst of failures (a new leader trying every pending pod at once) would
// put as many event writes in flight as there are pods: the apiserver then
// slows every other request, the Lease renewal among them, until the leader
// loses its Lease. The sink lets maxEventWritesInFlight writes through at a
// time, as the status patcher bounds its patches, and drops an event when
// maxEventWritesWaiting others already wait, as the broadcaster drops one
// when its queue is full.
type eventSink struct {
	events.EventSinkImpl
	rest       *rest.RESTClient
	slots      chan struct{}
	maxWaiting int64
	waiting    atomic.Int64
}

var _ events.EventSink = &eventSink{}

// NewEventSink returns the sink for the scheduler's events broadcaster:
// creates are plain REST requests, and at most maxEventWritesInFlight
// writes are in flight with maxEventWritesWaiting more waiting.
func NewEventSink(client kubernetes.Interface) events.EventSink { return newEventSink(client) }

// newEventSink returns a sink for client; with a client set that has no
// real REST client (a fake) every call goes through the typed client.
func newEventSink(client kubernetes.Interface) *eventSink {
	return newLimitedEventSink(client, maxEventWritesInFlight, maxEventWritesWaiting)
}

// newLimitedEventSink is newEventSink with inFlight writes at a time and
// at most waiting more waiting for them.
func newLimitedEventSink(client kubernetes.Interface, inFlight, waiting int) *eventSink {
	s := &eventSink{EventSinkImpl: events.EventSinkImpl{Interface: client.EventsV1()},
		slots: make(chan struct{}, inFlight), maxWaiting: int64(waiting)}
	if rc, ok := client.EventsV1().RESTClient().(*rest.RESTClient); ok && rc != nil {
		s.rest = rc
	}
	return s
}

// acquire waits for a write slot; release must follow a nil error.
func (s *eventSink) acquire(ctx context.Context) error {
	if s.waiting.Add(1) > s.maxWaiting {
		s.waiting.Add(-1)
		return errEventWritesFull
	}
	defer s.waiting.Add(-1)
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *eventSink) release() { <-s.slots }

// Create creates event and returns the apiserver's copy.
func (s *eventSink) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release()
	if s.rest == nil {
		return s.EventSinkImpl.Create(ctx, event)
	}
	if event.Namespace == "" {
		return nil, errors.New("can't create an event without a namespace")
	}
	created := &eventsv1.Event{}
	if err := s.rest.Post().Namespace(event.Namespace).Resource("events").Body(event).Do(ctx).Into(created); err != nil {
		return nil, err
	}
	return created, nil
}

// postingEventSink creates events with plain POSTs that read nothing back,
// for the Scheduled-event writer, which never looks at the created event.
// Updates and patches go through the typed client.
type postingEventSink struct {
	events.EventSinkImpl
	poster *Poster
}

// newScheduledEventSink returns the Scheduled-event writer's sink: a
// postingEventSink over client's real REST client, or an eventSink when the
// client set has none (a fake).
func newScheduledEventSink(client kubernetes.Interface) events.EventSink {
	if rc, ok := client.EventsV1().RESTClient().(*rest.RESTClient); ok {
		if p, err := NewPoster(rc); err == nil && p != nil {
			return &postingEventSink{EventSinkImpl: events.EventSinkImpl{Interface: client.EventsV1()}, poster: p}
		}
	}
	return newEventSink(client)
}

// Create posts event and returns it as given: the server's copy is not read.
func (s *postingEventSink) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	if event.Namespace == "" {
		return nil, errors.New("can't create an event without a namespace")
	}
	if err := s.poster.Post(ctx, "namespaces/"+event.Namespace+"/events", event, eventsResource, event.Name); err != nil {
		return nil, err
	}
	return event, nil
}

// Update updates event, within the sink's limits.
func (s *eventSink) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release()
	return s.EventSinkImpl.Update(ctx, event)
}

// Patch patches event, within the sink's limits.
func (s *eventSink) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release()
	return s.EventSinkImpl.Patch(ctx, event, data)
}

var eventsResource = schema.GroupResource{Group: eventsv1.GroupName, Resource: "events"}
