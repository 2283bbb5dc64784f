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
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

func TestEventSinkCreate(t *testing.T) {
	event := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p.1"},
		Reason:     "Scheduled", Action: "Binding", Type: v1.EventTypeNormal,
		Regarding: v1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p"},
	}
	tests := []struct {
		name        string
		contentType string
		status      int
		wantErr     bool
		// scheduled uses the Scheduled-event writer's sink, which returns
		// the event it posted rather than the server's copy.
		scheduled bool
	}{
		{name: "protobuf", contentType: runtime.ContentTypeProtobuf, status: http.StatusCreated},
		{name: "json", contentType: runtime.ContentTypeJSON, status: http.StatusCreated},
		{name: "rejected", contentType: runtime.ContentTypeJSON, status: http.StatusForbidden, wantErr: true},
		{name: "scheduled, protobuf", contentType: runtime.ContentTypeProtobuf, status: http.StatusCreated, scheduled: true},
		{name: "scheduled, json client set", contentType: runtime.ContentTypeJSON, status: http.StatusCreated, scheduled: true},
		{name: "scheduled, rejected", contentType: runtime.ContentTypeJSON, status: http.StatusForbidden, wantErr: true, scheduled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var method, path, query string
			var posted runtime.Object
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				method, path, query = r.Method, r.URL.Path, r.URL.RawQuery
				body, _ := io.ReadAll(r.Body)
				posted, _, _ = scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
				w.Header().Set("Content-Type", runtime.ContentTypeJSON)
				w.WriteHeader(tt.status)
				var reply runtime.Object = &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
					Status: metav1.StatusFailure, Code: int32(tt.status), Reason: metav1.StatusReasonForbidden}
				gv := metav1.SchemeGroupVersion
				if !tt.wantErr {
					created := event.DeepCopy()
					created.ResourceVersion = "42"
					reply, gv = created, eventsv1.SchemeGroupVersion
				}
				raw, _ := runtime.Encode(scheme.Codecs.LegacyCodec(gv), reply)
				_, _ = w.Write(raw)
			}))
			defer srv.Close()
			client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1, ContentConfig: rest.ContentConfig{ContentType: tt.contentType}})
			if err != nil {
				t.Fatal(err)
			}
			var sink events.EventSink
			if tt.scheduled {
				sink = newScheduledEventSink(client)
				if _, ok := sink.(*postingEventSink); !ok {
					t.Fatalf("the Scheduled-event sink is a %T, want a postingEventSink", sink)
				}
			} else {
				s := newEventSink(client)
				if s.rest == nil {
					t.Fatal("a real client set's REST client was not used")
				}
				sink = s
			}

			got, err := sink.Create(context.Background(), event)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Create error = %v, want error %v", err, tt.wantErr)
			}
			if method != http.MethodPost || path != "/apis/events.k8s.io/v1/namespaces/ns/events" || query != "" {
				t.Errorf("request = %s %s?%s, want POST /apis/events.k8s.io/v1/namespaces/ns/events with no query", method, path, query)
			}
			if p, ok := posted.(*eventsv1.Event); !ok || p.Name != "p.1" || p.Reason != "Scheduled" || p.Regarding.Name != "p" {
				t.Errorf("posted %#v, want the event", posted)
			}
			if tt.wantErr {
				if got != nil {
					t.Errorf("Create returned %v with an error", got)
				}
				return
			}
			if tt.scheduled {
				if got != event {
					t.Errorf("Create returned %+v, want the event it was given", got)
				}
				return
			}
			if got == nil || got.ResourceVersion != "42" || got.Reason != "Scheduled" {
				t.Errorf("Create returned %+v, want the server's copy", got)
			}
		})
	}
}

func TestEventSinkWithoutNamespace(t *testing.T) {
	for name, client := range map[string]kubernetes.Interface{
		"fake": fake.NewClientset(),
		"rest": kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://127.0.0.1:1"}),
	} {
		if _, err := newEventSink(client).Create(context.Background(), &eventsv1.Event{}); err == nil {
			t.Errorf("%s: Create of an event without a namespace: want error", name)
		}
		if _, err := newScheduledEventSink(client).Create(context.Background(), &eventsv1.Event{}); err == nil {
			t.Errorf("%s: the Scheduled-event sink's Create of an event without a namespace: want error", name)
		}
	}
}

// TestEventSinkBoundsWrites holds the apiserver's answers and checks that
// no more than the sink's in-flight writes reach it, that others wait for
// a slot, and that one past the waiting limit is dropped at once.
func TestEventSinkBoundsWrites(t *testing.T) {
	const inFlight, waiting = 2, 3
	reached := make(chan struct{}, 100)
	answer := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		<-answer
		raw, _ := runtime.Encode(scheme.Codecs.LegacyCodec(eventsv1.SchemeGroupVersion), &eventsv1.Event{})
		w.Header().Set("Content-Type", runtime.ContentTypeJSON)
		_, _ = w.Write(raw)
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	sink := newLimitedEventSink(client, inFlight, waiting)
	event := func(i int) *eventsv1.Event {
		return &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p.%d", i)}}
	}
	ctx := context.Background()
	errs := make(chan error, inFlight+waiting)
	for i := range inFlight + waiting {
		go func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = sink.Create(ctx, event(i))
			case 1:
				_, err = sink.Update(ctx, event(i))
			default:
				_, err = sink.Patch(ctx, event(i), []byte("{}"))
			}
			errs <- err
		}()
	}
	for range inFlight {
		<-reached
	}
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return sink.waiting.Load() == waiting, nil
	}); err != nil {
		t.Fatalf("%d writes wait, want %d", sink.waiting.Load(), waiting)
	}
	select {
	case <-reached:
		t.Fatalf("more than %d writes reached the apiserver at once", inFlight)
	default:
	}
	if _, err := sink.Create(ctx, event(99)); !errors.Is(err, errEventWritesFull) {
		t.Fatalf("a write past the waiting limit = %v, want errEventWritesFull", err)
	}
	close(answer)
	for range inFlight + waiting {
		if err := <-errs; err != nil {
			t.Errorf("a held write failed: %v", err)
		}
	}
	if got := len(reached); got != waiting {
		t.Errorf("%d writes reached the apiserver after the first %d, want %d", got, inFlight, waiting)
	}
}
