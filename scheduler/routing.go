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
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/apiwrite"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/profile"
)

// Profile routing: which live profile serves a pending pod's
// schedulerName, and the parked set of pods no profile serves. routeMu
// orders the routing of each pending pod (queue or parked) against the
// installs and removals of profiles, so that no pod is parked after its
// profile appeared, and none queued after its profile went away.

// SetProfile compiles spec and makes it the live profile for schedulerName.
// An existing profile is swapped atomically: the queue keeps its pods, and a
// cycle in flight finishes with the profile it started with. Pods parked for
// want of this scheduler name move to the queue. On error the previous
// profile, if any, stays live.
func (s *Scheduler) SetProfile(ctx context.Context, schedulerName, source string, generation int64, spec *v1alpha1.SchedulingProfileSpec) error {
	fwk, err := s.CompileProfile(ctx, schedulerName, spec)
	if err != nil {
		return fmt.Errorf("compiling profile %q: %w", source, err)
	}
	s.InstallProfile(ctx, schedulerName, &profile.Profile{Framework: fwk, Source: source, Generation: generation})
	return nil
}

// InstallProfile makes an already compiled profile live for schedulerName.
func (s *Scheduler) InstallProfile(ctx context.Context, schedulerName string, p *profile.Profile) {
	logger := klog.FromContext(ctx)
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	previous := s.profiles.Set(schedulerName, p)
	unparked := s.parked.Take(schedulerName)
	// In one step, so that the loop cannot pop a PodGroup's first members
	// and find the others not queued yet.
	s.queue.AddAll(logger, unparked)
	if previous != nil {
		// A new generation is an event for its pods: what the old one found
		// unschedulable it may place, so they are tried again (after their
		// backoff) rather than at the next unrelated cluster event or flush.
		s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.EventProfileChanged, nil, nil,
			func(pod *v1.Pod) bool { return pod.Spec.SchedulerName == schedulerName })
	}
	s.retainUsage()
	logger.Info("Profile is live", "schedulerName", schedulerName, "profile", p.Source,
		"generation", p.Generation, "replaced", previous != nil, "unparkedPods", len(unparked))
}

// RemoveProfile stops serving schedulerName; its pending pods are parked
// until a profile for the name appears again, and each is told why it waits.
func (s *Scheduler) RemoveProfile(ctx context.Context, schedulerName string) {
	parked, removed := s.parkPodsOf(schedulerName)
	if !removed {
		return
	}
	s.retainUsage()
	// The status patches go out after the routing lock is released, so the
	// informer handlers are not held up by one API call per parked pod.
	s.reportNoProfile(ctx, schedulerName, parked)
	klog.FromContext(ctx).Info("Profile removed", "schedulerName", schedulerName, "parkedPods", len(parked))
}

// parkPodsOf removes the live profile of schedulerName and moves its pending
// pods from the queue to the parked set; removed is false when no profile
// served the name.
func (s *Scheduler) parkPodsOf(schedulerName string) (parked []*v1.Pod, removed bool) {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	if s.profiles.Delete(schedulerName) == nil {
		return nil, false
	}
	pending, _ := s.queue.PendingPods()
	for _, pod := range pending {
		if pod.Spec.SchedulerName != schedulerName {
			continue
		}
		s.queue.Delete(pod)
		s.parked.Put(pod)
		parked = append(parked, pod)
	}
	return parked, true
}

// Profile returns the live profile serving schedulerName, or nil.
func (s *Scheduler) Profile(schedulerName string) *profile.Profile {
	return s.profiles.Get(schedulerName)
}

// ServingFramework returns the framework of the live profile serving
// schedulerName, or nil.
func (s *Scheduler) ServingFramework(schedulerName string) *runtime.Framework {
	if p := s.profiles.Get(schedulerName); p != nil {
		return p.Framework
	}
	return nil
}

// ParkedPods returns how many pending pods wait for a profile.
func (s *Scheduler) ParkedPods() int { return s.parked.Len() }

// Start runs the scheduler until ctx is done: it starts the informers, waits
// for their caches, then schedules one pod at a time. On return no binding
// cycle is still running.
func (s *Scheduler) Start(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("scheduler")
	ctx = klog.NewContext(ctx, logger)
	s.loopStarted.Store(true)
	// Only the leader runs the loop (every replica without leader election).
	s.metrics.SetLeader(true)
	defer s.metrics.SetLeader(false)

	s.broadcaster.StartRecordingToSink(ctx.Done())
	defer s.broadcaster.Shutdown()

	// On a warm standby RunInformers started them long ago; otherwise they
	// start now and stop with the loop.
	if s.startInformers(ctx) {
		defer s.informerFactory.Shutdown()
	}
	if err := s.waitForInformers(ctx); err != nil || ctx.Err() != nil {
		return err
	}

	s.queue.Run(logger)
	go s.cache.Run(ctx)
	go s.foreign.Run(ctx, s.clock.Now())
	go s.reportPendingPods(ctx)
	go s.shadows.Run(ctx)
	go func() {
		<-ctx.Done()
		s.queue.Close()
	}()

	logger.Info("Scheduling loop started")
	for ctx.Err() == nil {
		if s.awaitLease(ctx) {
			s.scheduleOne(ctx)
		}
	}
	// Pods held at Permit would otherwise keep shutdown waiting for their
	// timeouts; they are rejected, unreserved and left pending for the next
	// leader. Bindings already past Permit finish.
	s.waiting.Iterate(func(wp framework.WaitingPod) { wp.Reject("", "the scheduler is stopping") })
	s.bindings.Wait()
	logger.Info("Scheduling loop stopped")
	return nil
}

// park moves a pod whose profile disappeared to the parked set.
func (s *Scheduler) park(ctx context.Context, pod *v1.Pod) {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	if s.profiles.Get(pod.Spec.SchedulerName) != nil {
		// A profile for the name appeared meanwhile.
		s.queue.Add(klog.FromContext(ctx), pod)
		return
	}
	s.parked.Put(pod)
	klog.FromContext(ctx).V(2).Info("Parked pod: no live profile serves its scheduler name", "schedulerName", pod.Spec.SchedulerName)
}

func (s *Scheduler) onPendingPodAdd(logger klog.Logger, obj any) {
	pod, ok := podFrom(obj)
	if !ok {
		return
	}
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	if s.profiles.Get(pod.Spec.SchedulerName) == nil {
		s.parked.Put(pod)
		return
	}
	s.queue.Add(logger, pod)
	if _, ok := framework.GroupRefOf(pod); ok {
		// A new member may complete a gang whose other members wait for it.
		s.queue.MoveAllToActiveOrBackoffQueue(logger, framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, nil, pod, nil)
	}
}

func (s *Scheduler) onPendingPodUpdate(logger klog.Logger, oldObj, newObj any) {
	oldPod, ok1 := podFrom(oldObj)
	newPod, ok2 := podFrom(newObj)
	if !ok1 || !ok2 {
		return
	}
	// The scheduler's own status patches come back as updates; an assumed
	// pod's update must not requeue it.
	if assumed, _ := s.cache.IsAssumedPod(newPod); assumed {
		return
	}
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	if s.profiles.Get(newPod.Spec.SchedulerName) == nil {
		s.queue.Delete(oldPod)
		s.parked.Put(newPod)
		return
	}
	if s.parked.Remove(oldPod) {
		s.queue.Add(logger, newPod)
		return
	}
	s.queue.Update(logger, oldPod, newPod)
}

func (s *Scheduler) onPendingPodDelete(logger klog.Logger, obj any) {
	pod, ok := podFrom(obj)
	if !ok {
		return
	}
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	s.parked.Remove(pod)
	s.queue.Delete(pod)
	// A pod deleted while held at Permit must not be bound.
	s.rejectWaitingPod(pod, "pod was deleted")
	logger.V(5).Info("Pending pod deleted", "pod", klog.KObj(pod))
}

// noProfileMessage is the PodScheduled message of a pod parked because its
// profile was removed.
func noProfileMessage(schedulerName string) string {
	return fmt.Sprintf("no SchedulingProfile serves schedulerName %q", schedulerName)
}

// reportNoProfile tells each pod, parked when the profile serving
// schedulerName was removed, why it waits: PodScheduled=False with reason
// Unschedulable. Pods already saying so are not patched again, and pods a
// new profile took from the parked set meanwhile are left alone.
func (s *Scheduler) reportNoProfile(ctx context.Context, schedulerName string, pods []*v1.Pod) {
	msg := noProfileMessage(schedulerName)
	for _, pod := range pods {
		if !s.parked.Has(pod) {
			continue
		}
		s.statusPatcher.SendNotScheduled(ctx, pod, apiwrite.NotScheduled{Reason: v1.PodReasonUnschedulable, Message: msg}, s.clock.Now())
	}
}
