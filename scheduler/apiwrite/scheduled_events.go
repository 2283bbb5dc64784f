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
	"fmt"
	"os"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/metrics"
)

// Limits of the Scheduled-event writer: how many events may be in flight
// before more are dropped (client-go's broadcaster buffers as many), how
// often a failed create is tried, and the longest note.
const (
	maxScheduledEventsInFlight = 1000
	scheduledEventAttempts     = 3
	maxEventNote               = 1024
)

// ScheduledEventWriter posts the Scheduled event of every bound pod from the
// goroutine that bound it, once its binding slot is free, so that events
// are written as fast as pods are bound, as kube-scheduler's broadcaster
// writes each from a goroutine of its own. The broadcaster also spends two
// copies and a six-minute cache entry on every event, to fold repeats into
// a series; a Scheduled event is never repeated (a pod is bound once), so it
// needs none of that. Other events, FailedScheduling above all, still go
// through the broadcaster and its series.
type ScheduledEventWriter struct {
	sink     events.EventSink
	clock    clock.Clock
	metrics  *metrics.Metrics
	hostname string
	// inFlight holds a token per event being written.
	inFlight chan struct{}
}

// NewScheduledEventWriter returns a writer that creates events with plain
// POSTs on client's connection (through the typed client for a fake client
// set), times its retries on clk, and counts the events in m (which may be
// nil).
func NewScheduledEventWriter(client kubernetes.Interface, clk clock.Clock, m *metrics.Metrics) *ScheduledEventWriter {
	return newScheduledEventWriter(newScheduledEventSink(client), clk, m)
}

// newScheduledEventWriter returns a writer that creates events through
// sink and counts them in m (which may be nil).
func newScheduledEventWriter(sink events.EventSink, clk clock.Clock, m *metrics.Metrics) *ScheduledEventWriter {
	hostname, _ := os.Hostname()
	return &ScheduledEventWriter{sink: sink, clock: clk, metrics: m, hostname: hostname, inFlight: make(chan struct{}, maxScheduledEventsInFlight)}
}

// event returns the Scheduled event of pod, reported by the profile
// controller, with note.
func (w *ScheduledEventWriter) event(controller string, pod *v1.Pod, note string) *eventsv1.Event {
	if len(note) > maxEventNote {
		note = note[:maxEventNote]
	}
	now := w.clock.Now()
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: fmt.Sprintf("%s.%x", pod.Name, now.UnixNano())},
		EventTime:  metav1.NewMicroTime(now),
		Regarding: v1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, ResourceVersion: pod.ResourceVersion},
		Type:                v1.EventTypeNormal,
		Reason:              "Scheduled",
		Action:              "Binding",
		Note:                note,
		ReportingController: controller,
		ReportingInstance:   controller + "-" + w.hostname,
	}
}

// Record writes the Scheduled event of pod, reported by the profile
// controller, on the calling goroutine and returns when it is written or
// given up; it drops the event at once when too many are in flight.
// Cancelling ctx abandons the write.
func (w *ScheduledEventWriter) Record(ctx context.Context, controller string, pod *v1.Pod, note string) {
	select {
	case w.inFlight <- struct{}{}:
	default:
		w.count(false)
		klog.FromContext(ctx).V(2).Info("Dropping a Scheduled event: too many are being written", "pod", klog.KObj(pod))
		return
	}
	defer func() { <-w.inFlight }()
	w.count(w.write(ctx, w.event(controller, pod, note)))
}

// count counts one event as written or dropped: given up on because it
// was refused, failed every attempt, or was over the in-flight limit.
func (w *ScheduledEventWriter) count(written bool) {
	if written {
		w.metrics.CountScheduledEvent(metrics.EventWritten)
		return
	}
	w.metrics.CountScheduledEvent(metrics.EventDropped)
}

// write creates ev, trying again after a transient failure, and reports
// whether the event exists.
func (w *ScheduledEventWriter) write(ctx context.Context, ev *eventsv1.Event) bool {
	logger := klog.FromContext(ctx)
	for attempt := 1; ; attempt++ {
		_, err := w.sink.Create(ctx, ev)
		if err == nil || apierrors.IsAlreadyExists(err) {
			return true
		}
		transient := apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
			apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || !apierrors.IsBadRequest(err) && apierrors.ReasonForError(err) == metav1.StatusReasonUnknown
		if !transient || attempt == scheduledEventAttempts {
			logger.V(2).Info("Could not write a Scheduled event", "pod", klog.KRef(ev.Namespace, ev.Regarding.Name), "err", err)
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-w.clock.After(time.Duration(attempt) * time.Second):
		}
	}
}
