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

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// addClusterObjectHandlers starts the informers plugins read beside pods and
// nodes, and turns their changes into cluster events for the queue. Profiles
// arrive at run time, so every informer an in-tree plugin may ask for is
// started up front rather than on a profile's demand.
func (s *Scheduler) addClusterObjectHandlers(logger klog.Logger) error {
	f := s.informerFactory
	watched := []struct {
		resource framework.EventResource
		informer cache.SharedIndexInformer
	}{
		{framework.PersistentVolume, f.Core().V1().PersistentVolumes().Informer()},
		{framework.PersistentVolumeClaim, f.Core().V1().PersistentVolumeClaims().Informer()},
		{framework.StorageClass, f.Storage().V1().StorageClasses().Informer()},
		{framework.CSINode, f.Storage().V1().CSINodes().Informer()},
		{framework.CSIDriver, f.Storage().V1().CSIDrivers().Informer()},
		{framework.CSIStorageCapacity, f.Storage().V1().CSIStorageCapacities().Informer()},
		{framework.VolumeAttachment, f.Storage().V1().VolumeAttachments().Informer()},
		// DynamicResources reads claims, slices and classes through listers.
		{framework.DeviceClass, f.Resource().V1().DeviceClasses().Informer()},
	}
	for _, w := range watched {
		if _, err := w.informer.AddEventHandler(s.clusterEventHandler(logger, w.resource)); err != nil {
			return fmt.Errorf("adding the %s handler: %w", w.resource, err)
		}
	}
	// Claims also feed the index of allocated devices, before the queue
	// hears of the change: a pod retried because a claim released its
	// devices finds them released. The scheduling loop waits for it.
	claims, err := f.Resource().V1().ResourceClaims().Informer().AddEventHandler(s.allocated.Then(s.clusterEventHandler(logger, framework.ResourceClaim)))
	if err != nil {
		return fmt.Errorf("adding the %s handler: %w", framework.ResourceClaim, err)
	}
	s.handlers = append(s.handlers, claims)
	// Slices come through the tracker: with DeviceTaintRules, a rule that
	// taints a slice's devices, or stops tainting them, is an update of
	// that slice, as DynamicResources sees it. The scheduling loop waits
	// for the tracker as for its own handlers.
	slices, err := s.slices.AddEventHandler(s.clusterEventHandler(logger, framework.ResourceSlice))
	if err != nil {
		return fmt.Errorf("adding the %s handler: %w", framework.ResourceSlice, err)
	}
	s.handlers = append(s.handlers, slices)
	// Read through listers only: namespaces for affinity namespaceSelectors,
	// and the owners whose selectors make PodTopologySpread's System defaults.
	f.Core().V1().Namespaces().Informer()
	f.Core().V1().Services().Informer()
	f.Core().V1().ReplicationControllers().Informer()
	f.Apps().V1().ReplicaSets().Informer()
	f.Apps().V1().StatefulSets().Informer()
	// DefaultPreemption spares pods whose PodDisruptionBudget allows no disruption.
	f.Policy().V1().PodDisruptionBudgets().Informer()
	return nil
}

// clusterEventHandler moves pods that a change of resource may help; the
// queueing hints of each pod's profile decide which.
func (s *Scheduler) clusterEventHandler(logger klog.Logger, resource framework.EventResource) cache.ResourceEventHandler {
	// The labels are built once, not per event.
	labels := map[framework.ActionType]string{}
	for _, a := range []framework.ActionType{framework.Add, framework.Update, framework.Delete} {
		labels[a] = framework.ClusterEvent{Resource: resource, ActionType: a}.Label()
	}
	move := func(action framework.ActionType, oldObj, newObj any) {
		defer s.handled(labels[action], s.clock.Now())
		s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: resource, ActionType: action}, oldObj, newObj, nil)
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { move(framework.Add, nil, obj) },
		UpdateFunc: func(oldObj, newObj any) { move(framework.Update, oldObj, newObj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			move(framework.Delete, obj, nil)
		},
	}
}
