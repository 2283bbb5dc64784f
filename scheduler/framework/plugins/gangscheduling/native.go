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

package gangscheduling

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/metrics"
)

// nativePermitTimeout is how long a member of a scheduling.k8s.io gang
// waits at Permit for the rest of the members its group cycle placed, as
// kube-scheduler waits.
const nativePermitTimeout = 5 * time.Minute

// Messages of the native path, in kube-scheduler v1.37's words.
const (
	msgAwaitingMinCount = "waiting for minCount pods from a gang to appear in scheduling queue"
	msgAwaitingPlaced   = "waiting for minCount pods from a gang to be scheduled"
)

var (
	_ framework.PreEnqueuePlugin        = &GangScheduling{}
	_ framework.PlacementFeasiblePlugin = &GangScheduling{}
)

// nativeGroupOf returns the scheduling.k8s.io PodGroup the pod joins, if it
// joins one; err says why the group is unknown.
func (pl *GangScheduling) nativeGroupOf(pod *v1.Pod) (pg *schedulingv1beta1.PodGroup, ok bool, err error) {
	name, ok := framework.SchedulingGroupOf(pod)
	if !ok {
		return nil, false, nil
	}
	pg, err = pl.handle.Workloads().PodGroup(pod.Namespace, name)
	return pg, true, err
}

// PreEnqueue keeps a member of a scheduling.k8s.io PodGroup out of the
// active queue until its group exists and, for a gang, until minCount of
// its pods exist. Pods of Berth's own PodGroups and other pods pass.
func (pl *GangScheduling) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	pg, ok, err := pl.nativeGroupOf(pod)
	if !ok {
		return nil
	}
	if err != nil {
		name, _ := framework.SchedulingGroupOf(pod)
		return framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", name))
	}
	gang := pg.Spec.SchedulingPolicy.Gang
	if gang == nil {
		return nil
	}
	if len(pl.handle.Workloads().Members(pg.Namespace, pg.Name)) < int(gang.MinCount) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgAwaitingMinCount)
	}
	return nil
}

// PlacementFeasible admits a group once minCount of its members are placed
// (1 for a basic group), waits while the members left could still get it
// there, and gives up as soon as they could not.
func (pl *GangScheduling) PlacementFeasible(_ context.Context, group *schedulingv1beta1.PodGroup, p framework.PlacementProgress) *framework.Status {
	minCount := framework.MinCount(group)
	switch {
	case p.Remaining+p.Scheduled < minCount:
		return framework.NewStatus(framework.Unschedulable,
			fmt.Sprintf("minCount (%d) cannot be satisfied: %d scheduled, %d remaining", minCount, p.Scheduled, p.Remaining))
	case p.Scheduled < minCount:
		return framework.NewStatus(framework.Wait,
			fmt.Sprintf("minCount (%d) is not yet satisfied: %d scheduled, %d remaining", minCount, p.Scheduled, p.Remaining))
	}
	return nil
}

// nativePermit holds a gang member until minCount members of its group are
// placed, then lets every waiting member go; a basic group's members pass.
// Its group cycle assumes the members one after another, so the last one
// assumed releases the others.
func (pl *GangScheduling) nativePermit(ctx context.Context, pod *v1.Pod, pg *schedulingv1beta1.PodGroup) (*framework.Status, time.Duration) {
	if pg.Spec.SchedulingPolicy.Gang == nil {
		return nil, 0
	}
	logger := klog.FromContext(ctx)
	members := pl.handle.Workloads().Members(pg.Namespace, pg.Name)
	placed, counted := 0, false
	unscheduled := make(map[string]*v1.Pod)
	for _, m := range members {
		switch {
		case m.UID == pod.UID:
			counted = true
			placed++
		case pl.handle.Workloads().IsPlaced(m):
			placed++
		default:
			unscheduled[m.Namespace+"/"+m.Name] = m
		}
	}
	if !counted {
		// The pod is assumed by now even if the member index lags.
		placed++
	}
	if placed < framework.MinCount(pg) {
		pl.handle.Activate(logger, unscheduled)
		logger.V(4).Info("Quorum of the gang not met; waiting for another member", "podGroup", klog.KObj(pg), "placed", placed, "activated", len(unscheduled))
		pl.countWait(pg.Namespace)
		return framework.NewStatus(framework.Wait, msgAwaitingPlaced), nativePermitTimeout
	}
	allowed := 0
	pl.handle.IterateOverWaitingPods(func(wp framework.WaitingPod) {
		p := wp.GetPod()
		if name, ok := framework.SchedulingGroupOf(p); ok && p.Namespace == pg.Namespace && name == pg.Name {
			wp.Allow(Name)
			allowed++
		}
	})
	logger.V(4).Info("Quorum of the gang met; allowing its waiting members", "podGroup", klog.KObj(pg), "placed", placed, "allowed", allowed)
	if allowed > 0 {
		pl.countRelease(pg.Namespace, metrics.GangComplete)
	}
	return nil, 0
}

// nativeEvents are the events that may let a gated member of a
// scheduling.k8s.io PodGroup into the queue.
func nativeEvents() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, QueueingHintFn: isSchedulableAfterNativeMemberAdded},
		{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add}, QueueingHintFn: isSchedulableAfterNativeMemberAdded},
		{Event: framework.ClusterEvent{Resource: framework.NativePodGroup, ActionType: framework.Add}, QueueingHintFn: isSchedulableAfterNativeGroupAdded},
		{Event: framework.ClusterEvent{Resource: framework.NativePodGroup, ActionType: framework.Update}, QueueingHintFn: isSchedulableAfterNativeGroupUpdated},
	}
}

func isSchedulableAfterNativeMemberAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, added, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	mine, ok := framework.SchedulingGroupOf(pod)
	if !ok || added == nil || added.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	if theirs, ok := framework.SchedulingGroupOf(added); !ok || theirs != mine {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("Another member of the pod's group arrived", "pod", klog.KObj(pod), "member", klog.KObj(added))
	return framework.Queue, nil
}

func isSchedulableAfterNativeGroupAdded(_ logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pg, err := eventobj.Pair[*schedulingv1beta1.PodGroup](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if name, ok := framework.SchedulingGroupOf(pod); ok && pg != nil && pg.Namespace == pod.Namespace && pg.Name == name {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterNativeGroupUpdated retries the members of a gang whose
// minCount went down; no other change of a PodGroup can help them.
func isSchedulableAfterNativeGroupUpdated(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, pg, err := eventobj.Pair[*schedulingv1beta1.PodGroup](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if name, ok := framework.SchedulingGroupOf(pod); !ok || pg == nil || old == nil || pg.Namespace != pod.Namespace || pg.Name != name {
		return framework.QueueSkip, nil
	}
	before, after := old.Spec.SchedulingPolicy.Gang, pg.Spec.SchedulingPolicy.Gang
	if before == nil || after == nil || after.MinCount >= before.MinCount {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("The pod's gang needs fewer members", "pod", klog.KObj(pod), "podGroup", klog.KObj(pg), "oldMinCount", before.MinCount, "newMinCount", after.MinCount)
	return framework.Queue, nil
}
