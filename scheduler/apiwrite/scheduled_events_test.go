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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// scriptedSink answers creates with errs in turn, then succeeds, and keeps
// what was created.
type scriptedSink struct {
	events.EventSinkImpl
	mu       sync.Mutex
	errs     []error
	attempts int
	created  []*eventsv1.Event
}

func (s *scriptedSink) Create(_ context.Context, ev *eventsv1.Event) (*eventsv1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return nil, err
	}
	s.created = append(s.created, ev)
	return ev, nil
}

func TestScheduledEventWriterWrite(t *testing.T) {
	unavailable := apierrors.NewServiceUnavailable("busy")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "e", errors.New("no"))
	tests := []struct {
		name         string
		errs         []error
		wantAttempts int
		wantCreated  int
	}{
		{name: "first try", wantAttempts: 1, wantCreated: 1},
		{name: "after a transient failure", errs: []error{unavailable}, wantAttempts: 2, wantCreated: 1},
		{name: "gives up after three transient failures", errs: []error{unavailable, unavailable, unavailable}, wantAttempts: 3},
		{name: "a refusal is not retried", errs: []error{forbidden}, wantAttempts: 1},
		{name: "an existing event is done", errs: []error{apierrors.NewAlreadyExists(schema.GroupResource{Resource: "events"}, "e")}, wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1700000000, 0))
			sink := &scriptedSink{errs: tt.errs}
			reg, m := st.Metrics(t)
			w := newScheduledEventWriter(sink, clk, m)
			pod := testPod("p")
			pod.ResourceVersion = "7"
			done := make(chan struct{})
			go func() {
				defer close(done)
				w.Record(context.Background(), "default-scheduler", pod, strings.Repeat("x", 2000))
			}()
			for finished := false; !finished; {
				select {
				case <-done:
					finished = true
				case <-time.After(time.Millisecond):
					if clk.HasWaiters() {
						clk.Step(time.Minute)
					}
				}
			}
			if sink.attempts != tt.wantAttempts || len(sink.created) != tt.wantCreated {
				t.Fatalf("attempts %d, created %d; want %d, %d", sink.attempts, len(sink.created), tt.wantAttempts, tt.wantCreated)
			}
			// An event that exists already counts as written.
			wantWritten := int64(tt.wantCreated)
			if tt.name == "an existing event is done" {
				wantWritten = 1
			}
			if got := eventCounts(t, reg); got[metrics.EventWritten] != float64(wantWritten) || got[metrics.EventDropped] != float64(1-wantWritten) {
				t.Errorf("events counted %v; want %d written, %d dropped", got, wantWritten, 1-wantWritten)
			}
			if tt.wantCreated == 0 {
				return
			}
			got := sink.created[0]
			want := v1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "ns", Name: "p", UID: "p", ResourceVersion: "7"}
			if got.Regarding != want || got.Reason != "Scheduled" || got.Action != "Binding" || got.Type != v1.EventTypeNormal {
				t.Errorf("event = %+v", got)
			}
			if wantName := fmt.Sprintf("p.%x", time.Unix(1700000000, 0).UnixNano()); got.Namespace != "ns" || got.Name != wantName {
				t.Errorf("event name %s/%s", got.Namespace, got.Name)
			}
			if got.ReportingController != "default-scheduler" || !strings.HasPrefix(got.ReportingInstance, "default-scheduler-") {
				t.Errorf("reporting %q, %q", got.ReportingController, got.ReportingInstance)
			}
			if len(got.Note) != maxEventNote {
				t.Errorf("note of %d bytes, want it cut to %d", len(got.Note), maxEventNote)
			}
		})
	}
}

func TestScheduledEventWriterDropsWhenTooManyInFlight(t *testing.T) {
	sink := &scriptedSink{}
	reg, m := st.Metrics(t)
	w := newScheduledEventWriter(sink, clocktesting.NewFakeClock(time.Now()), m)
	w.inFlight = make(chan struct{}, 2)
	// Two writes are in flight: the next ones are dropped, not written.
	w.inFlight <- struct{}{}
	w.inFlight <- struct{}{}
	for i := range 3 {
		w.Record(context.Background(), "s", testPod(fmt.Sprintf("p%d", i)), "bound")
	}
	if got := eventCounts(t, reg); got[metrics.EventWritten] != 0 || got[metrics.EventDropped] != 3 || sink.attempts != 0 {
		t.Errorf("events counted %v, creates %d; want 0 written, 3 dropped, 0 creates", got, sink.attempts)
	}
	// Once one is done, the next event is written.
	<-w.inFlight
	w.Record(context.Background(), "s", testPod("p3"), "bound")
	if len(sink.created) != 1 || len(w.inFlight) != 1 {
		t.Errorf("created %d, in flight %d; want 1, 1", len(sink.created), len(w.inFlight))
	}
	if got := eventCounts(t, reg); got[metrics.EventWritten] != 1 || got[metrics.EventDropped] != 3 {
		t.Errorf("scheduler_scheduled_events_total = %v, want 1 written, 3 dropped", got)
	}
}

// testPod returns a pod of namespace "ns" whose UID is its name.
func testPod(name string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)}}
}

// eventCounts reads scheduler_scheduled_events_total by result from reg.
func eventCounts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	return st.CounterByLabel(t, reg, "scheduler_scheduled_events_total", "result")
}
