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
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestScheduledEvents(t *testing.T) {
	tests := []struct {
		name          string
		opts          []Option
		wantScheduled int
	}{
		{name: "recorded by default", wantScheduled: 1},
		{name: "recorded when asked", opts: []Option{WithScheduledEvents(true)}, wantScheduled: 1},
		{name: "not recorded when turned off", opts: []Option{WithScheduledEvents(false)}, wantScheduled: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
			defer cancel()
			fits, tooBig := benchPod("fits"), benchPod("too-big")
			tooBig.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("64")
			reg, m := st.Metrics(t)
			h := newHarness(t, withObjects(fits, tooBig), withOptions(append([]Option{WithMetrics(m)}, tt.opts...)...))
			s, client := h.s, h.client
			alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
			s.cache.AddNode(logr.Discard(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node"}, Status: v1.NodeStatus{Allocatable: alloc}})
			// The informers are not started: the failure path reads the pod
			// from the informer's store.
			if err := s.podInformer().GetStore().Add(tooBig); err != nil {
				t.Fatal(err)
			}
			s.broadcaster.StartRecordingToSink(ctx.Done())
			if s.scheduledEvents == nil && tt.wantScheduled > 0 {
				t.Fatal("no Scheduled-event writer")
			}

			// The pod that fits is bound; the one that fits nowhere records
			// FailedScheduling through the broadcaster.
			s.queue.Add(logr.Discard(), fits)
			s.scheduleOne(ctx)
			s.bindings.Wait()
			s.queue.Add(logr.Discard(), tooBig)
			s.scheduleOne(ctx)
			s.bindings.Wait()

			reasons := map[string]int{}
			err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				list, err := client.EventsV1().Events(fits.Namespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				clear(reasons)
				for _, ev := range list.Items {
					reasons[ev.Reason]++
				}
				return reasons["FailedScheduling"] > 0 && reasons["Scheduled"] >= tt.wantScheduled, nil
			})
			if err != nil {
				t.Fatalf("waiting for the events: %v (events by reason: %v)", err, reasons)
			}
			switch {
			case tt.wantScheduled == 0 && s.scheduledEvents != nil:
				t.Error("Scheduled events are off, but a writer exists")
			case eventCounts(t, reg)[metrics.EventWritten] != float64(tt.wantScheduled):
				// The binding goroutine has written the event by the time
				// s.bindings.Wait returns.
				t.Errorf("written Scheduled events = %v, want %d", eventCounts(t, reg), tt.wantScheduled)
			}
			if reasons["Scheduled"] != tt.wantScheduled {
				t.Errorf("Scheduled events = %d, want %d (events by reason: %v)", reasons["Scheduled"], tt.wantScheduled, reasons)
			}
		})
	}
}

// eventCounts reads scheduler_scheduled_events_total by result from reg.
func eventCounts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	return st.CounterByLabel(t, reg, "scheduler_scheduled_events_total", "result")
}
