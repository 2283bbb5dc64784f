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

package throughput

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/apiwrite"
)

// NullBindOption configures NullBind.
type NullBindOption func(*nullBindOptions)

type nullBindOptions struct {
	workers int
	events  bool
}

// WithBindWorkers sets the number of concurrent binding calls (32 by default).
func WithBindWorkers(n int) NullBindOption { return func(o *nullBindOptions) { o.workers = n } }

// WithScheduledEvents makes NullBind record a Scheduled event for every pod
// it binds, as kube-scheduler and Berth do.
func WithScheduledEvents() NullBindOption { return func(o *nullBindOptions) { o.events = true } }

// NullBind binds every pending pod of SchedulerName to the nodes in turn,
// with concurrent binding calls and no filtering or scoring, until ctx ends:
// the apiserver's ceiling for a scheduler. The nodes are listed once. For
// the members of a gang it also writes what a scheduler writes besides
// the bindings (see groupWrites), so the ceiling does the same API work.
func NullBind(ctx context.Context, client kubernetes.Interface, logger logr.Logger, opts ...NullBindOption) error {
	o := nullBindOptions{workers: 32}
	for _, opt := range opts {
		opt(&o)
	}
	var recorder events.EventRecorder
	if o.events {
		broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
		broadcaster.StartRecordingToSink(ctx.Done())
		defer broadcaster.Shutdown()
		recorder = broadcaster.NewRecorder(scheme.Scheme, "null-binder")
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	if len(nodes.Items) == 0 {
		return fmt.Errorf("no nodes to bind to")
	}
	names := make([]string, len(nodes.Items))
	for i := range nodes.Items {
		names[i] = nodes.Items[i].Name
	}
	selector := fields.AndSelectors(
		fields.OneTermEqualSelector("spec.nodeName", ""),
		fields.OneTermEqualSelector("spec.schedulerName", SchedulerName),
	).String()
	pods := client.CoreV1().Pods(metav1.NamespaceAll)
	list, err := pods.List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return fmt.Errorf("listing pending pods: %w", err)
	}
	queue := make(chan *corev1.Pod, 1024)
	var next atomic.Uint64
	var wg sync.WaitGroup
	groups := newGroupWrites(client)
	for range o.workers {
		wg.Go(func() {
			for pod := range queue {
				node := names[(next.Add(1)-1)%uint64(len(names))]
				nominate, completed := groups.arrive(ctx, pod)
				if nominate {
					apiwrite.PublishNomination(klog.NewContext(ctx, logger), client, pod, node)
				}
				binding := &corev1.Binding{
					ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
					Target:     corev1.ObjectReference{Kind: "Node", Name: node},
				}
				err := client.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
				switch {
				case err != nil && ctx.Err() == nil:
					logger.Error(err, "Binding failed", "pod", klog.KObj(pod), "node", node)
				case err == nil && recorder != nil:
					recorder.Eventf(pod, nil, corev1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node)
				}
				if completed != nil {
					if err := groups.scheduled(ctx, completed); err != nil && ctx.Err() == nil {
						logger.Error(err, "Setting the PodGroup's condition failed", "podGroup", klog.KObj(completed.group))
					}
				}
			}
		})
	}
	defer wg.Wait()
	defer close(queue)

	seen := make(map[string]bool, len(list.Items))
	enqueue := func(pod *corev1.Pod) bool {
		key := pod.Namespace + "/" + pod.Name
		if seen[key] || pod.Spec.NodeName != "" {
			return true
		}
		seen[key] = true
		select {
		case queue <- pod:
			return true
		case <-ctx.Done():
			return false
		}
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = selector
			return pods.Watch(ctx, opts)
		},
	})
	if err != nil {
		return fmt.Errorf("watching pending pods: %w", err)
	}
	defer w.Stop()
	for i := range list.Items {
		if !enqueue(&list.Items[i]) {
			return nil
		}
	}
	logger.Info("Binding pending pods", "listed", len(list.Items), "nodes", len(names), "workers", o.workers, "events", o.events)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			if pod, isPod := ev.Object.(*corev1.Pod); isPod && ev.Type == watch.Added {
				if !enqueue(pod) {
					return nil
				}
			}
		}
	}
}
