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

// Package gangscheduling implements GangScheduling, the plugin that binds
// the members of a gang all together or not at all.
//
// Members of Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1, joined
// through spec.schedulingGroup) are served as kube-scheduler v1.37 serves
// them (native.go): PreEnqueue keeps them out of the queue until their
// group exists with minCount pods, the scheduler's group cycle places them
// together, PlacementFeasible says when enough are placed, and Permit lets
// them bind once all the cycle placed are assumed.
//
// A pod joins a gang with the label scheduling.berth.io/pod-group naming a
// PodGroup in its namespace. PreFilter turns a member away while its group
// has fewer than minMember pods; Permit holds each placed member until
// minMember of them are placed, then lets them all bind. A member that fails
// before its group is complete (at Filter, at Permit's timeout, or anywhere
// after Reserve) releases the members held at Permit, so no node keeps room
// reserved for a gang that cannot form.
package gangscheduling

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/metrics"
)

// Name is the plugin's registered name.
const Name = names.GangScheduling

// defaultScheduleTimeout is how long members wait at Permit when the
// PodGroup does not say (the CRD defaults it to the same 60 s).
const defaultScheduleTimeout = 60 * time.Second

// GangScheduling holds a PodGroup's placed members until minMember of them
// are placed.
type GangScheduling struct {
	handle framework.Handle
	// metrics counts the waits and releases; nil when the handle records none.
	metrics *metrics.Metrics
}

var (
	_ framework.PreFilterPlugin   = &GangScheduling{}
	_ framework.PostFilterPlugin  = &GangScheduling{}
	_ framework.ReservePlugin     = &GangScheduling{}
	_ framework.PermitPlugin      = &GangScheduling{}
	_ framework.EnqueueExtensions = &GangScheduling{}
)

// New is the plugin's factory; GangScheduling takes no args.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &GangScheduling{handle: h, metrics: metrics.From(h)}, nil
}

// Name returns the plugin's name.
func (*GangScheduling) Name() string { return Name }

// gangOf returns the pod's group key, its PodGroup and its live members, or
// a status saying why the pod cannot be scheduled as a member. ok is false
// for a pod that belongs to no gang.
func (pl *GangScheduling) gangOf(pod *v1.Pod) (g gang, ok bool, st *framework.Status) {
	if _, native := framework.SchedulingGroupOf(pod); native {
		// A member of a scheduling.k8s.io PodGroup is served by the group
		// cycle and the native path (native.go), whatever its labels say.
		return gang{}, false, nil
	}
	name, ok := framework.PodGroupOf(pod)
	if !ok {
		return gang{}, false, nil
	}
	pg, err := pl.handle.PodGroups().PodGroup(pod.Namespace, name)
	if err != nil {
		return gang{}, true, framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("pod group %s/%s is not known: %v", pod.Namespace, name, err))
	}
	return gang{group: pg, members: pl.handle.PodGroups().Members(pod.Namespace, name)}, true, nil
}

// gang is one PodGroup and its members as seen in one call.
type gang struct {
	group   *v1alpha1.PodGroup
	members []*v1.Pod
}

func (g gang) key() string { return g.group.Namespace + "/" + g.group.Name }

func (g gang) minMember() int { return int(g.group.Spec.MinMember) }

// PreFilter rejects a member of a gang that has fewer than minMember pods,
// unless the gang has already formed (minMember members are placed).
func (pl *GangScheduling) PreFilter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	g, ok, st := pl.gangOf(pod)
	if !ok {
		return nil, framework.NewStatus(framework.Skip)
	}
	if st != nil {
		return nil, st
	}
	if len(g.members) >= g.minMember() || pl.placed(g, "") >= g.minMember() {
		return nil, nil
	}
	return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable,
		fmt.Sprintf("pod group %s has %d of the %d pods it needs", g.key(), len(g.members), g.minMember()))
}

// PreFilterExtensions returns nil: the plugin has no Filter.
func (*GangScheduling) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// PostFilter runs for a member that fits no node. When the rest of its gang
// cannot reach minMember without it, the members held at Permit are
// released at once rather than at their timeout.
func (pl *GangScheduling) PostFilter(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, _ framework.NodeToStatusReader) (*framework.PostFilterResult, *framework.Status) {
	g, ok, st := pl.gangOf(pod)
	if !ok || st != nil {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	if pl.placed(g, pod.UID) >= g.minMember() || len(g.members)-1 >= g.minMember() {
		// The gang has formed, or could still form without this pod.
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	released := pl.release(klog.FromContext(ctx), g, pod, "fits no node")
	return nil, framework.NewStatus(framework.Unschedulable,
		fmt.Sprintf("pod group %s cannot place %d pods; released %d members waiting at Permit", g.key(), g.minMember(), released))
}

// Reserve does nothing; the plugin implements Reserve for Unreserve.
func (*GangScheduling) Reserve(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	return nil
}

// Unreserve runs when a placed member is not bound after all: if its gang
// has not formed, the other members held at Permit are released too.
func (pl *GangScheduling) Unreserve(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) {
	g, ok, st := pl.gangOf(pod)
	if !ok || st != nil || pl.placed(g, pod.UID) >= g.minMember() {
		return
	}
	pl.release(klog.FromContext(ctx), g, pod, "was not bound")
}

// Permit lets the member through when it completes its gang, allowing the
// members already waiting at the same moment; otherwise it waits, for at
// most the PodGroup's scheduleTimeoutSeconds, and the gang's pending members
// are moved to the front of the queue.
func (pl *GangScheduling) Permit(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) (*framework.Status, time.Duration) {
	if pg, ok, err := pl.nativeGroupOf(pod); ok {
		if err != nil {
			name, _ := framework.SchedulingGroupOf(pod)
			return framework.AsStatus(fmt.Errorf("failed to get podGroup %s/%s: %w", pod.Namespace, name, err)), 0
		}
		return pl.nativePermit(ctx, pod, pg)
	}
	g, ok, st := pl.gangOf(pod)
	if !ok {
		return nil, 0
	}
	if st != nil {
		return st, 0
	}
	logger := klog.FromContext(ctx)
	placed := pl.placed(g, "")
	if placed < g.minMember() && !pl.counts(g, pod.UID) {
		// The pod itself is assumed by now; count it even if the member
		// index has not seen it yet.
		placed++
	}
	if placed >= g.minMember() {
		allowed := 0
		pl.forEachWaiting(g, func(wp framework.WaitingPod) {
			wp.Allow(Name)
			allowed++
		})
		logger.V(3).Info("Pod group is complete; its members bind", "podGroup", klog.KObj(g.group), "placed", placed, "allowed", allowed)
		if allowed > 0 {
			pl.countRelease(g.group.Namespace, metrics.GangComplete)
		}
		return nil, 0
	}
	pending := make(map[string]*v1.Pod)
	for _, m := range g.members {
		if m.UID != pod.UID && !pl.handle.PodGroups().IsPlaced(m) {
			pending[m.Namespace+"/"+m.Name] = m
		}
	}
	pl.handle.Activate(logger, pending)
	pl.countWait(g.group.Namespace)
	logger.V(4).Info("Pod group member waits for the rest", "podGroup", klog.KObj(g.group), "placed", placed, "minMember", g.minMember(), "activated", len(pending))
	return framework.NewStatus(framework.Wait, fmt.Sprintf("pod group %s has %d of %d pods placed", g.key(), placed, g.minMember())), scheduleTimeout(g.group)
}

// countWait counts a member of a group in namespace held at Permit.
func (pl *GangScheduling) countWait(namespace string) {
	if pl.metrics != nil {
		pl.metrics.CountGangWait(namespace, pl.handle.ProfileName())
	}
}

// countRelease counts a group in namespace whose waiting members were let go.
func (pl *GangScheduling) countRelease(namespace, result string) {
	if pl.metrics != nil {
		pl.metrics.CountGangRelease(namespace, pl.handle.ProfileName(), result)
	}
}

// counts reports whether the member with the UID is among g's members.
func (pl *GangScheduling) counts(g gang, uid types.UID) bool {
	for _, m := range g.members {
		if m.UID == uid {
			return true
		}
	}
	return false
}

// placed counts g's members that are assumed or bound, leaving out except.
func (pl *GangScheduling) placed(g gang, except types.UID) int {
	n := 0
	for _, m := range g.members {
		if m.UID != except && pl.handle.PodGroups().IsPlaced(m) {
			n++
		}
	}
	return n
}

// release rejects every member of g held at Permit other than cause, and
// returns how many it rejected.
func (pl *GangScheduling) release(logger logr.Logger, g gang, cause *v1.Pod, why string) int {
	msg := fmt.Sprintf("pod group %s was released: member %s %s", g.key(), cause.Name, why)
	n := 0
	pl.forEachWaiting(g, func(wp framework.WaitingPod) {
		if wp.GetPod().UID != cause.UID {
			wp.Reject(Name, msg)
			n++
		}
	})
	if n > 0 {
		pl.countRelease(g.group.Namespace, metrics.GangReleased)
		logger.V(2).Info("Released pod group members waiting at Permit", "podGroup", klog.KObj(g.group), "released", n, "cause", klog.KObj(cause), "reason", why)
	}
	return n
}

// forEachWaiting calls fn for each of g's members held at Permit.
func (pl *GangScheduling) forEachWaiting(g gang, fn func(framework.WaitingPod)) {
	var waiting []framework.WaitingPod
	pl.handle.IterateOverWaitingPods(func(wp framework.WaitingPod) {
		p := wp.GetPod()
		if name, ok := framework.PodGroupOf(p); ok && p.Namespace == g.group.Namespace && name == g.group.Name {
			waiting = append(waiting, wp)
		}
	})
	// fn may reject pods, which must not happen while the set is being iterated.
	for _, wp := range waiting {
		fn(wp)
	}
}

// scheduleTimeout is how long the group's members may wait at Permit.
func scheduleTimeout(pg *v1alpha1.PodGroup) time.Duration {
	if s := pg.Spec.ScheduleTimeoutSeconds; s != nil && *s > 0 {
		return time.Duration(*s) * time.Second
	}
	return defaultScheduleTimeout
}

// EventsToRegister retries a member when another member arrives or its
// PodGroup appears or changes.
func (pl *GangScheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return append([]framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, QueueingHintFn: isSchedulableAfterMemberAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Add | framework.Update}, QueueingHintFn: isSchedulableAfterPodGroupChange},
	}, nativeEvents()...), nil
}

func isSchedulableAfterMemberAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, added, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if added == nil || added.UID == pod.UID || added.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	mine, _ := framework.PodGroupOf(pod)
	theirs, _ := framework.PodGroupOf(added)
	if mine == "" || mine != theirs {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("Another member of the pod's group arrived", "pod", klog.KObj(pod), "member", klog.KObj(added))
	return framework.Queue, nil
}

func isSchedulableAfterPodGroupChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, pg, err := eventobj.Pair[*v1alpha1.PodGroup](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if name, ok := framework.PodGroupOf(pod); !ok || pg == nil || pg.Namespace != pod.Namespace || pg.Name != name {
		return framework.QueueSkip, nil
	}
	if old != nil && old.Generation == pg.Generation {
		// A status write (the PodGroup controller's) changes nothing here.
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("The pod's PodGroup was created or changed", "pod", klog.KObj(pod), "podGroup", klog.KObj(pg))
	return framework.Queue, nil
}
