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

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"

	"github.com/berth-io/berth/scheduler/apipost"
)

// eventSink writes the scheduler's events through the events.k8s.io/v1 API.
// Creating one, which happens for every pod bound, is a plain REST request:
// the typed client would spend reflection on encoding empty CreateOptions
// into no query parameters. Updates and patches, rare (event series), go
// through the typed client.
type eventSink struct {
	events.EventSinkImpl
	rest *rest.RESTClient
}

var _ events.EventSink = &eventSink{}

// newEventSink returns a sink for client; with a client set that has no
// real REST client (a fake) every call goes through the typed client.
func newEventSink(client kubernetes.Interface) *eventSink {
	s := &eventSink{EventSinkImpl: events.EventSinkImpl{Interface: client.EventsV1()}}
	if rc, ok := client.EventsV1().RESTClient().(*rest.RESTClient); ok && rc != nil {
		s.rest = rc
	}
	return s
}

// Create creates event and returns the apiserver's copy.
func (s *eventSink) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
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
	poster *apipost.Poster
}

// newScheduledEventSink returns the Scheduled-event writer's sink: a
// postingEventSink over client's real REST client, or an eventSink when the
// client set has none (a fake).
func newScheduledEventSink(client kubernetes.Interface) events.EventSink {
	if rc, ok := client.EventsV1().RESTClient().(*rest.RESTClient); ok {
		if p, err := apipost.New(rc); err == nil && p != nil {
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

var eventsResource = schema.GroupResource{Group: eventsv1.GroupName, Resource: "events"}
