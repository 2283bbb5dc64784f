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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/internal/events"
)

// nonTerminalPods selects pods that still need a node or hold one.
var nonTerminalPods = fields.ParseSelectorOrDie("status.phase!=" + string(v1.PodSucceeded) + ",status.phase!=" + string(v1.PodFailed))

// addEventHandlers wires the informers: assigned pods and nodes feed the
// cache, unassigned pods the queue (or the parked set when no live profile
// serves them), and every change may move pods the queue holds as
// unschedulable.
func (s *Scheduler) addEventHandlers() error {
	logger := klog.Background().WithName("scheduler")

	podInformer := s.podInformer()
	assignedPods, err := podInformer.AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool { return assigned(obj) },
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				defer s.handled(eventAssignedPodAdd, s.clock.Now())
				s.onAssignedPodAdd(logger, obj)
			},
			UpdateFunc: func(oldObj, newObj any) {
				defer s.handled(eventAssignedPodUpdate, s.clock.Now())
				s.onAssignedPodUpdate(logger, oldObj, newObj)
			},
			DeleteFunc: func(obj any) {
				defer s.handled(eventAssignedPodDelete, s.clock.Now())
				s.onAssignedPodDelete(logger, obj)
			},
		},
	})
	if err != nil {
		return fmt.Errorf("adding the assigned-pod handler: %w", err)
	}
	pendingPods, err := podInformer.AddEventHandler(pendingPodHandler{s: s, logger: logger})
	if err != nil {
		return fmt.Errorf("adding the pending-pod handler: %w", err)
	}

	nodeInformer := s.informerFactory.Core().V1().Nodes().Informer()
	nodes, err := nodeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			defer s.handled(eventNodeAdd, s.clock.Now())
			s.onNodeAdd(logger, obj)
		},
		UpdateFunc: func(oldObj, newObj any) {
			defer s.handled(eventNodeUpdate, s.clock.Now())
			s.onNodeUpdate(logger, oldObj, newObj)
		},
		DeleteFunc: func(obj any) {
			defer s.handled(eventNodeDelete, s.clock.Now())
			s.onNodeDelete(logger, obj)
		},
	})
	if err != nil {
		return fmt.Errorf("adding the node handler: %w", err)
	}
	// An informer's store syncs before its handlers have seen every object:
	// waiting for these, as kube-scheduler does, keeps the first cycles from
	// running on a cache that misses a node or a bound pod.
	s.handlers = []cache.ResourceEventHandlerRegistration{assignedPods, pendingPods, nodes}
	if pg := s.workloads.BerthInformer(); pg != nil {
		if _, err := pg.AddEventHandler(s.clusterEventHandler(logger, framework.PodGroup)); err != nil {
			return fmt.Errorf("adding the PodGroup handler: %w", err)
		}
		if _, err := pg.AddEventHandler(s.workloads.StatusHandler()); err != nil {
			return fmt.Errorf("adding the PodGroup status handler: %w", err)
		}
	}
	if pg := s.workloads.Informer(); pg != nil {
		if _, err := pg.AddEventHandler(s.clusterEventHandler(logger, framework.NativePodGroup)); err != nil {
			return fmt.Errorf("adding the scheduling.k8s.io PodGroup handler: %w", err)
		}
		if _, err := pg.AddEventHandler(s.workloads.StatusHandler()); err != nil {
			return fmt.Errorf("adding the scheduling.k8s.io PodGroup status handler: %w", err)
		}
	}
	if cpg := s.workloads.CompositeInformer(); cpg != nil {
		if _, err := cpg.AddEventHandler(s.clusterEventHandler(logger, framework.NativeCompositePodGroup)); err != nil {
			return fmt.Errorf("adding the CompositePodGroup handler: %w", err)
		}
	}
	return s.addClusterObjectHandlers(logger)
}

// Labels of scheduler_event_handling_duration_seconds for the pod and node
// handlers, as upstream names those events.
const (
	eventAssignedPodAdd       = "AssignedPodAdd"
	eventAssignedPodUpdate    = "AssignedPodUpdate"
	eventAssignedPodDelete    = "AssignedPodDelete"
	eventUnscheduledPodAdd    = "UnscheduledPodAdd"
	eventUnscheduledPodUpdate = "UnscheduledPodUpdate"
	eventUnscheduledPodDelete = "UnscheduledPodDelete"
	eventNodeAdd              = "NodeAdd"
	eventNodeUpdate           = "NodeUpdate"
	eventNodeDelete           = "NodeDelete"
)

// handled records how long handling an informer event took since start.
func (s *Scheduler) handled(event string, start time.Time) {
	if s.metrics != nil {
		s.metrics.ObserveEventHandling(event, s.clock.Since(start))
	}
}

// podInformer returns the informer of non-terminal pods, assigned or not.
func (s *Scheduler) podInformer() cache.SharedIndexInformer {
	return s.informerFactory.InformerFor(&v1.Pod{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return corev1informers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			func(o *metav1.ListOptions) { o.FieldSelector = nonTerminalPods.String() })
	})
}

// assigned reports whether the object is a pod bound to a node.
func assigned(obj any) bool {
	pod, ok := podFrom(obj)
	return ok && pod.Spec.NodeName != ""
}

// podFrom unwraps a pod from an informer object, tombstones included.
func podFrom(obj any) (*v1.Pod, bool) {
	switch t := obj.(type) {
	case *v1.Pod:
		return t, true
	case cache.DeletedFinalStateUnknown:
		pod, ok := t.Obj.(*v1.Pod)
		return pod, ok
	}
	return nil, false
}

// nodeFrom unwraps a node from an informer object, tombstones included.
func nodeFrom(obj any) (*v1.Node, bool) {
	switch t := obj.(type) {
	case *v1.Node:
		return t, true
	case cache.DeletedFinalStateUnknown:
		node, ok := t.Obj.(*v1.Node)
		return node, ok
	}
	return nil, false
}

func (s *Scheduler) onAssignedPodAdd(logger klog.Logger, obj any) {
	pod, ok := podFrom(obj)
	if !ok {
		return
	}
	if err := s.cache.AddPod(logger, pod); err != nil {
		logger.Error(err, "Adding a bound pod to the cache", "pod", klog.KObj(pod))
	}
	s.queue.AssignedPodAdded(logger, pod)
}

func (s *Scheduler) onAssignedPodUpdate(logger klog.Logger, oldObj, newObj any) {
	oldPod, ok1 := podFrom(oldObj)
	newPod, ok2 := podFrom(newObj)
	if !ok1 || !ok2 {
		return
	}
	// An update that binds a pod reaches this handler as an add, because the
	// old object did not pass the filter; here both are assigned.
	if err := s.cache.UpdatePod(logger, oldPod, newPod); err != nil {
		logger.Error(err, "Updating a bound pod in the cache", "pod", klog.KObj(newPod))
	}
	s.queue.AssignedPodUpdated(logger, oldPod, newPod, framework.ClusterEvent{Resource: framework.Pod, ActionType: events.PodUpdateActions(oldPod, newPod)})
}

func (s *Scheduler) onAssignedPodDelete(logger klog.Logger, obj any) {
	pod, ok := podFrom(obj)
	if !ok {
		return
	}
	if err := s.cache.RemovePod(logger, pod); err != nil {
		logger.Error(err, "Removing a bound pod from the cache", "pod", klog.KObj(pod))
	}
	// A pod held at Permit that is deleted must not be bound.
	s.rejectWaitingPod(pod, "pod was deleted")
	s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}, pod, nil, nil)
}

// pendingPodHandler routes the pending pods' events, as a
// FilteringResourceEventHandler on !assigned would, and also tells the
// scheduler when a pending pod becomes bound, which such a handler hides
// behind a delete.
type pendingPodHandler struct {
	s      *Scheduler
	logger klog.Logger
}

// OnAdd handles a pod that is pending when it appears.
func (h pendingPodHandler) OnAdd(obj any, _ bool) {
	if !assigned(obj) {
		defer h.s.handled(eventUnscheduledPodAdd, h.s.clock.Now())
		h.s.onPendingPodAdd(h.logger, obj)
	}
}

// OnUpdate handles a pod pending before or after the update.
func (h pendingPodHandler) OnUpdate(oldObj, newObj any) {
	wasPending, isPending := !assigned(oldObj), !assigned(newObj)
	switch {
	case wasPending && isPending:
		defer h.s.handled(eventUnscheduledPodUpdate, h.s.clock.Now())
		h.s.onPendingPodUpdate(h.logger, oldObj, newObj)
	case isPending:
		defer h.s.handled(eventUnscheduledPodAdd, h.s.clock.Now())
		h.s.onPendingPodAdd(h.logger, newObj)
	case wasPending:
		defer h.s.handled(eventUnscheduledPodDelete, h.s.clock.Now())
		h.s.onPendingPodDelete(h.logger, oldObj)
		if pod, ok := podFrom(newObj); ok {
			h.s.noticeBinding(h.logger, pod)
		}
	}
}

// OnDelete handles a pod deleted while pending.
func (h pendingPodHandler) OnDelete(obj any) {
	if !assigned(obj) {
		defer h.s.handled(eventUnscheduledPodDelete, h.s.clock.Now())
		h.s.onPendingPodDelete(h.logger, obj)
		if pod, ok := podFrom(obj); ok {
			h.s.foreign.Forget(pod.UID)
		}
	}
}

func (s *Scheduler) onNodeAdd(logger klog.Logger, obj any) {
	node, ok := nodeFrom(obj)
	if !ok {
		return
	}
	s.cache.AddNode(logger, node)
	s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, nil, node, nil)
}

func (s *Scheduler) onNodeUpdate(logger klog.Logger, oldObj, newObj any) {
	oldNode, ok1 := nodeFrom(oldObj)
	newNode, ok2 := nodeFrom(newObj)
	if !ok1 || !ok2 {
		return
	}
	s.cache.UpdateNode(logger, oldNode, newNode)
	if actions := events.NodeUpdateActions(oldNode, newNode); actions != 0 {
		s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: framework.Node, ActionType: actions}, oldNode, newNode, nil)
	}
}

func (s *Scheduler) onNodeDelete(logger klog.Logger, obj any) {
	node, ok := nodeFrom(obj)
	if !ok {
		return
	}
	// A node going away can help a pod: its topology domain may have held
	// the pods that skewed a spread constraint.
	s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Delete}, node, nil, nil)
	if err := s.cache.RemoveNode(logger, node); err != nil {
		logger.Error(err, "Removing a node from the cache", "node", klog.KObj(node))
	}
}

// rejectWaitingPod rejects the pod if it is held at Permit, so it is not bound.
func (s *Scheduler) rejectWaitingPod(pod *v1.Pod, msg string) {
	if wp := s.waiting.Get(pod.UID); wp != nil {
		wp.Reject("", msg)
	}
}
