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
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/internal/foreign"
)

// Coexistence with another scheduler: a pod of a schedulerName that a live
// profile serves, seen going from pending to bound although this scheduler
// never sent it to be bound, was bound by someone else (package foreign
// finds out who, off the loop).

// UnknownScheduler names the other scheduler when no Scheduled event says who bound the pod.
const UnknownScheduler = foreign.UnknownScheduler

// ForeignBindings is what this scheduler, while leading, saw of the pods of
// one schedulerName that another scheduler bound.
type ForeignBindings = foreign.Bindings

// ForeignBindings returns what this scheduler saw, while leading, of pods
// of schedulerName bound by another scheduler; false when it saw none.
func (s *Scheduler) ForeignBindings(schedulerName string) (ForeignBindings, bool) {
	return s.foreign.Get(schedulerName)
}

// noticeBinding is called when a pod goes from pending to bound. A pod of a
// live profile's schedulerName that this scheduler did not send to be bound
// becomes a candidate, checked later by the foreign watch. Only the
// replica that schedules looks: a standby sees the leader's binds.
func (s *Scheduler) noticeBinding(logger klog.Logger, pod *v1.Pod) {
	if s.foreign.TakeSent(pod.UID) || !s.loopStarted.Load() {
		return
	}
	p := s.profiles.Get(pod.Spec.SchedulerName)
	if p == nil {
		return
	}
	s.foreign.Candidate(logger, pod, p.Source)
}
