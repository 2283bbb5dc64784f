package scheduler

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Limits of the Scheduled-event writer: what it holds before it drops, as
// client-go's broadcaster does, how many events are in flight at once, and
// how often a failed create is tried.
const (
	scheduledEventQueue    = 1000
	scheduledEventWorkers  = 4
	scheduledEventAttempts = 3
	maxEventNote           = 1024
)

// scheduledEventWriter posts the Scheduled event of every bound pod from a
// few workers. client-go's broadcaster spends a goroutine, two copies and a
// six-minute cache entry on every event, to fold repeats into a series; a
// Scheduled event is never repeated (a pod is bound once), so it needs none
// of that. Other events, FailedScheduling above all, still go through the
// broadcaster and its series.
type scheduledEventWriter struct {
	sink     events.EventSink
	clock    clock.Clock
	hostname string
	queue    chan *eventsv1.Event
	// queued counts the events accepted, dropped those refused.
	queued, dropped atomic.Int64
}

func newScheduledEventWriter(sink events.EventSink, clk clock.Clock) *scheduledEventWriter {
	hostname, _ := os.Hostname()
	return &scheduledEventWriter{sink: sink, clock: clk, hostname: hostname, queue: make(chan *eventsv1.Event, scheduledEventQueue)}
}

// record queues the Scheduled event of pod, reported by the profile
// controller, with note; it never blocks, and drops the event when the
// queue is full.
func (w *scheduledEventWriter) record(ctx context.Context, controller string, pod *v1.Pod, note string) {
	if len(note) > maxEventNote {
		note = note[:maxEventNote]
	}
	now := w.clock.Now()
	ev := &eventsv1.Event{
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
	select {
	case w.queue <- ev:
		w.queued.Add(1)
	default:
		w.dropped.Add(1)
		klog.FromContext(ctx).V(2).Info("Dropping a Scheduled event: too many are waiting to be written")
	}
}

// run writes queued events until ctx is done; events still queued then are
// dropped, as the broadcaster drops them at shutdown.
func (w *scheduledEventWriter) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range scheduledEventWorkers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case ev := <-w.queue:
					w.write(ctx, ev)
				}
			}
		})
	}
	wg.Wait()
}

// write creates ev, trying again after a transient failure.
func (w *scheduledEventWriter) write(ctx context.Context, ev *eventsv1.Event) {
	logger := klog.FromContext(ctx)
	for attempt := 1; ; attempt++ {
		_, err := w.sink.Create(ctx, ev)
		if err == nil || apierrors.IsAlreadyExists(err) {
			return
		}
		transient := apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
			apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || !apierrors.IsBadRequest(err) && apierrors.ReasonForError(err) == metav1.StatusReasonUnknown
		if !transient || attempt == scheduledEventAttempts {
			logger.V(2).Info("Could not write a Scheduled event", "pod", klog.KRef(ev.Namespace, ev.Regarding.Name), "err", err)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-w.clock.After(time.Duration(attempt) * time.Second):
		}
	}
}
