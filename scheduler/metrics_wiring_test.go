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
	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestLoopMetrics runs the scheduler's informers over a fake clientset,
// schedules a pod that fits and one that fits nowhere, and reads the
// metrics the loop, the handlers, the queue and the cache feed.
func TestLoopMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	defer cancel()
	alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
	reg, m := st.Metrics(t)
	h := newHarness(t, withObjects(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node"}, Status: v1.NodeStatus{Allocatable: alloc}}), withOptions(WithMetrics(m)))
	s, client := h.s, h.client
	go func() { _ = s.RunInformers(ctx) }()
	if !s.WaitForCacheSync(ctx) {
		t.Fatal("informers did not sync")
	}

	fits, tooBig := benchPod("fits"), benchPod("too-big")
	tooBig.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("64")
	for _, pod := range []*v1.Pod{fits, tooBig} {
		if _, err := client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return s.queue.Has(pod), nil
		}); err != nil {
			t.Fatalf("pod %s never reached the queue: %v", pod.Name, err)
		}
		s.scheduleOne(ctx)
		s.bindings.Wait()
	}
	s.reportGauges()

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name   string
		labels map[string]string
		want   func(value float64, count uint64) bool
	}{
		{"scheduler_event_handling_duration_seconds", map[string]string{"event": "NodeAdd"}, func(_ float64, n uint64) bool { return n == 1 }},
		{"scheduler_event_handling_duration_seconds", map[string]string{"event": "UnscheduledPodAdd"}, func(_ float64, n uint64) bool { return n == 2 }},
		{"scheduler_queue_incoming_pods_total", map[string]string{"queue": "active", "event": "UnscheduledPodAdd"}, func(v float64, _ uint64) bool { return v == 2 }},
		{"scheduler_queue_incoming_pods_total", map[string]string{"queue": "unschedulable", "event": "ScheduleAttemptFailure"}, func(v float64, _ uint64) bool { return v == 1 }},
		{"scheduler_cache_size", map[string]string{"type": "nodes"}, func(v float64, _ uint64) bool { return v == 1 }},
		{"scheduler_pod_scheduling_attempts", nil, func(_ float64, n uint64) bool { return n == 1 }},
		{"scheduler_goroutines", map[string]string{"operation": "binding"}, func(v float64, _ uint64) bool { return v == 0 }},
		{"scheduler_unschedulable_pods", map[string]string{"plugin": "NodeResourcesFit", "profile": v1.DefaultSchedulerName}, func(v float64, _ uint64) bool { return v == 1 }},
	}
	for _, c := range checks {
		v, n, ok := series(families, c.name, c.labels)
		if !ok {
			t.Errorf("%s%v is not exported", c.name, c.labels)
			continue
		}
		if !c.want(v, n) {
			t.Errorf("%s%v = %v (%d observations), not what the cycle should leave", c.name, c.labels, v, n)
		}
	}
}

// series finds the series of the family name that has the labels, and
// returns its value (counter or gauge) or its observation count (histogram).
func series(families []*dto.MetricFamily, name string, labels map[string]string) (float64, uint64, bool) {
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue metrics
				}
			}
			switch {
			case m.GetHistogram() != nil:
				return 0, m.GetHistogram().GetSampleCount(), true
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), 0, true
			default:
				return m.GetGauge().GetValue(), 0, true
			}
		}
	}
	return 0, 0, false
}
