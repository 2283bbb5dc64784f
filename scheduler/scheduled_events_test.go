package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
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
			client := fake.NewClientset(fits, tooBig)
			s, err := New(ctx, client, append([]Option{WithSeed(1)}, tt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 1, &v1alpha1.SchedulingProfileSpec{}); err != nil {
				t.Fatal(err)
			}
			alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")}
			s.cache.AddNode(logr.Discard(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node"}, Status: v1.NodeStatus{Allocatable: alloc}})
			// The informers are not started: the failure path reads the pod
			// from the informer's store.
			if err := s.podInformer().GetStore().Add(tooBig); err != nil {
				t.Fatal(err)
			}
			s.broadcaster.StartRecordingToSink(ctx.Done())

			// The pod that fits is bound first; the one that fits nowhere
			// then records FailedScheduling, after any Scheduled event.
			s.queue.Add(logr.Discard(), fits)
			s.scheduleOne(ctx)
			s.bindings.Wait()
			s.queue.Add(logr.Discard(), tooBig)
			s.scheduleOne(ctx)
			s.bindings.Wait()

			reasons := map[string]int{}
			err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				list, err := client.EventsV1().Events(fits.Namespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				clear(reasons)
				for _, ev := range list.Items {
					reasons[ev.Reason]++
				}
				return reasons["FailedScheduling"] > 0, nil
			})
			if err != nil {
				t.Fatalf("no FailedScheduling event for the pod that fits nowhere: %v (events by reason: %v)", err, reasons)
			}
			if reasons["Scheduled"] != tt.wantScheduled {
				t.Errorf("Scheduled events = %d, want %d (events by reason: %v)", reasons["Scheduled"], tt.wantScheduled, reasons)
			}
		})
	}
}
