package scheduler

import (
	"context"
	"errors"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
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
