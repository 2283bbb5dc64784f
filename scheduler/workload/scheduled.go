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

package workload

import (
	"sync"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// scheduledGroups remembers the PodGroups the scheduler has set
// PodGroupInitiallyScheduled=True on until its informer shows the
// condition, so that a cycle of the group's remaining members that runs
// first, on the informer's older copy, does not set it back to False.
type scheduledGroups struct {
	mu   sync.Mutex
	uids map[types.UID]struct{}
}

func (s *scheduledGroups) add(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uids == nil {
		s.uids = make(map[types.UID]struct{})
	}
	s.uids[uid] = struct{}{}
}

func (s *scheduledGroups) has(uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.uids[uid]
	return ok
}

func (s *scheduledGroups) forget(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.uids, uid)
}

// MarkScheduled records that the scheduler is setting
// PodGroupInitiallyScheduled=True on pg. Call it on the scheduling loop,
// before the condition is written: until the informer shows it, or the
// write fails, PatchCondition sets no other status of that condition. A
// group the informer already shows scheduled needs no record.
func (g *Groups) MarkScheduled(pg *schedulingv1beta1.PodGroup) {
	if !apimeta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled) {
		g.scheduled.add(pg.UID)
	}
}

// StatusHandler returns the PodGroup event handler that lets Groups forget
// a group MarkScheduled recorded once the informer shows it scheduled, or
// once the group is gone. Add it to both PodGroup informers.
func (g *Groups) StatusHandler() cache.ResourceEventHandler {
	observe := func(obj any) {
		if pg, ok := obj.(*schedulingv1beta1.PodGroup); ok && apimeta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled) {
			g.scheduled.forget(pg.UID)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, obj any) { observe(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pg, ok := obj.(*schedulingv1beta1.PodGroup); ok {
				g.scheduled.forget(pg.UID)
			}
		},
	}
}
