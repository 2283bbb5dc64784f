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
// the members of a gang all together or not at all, as kube-scheduler
// v1.37's plugin of that name does.
//
// It serves both kinds of PodGroup the scheduler reads (framework.GroupRef):
// Kubernetes' own (scheduling.k8s.io/v1beta1, joined through
// spec.schedulingGroup) and Berth's (scheduling.berth.io/v1alpha1, joined
// through the label scheduling.berth.io/pod-group). PreEnqueue keeps a
// member out of the queue until its group exists with minCount pods, the
// scheduler's group cycle places the members together, PlacementFeasible
// says when enough are placed, and Permit lets them bind once all the
// cycle placed are assumed.
package gangscheduling

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/metrics"
)

// Name is the plugin's registered name.
const Name = names.GangScheduling

// permitTimeout is how long a gang's member waits at Permit for the rest
// of the members its group cycle placed, as kube-scheduler waits.
const permitTimeout = 5 * time.Minute

// Messages in kube-scheduler v1.37's words.
const (
	msgAwaitingMinCount = "waiting for minCount pods from a gang to appear in scheduling queue"
	msgAwaitingPlaced   = "waiting for minCount pods from a gang to be scheduled"
	// msgAwaitingTreeQuorum takes the name of a hierarchy's root.
	msgAwaitingTreeQuorum = "waiting for composite pod group %q tree to meet quorum"
)

// GangScheduling keeps a gang's members back until the group can form, and
// holds the placed ones at Permit until minCount of them are placed.
type GangScheduling struct {
	handle framework.Handle
	// metrics counts the waits and releases; nil when the handle records none.
	metrics *metrics.Metrics
}

var (
	_ framework.PreEnqueuePlugin        = &GangScheduling{}
	_ framework.PlacementFeasiblePlugin = &GangScheduling{}
	_ framework.PermitPlugin            = &GangScheduling{}
	_ framework.EnqueueExtensions       = &GangScheduling{}
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

// groupOf returns the PodGroup the pod joins, if it joins one the
// scheduler serves; err says why the group is unknown.
func (pl *GangScheduling) groupOf(pod *v1.Pod) (ref framework.GroupRef, pg *schedulingv1beta1.PodGroup, ok bool, err error) {
	ref, ok = framework.GroupRefOf(pod)
	if !ok {
		return ref, nil, false, nil
	}
	pg, err = pl.handle.Workloads().PodGroup(ref)
	return ref, pg, true, err
}

// PreEnqueue keeps a member of a PodGroup out of the active queue until its
// group exists and, for a gang, until minCount of its pods exist. Other
// pods pass.
func (pl *GangScheduling) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	ref, pg, ok, err := pl.groupOf(pod)
	if !ok {
		return nil
	}
	if unread := (*framework.UnreadGroupError)(nil); errors.As(err, &unread) {
		return pl.unreadGroup(pod, ref, unread)
	}
	if err != nil {
		return awaitingGroup(ref)
	}
	if h, ok := framework.HierarchyOf(pl.handle.Workloads()); ok && !ref.Berth {
		return pl.preEnqueueHierarchy(h, ref)
	}
	gang := pg.Spec.SchedulingPolicy.Gang
	if gang == nil {
		return nil
	}
	if len(pl.handle.Workloads().Members(ref)) < int(gang.MinCount) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgAwaitingMinCount)
	}
	return nil
}

// unreadGroup holds a member whose PodGroup the scheduler cannot read (the
// apiserver serves PodGroups in another version, or not at all): scheduled
// alone, it would break its group's promises. The pod gets a warning
// event naming the versions.
func (pl *GangScheduling) unreadGroup(pod *v1.Pod, ref framework.GroupRef, err *framework.UnreadGroupError) *framework.Status {
	msg := fmt.Sprintf("pod group %q cannot be read: %v; the pod waits rather than being scheduled without its group", ref.Name, err)
	if r := pl.handle.EventRecorder(); r != nil {
		r.Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
}

// awaitingGroup is the verdict on a member whose PodGroup does not exist.
func awaitingGroup(ref framework.GroupRef) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable,
		fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", ref.Name))
}

// preEnqueueHierarchy keeps a member back, as kube-scheduler does with its
// CompositePodGroup gate on, until the root of its PodGroup's hierarchy
// exists and the hierarchy meets its quorum: a PodGroup is ready with
// minCount pods (one for a basic group), a CompositePodGroup with
// minGroupCount ready children (one for a basic one).
func (pl *GangScheduling) preEnqueueHierarchy(h framework.HierarchyLister, ref framework.GroupRef) *framework.Status {
	root, err := h.Hierarchy(ref)
	if herr := (*framework.HierarchyError)(nil); errors.As(err, &herr) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, herr.Reason)
	}
	if err != nil {
		return awaitingGroup(ref)
	}
	if treeReady(root, pl.existing) {
		return nil
	}
	if root.IsLeaf() {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgAwaitingMinCount)
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(msgAwaitingTreeQuorum, root.Key.Name))
}

// existing counts a PodGroup's pods.
func (pl *GangScheduling) existing(n *framework.GroupNode) int {
	return len(pl.handle.Workloads().Members(n.Ref()))
}

// treeReady reports whether the node meets its quorum with the pods count
// finds in each PodGroup: a PodGroup with minCount of them, a
// CompositePodGroup with minGroupCount children that meet theirs.
func treeReady(n *framework.GroupNode, count func(*framework.GroupNode) int) bool {
	if n.IsLeaf() {
		return count(n) >= n.MinCount()
	}
	ready := 0
	for _, c := range n.Children {
		if treeReady(c, count) {
			ready++
		}
	}
	return ready >= n.MinCount()
}

// PlacementFeasible admits a group once minCount of its members are placed
// (1 for a basic group), waits while the members left could still get it
// there, and gives up as soon as they could not. A CompositePodGroup's
// members are its children, and its minCount is its gang's minGroupCount.
func (pl *GangScheduling) PlacementFeasible(_ context.Context, group *framework.GroupNode, p framework.PlacementProgress) *framework.Status {
	minCount := group.MinCount()
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

// Permit holds a gang member until minCount members of its group are
// placed, then lets every waiting member go; a basic group's members and
// pods in no group pass. The group cycle assumes the members one after
// another, so the last one assumed releases the others.
func (pl *GangScheduling) Permit(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) (*framework.Status, time.Duration) {
	ref, pg, ok, err := pl.groupOf(pod)
	if !ok {
		return nil, 0
	}
	if err != nil {
		return framework.AsStatus(fmt.Errorf("failed to get podGroup %s/%s: %w", pod.Namespace, ref.Name, err)), 0
	}
	if h, ok := framework.HierarchyOf(pl.handle.Workloads()); ok && !ref.Berth && pg.Spec.ParentCompositePodGroupName != nil {
		return pl.permitHierarchy(ctx, h, pod, ref)
	}
	if pg.Spec.SchedulingPolicy.Gang == nil {
		return nil, 0
	}
	logger := klog.FromContext(ctx)
	w := pl.handle.Workloads()
	placed, counted := 0, false
	members := w.Members(ref)
	// The members not placed are keyed only when they are activated,
	// while the quorum is not met.
	unscheduled := make([]*v1.Pod, 0, len(members))
	for _, m := range members {
		switch {
		case m.UID == pod.UID:
			counted = true
			placed++
		case w.IsPlaced(m):
			placed++
		default:
			unscheduled = append(unscheduled, m)
		}
	}
	if !counted {
		// The pod is assumed by now even if the member index lags.
		placed++
	}
	if placed < framework.MinCount(pg) {
		activate := make(map[string]*v1.Pod, len(unscheduled))
		for _, m := range unscheduled {
			activate[m.Namespace+"/"+m.Name] = m
		}
		pl.handle.Activate(logger, activate)
		logger.V(4).Info("Quorum of the gang not met; waiting for another member", "podGroup", klog.KObj(pg), "placed", placed, "activated", len(unscheduled))
		pl.countWait(pg.Namespace)
		return framework.NewStatus(framework.Wait, msgAwaitingPlaced), permitTimeoutOf(pg)
	}
	allowed := 0
	pl.handle.IterateOverWaitingPods(func(wp framework.WaitingPod) {
		if framework.InGroup(wp.GetPod(), ref) {
			wp.Allow(Name)
			allowed++
		}
	})
	logger.V(4).Info("Quorum of the gang met; allowing its waiting members", "podGroup", klog.KObj(pg), "placed", placed, "allowed", allowed)
	if allowed > 0 {
		pl.countRelease(pg.Namespace)
	}
	return nil, 0
}

// permitHierarchy holds a member of a PodGroup of a hierarchy, basic or
// gang, until the hierarchy's root meets its quorum with the pods placed,
// as kube-scheduler does with its CompositePodGroup gate on, then lets
// every waiting member of the hierarchy go.
func (pl *GangScheduling) permitHierarchy(ctx context.Context, h framework.HierarchyLister, pod *v1.Pod, ref framework.GroupRef) (*framework.Status, time.Duration) {
	logger := klog.FromContext(ctx)
	root, err := h.Hierarchy(ref)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("failed to build hierarchy snapshot: %w", err)), 0
	}
	w := pl.handle.Workloads()
	unscheduled := make(map[string]*v1.Pod)
	placed := func(n *framework.GroupNode) int {
		count, counted := 0, false
		for _, m := range w.Members(n.Ref()) {
			switch {
			case m.UID == pod.UID:
				counted = true
				count++
			case w.IsPlaced(m):
				count++
			default:
				unscheduled[m.Namespace+"/"+m.Name] = m
			}
		}
		if !counted && n.Ref() == ref {
			// The pod is assumed by now even if the member index lags.
			count++
		}
		return count
	}
	if !treeReady(root, placed) {
		pl.handle.Activate(logger, unscheduled)
		logger.V(4).Info("Quorum of the composite pod group not met; waiting for another member", "compositePodGroup", klog.KRef(root.Key.Namespace, root.Key.Name), "activated", len(unscheduled))
		pl.countWait(pod.Namespace)
		return framework.NewStatus(framework.Wait, fmt.Sprintf(msgAwaitingTreeQuorum, root.Key.Name)), permitTimeout
	}
	leaves := sets.New[framework.GroupRef]()
	for _, leaf := range root.Leaves() {
		leaves.Insert(leaf.Ref())
	}
	allowed := 0
	pl.handle.IterateOverWaitingPods(func(wp framework.WaitingPod) {
		if r, ok := framework.GroupRefOf(wp.GetPod()); ok && leaves.Has(r) {
			wp.Allow(Name)
			allowed++
		}
	})
	logger.V(4).Info("Quorum of the composite pod group met; allowing its waiting members", "compositePodGroup", klog.KRef(root.Key.Namespace, root.Key.Name), "allowed", allowed)
	if allowed > 0 {
		pl.countRelease(pod.Namespace)
	}
	return nil, 0
}

// permitTimeoutOf is how long the group's members wait at Permit: the
// deprecated scheduleTimeoutSeconds of one of Berth's PodGroups that has
// it, kube-scheduler's five minutes otherwise.
func permitTimeoutOf(pg *schedulingv1beta1.PodGroup) time.Duration {
	if s, ok := pg.Annotations[framework.PermitTimeoutAnnotation]; ok && framework.RefOf(pg).Berth {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return permitTimeout
}

// countWait counts a member of a group in namespace held at Permit.
func (pl *GangScheduling) countWait(namespace string) {
	if pl.metrics != nil {
		pl.metrics.CountGangWait(namespace, pl.handle.ProfileName())
	}
}

// countRelease counts a group in namespace whose waiting members were let go.
func (pl *GangScheduling) countRelease(namespace string) {
	if pl.metrics != nil {
		pl.metrics.CountGangRelease(namespace, pl.handle.ProfileName(), metrics.GangComplete)
	}
}

// EventsToRegister retries a member held back when another member of its
// group (or of its group's hierarchy) arrives, when its PodGroup or a
// CompositePodGroup above it appears, or when a gang comes to need fewer
// members; the same for both kinds of PodGroup.
func (pl *GangScheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	var out []framework.ClusterEventWithHint
	out = append(out,
		framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterMemberAdded},
		framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterMemberAdded},
	)
	for _, r := range []framework.EventResource{framework.NativePodGroup, framework.PodGroup} {
		out = append(out,
			framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: r, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterGroupAdded},
			framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: r, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterGroupUpdated},
		)
	}
	if _, ok := framework.HierarchyOf(pl.handle.Workloads()); ok {
		out = append(out, framework.ClusterEventWithHint{
			Event:          framework.ClusterEvent{Resource: framework.NativeCompositePodGroup, ActionType: framework.Add},
			QueueingHintFn: pl.isSchedulableAfterCompositeAdded,
		})
	}
	return out, nil
}

// related reports whether the group the pod joins is the group other
// names or, when the scheduler follows hierarchies, shares a root with it;
// other is a PodGroup or CompositePodGroup of Kubernetes' own.
func (pl *GangScheduling) related(mine framework.GroupRef, other framework.GroupKey) bool {
	h, ok := framework.HierarchyOf(pl.handle.Workloads())
	if !ok || mine.Berth {
		return other.Kind == framework.PodGroupKind && mine == framework.GroupRef{Namespace: other.Namespace, Name: other.Name}
	}
	a, okA := h.RootOf(podGroupKey(mine))
	b, okB := h.RootOf(other)
	return okA && okB && a == b
}

// relatedGroups reports whether the groups mine and other name are one,
// or share a root.
func (pl *GangScheduling) relatedGroups(mine, other framework.GroupRef) bool {
	if mine.Berth || other.Berth {
		return mine == other
	}
	return pl.related(mine, podGroupKey(other))
}

// podGroupKey is the hierarchy key of a PodGroup of Kubernetes' own.
func podGroupKey(ref framework.GroupRef) framework.GroupKey {
	return framework.GroupKey{Kind: framework.PodGroupKind, Namespace: ref.Namespace, Name: ref.Name}
}

func (pl *GangScheduling) isSchedulableAfterMemberAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, added, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	mine, ok := framework.GroupRefOf(pod)
	if !ok || added == nil || added.UID == pod.UID {
		return framework.QueueSkip, nil
	}
	theirs, ok := framework.GroupRefOf(added)
	if !ok || !pl.relatedGroups(mine, theirs) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("Another member of the pod's group arrived", "pod", klog.KObj(pod), "member", klog.KObj(added))
	return framework.Queue, nil
}

func (pl *GangScheduling) isSchedulableAfterGroupAdded(_ logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pg, err := eventobj.Pair[*schedulingv1beta1.PodGroup](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	mine, ok := framework.GroupRefOf(pod)
	if ok && pg != nil && pl.relatedGroups(mine, framework.RefOf(pg)) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterGroupUpdated retries the members of a gang whose
// minCount went down, or that stopped being a gang (Berth's PodGroups
// allow that change); no other change of a PodGroup can help them.
func (pl *GangScheduling) isSchedulableAfterGroupUpdated(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, pg, err := eventobj.Pair[*schedulingv1beta1.PodGroup](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	mine, ok := framework.GroupRefOf(pod)
	if !ok || pg == nil || old == nil || !pl.relatedGroups(mine, framework.RefOf(pg)) {
		return framework.QueueSkip, nil
	}
	before, after := old.Spec.SchedulingPolicy.Gang, pg.Spec.SchedulingPolicy.Gang
	if before == nil || (after != nil && after.MinCount >= before.MinCount) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("The pod's gang needs fewer members", "pod", klog.KObj(pod), "podGroup", klog.KObj(pg), "oldMinCount", before.MinCount, "newMinCount", framework.MinCount(pg))
	return framework.Queue, nil
}

// isSchedulableAfterCompositeAdded retries the members of a hierarchy that
// a new CompositePodGroup joins, or gives its root.
func (pl *GangScheduling) isSchedulableAfterCompositeAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, cpg, err := eventobj.Pair[*schedulingv1alpha3.CompositePodGroup](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	mine, ok := framework.GroupRefOf(pod)
	if !ok || cpg == nil || mine.Berth {
		return framework.QueueSkip, nil
	}
	if !pl.related(mine, framework.GroupKey{Kind: framework.CompositePodGroupKind, Namespace: cpg.Namespace, Name: cpg.Name}) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("A CompositePodGroup of the pod's hierarchy appeared", "pod", klog.KObj(pod), "compositePodGroup", klog.KObj(cpg))
	return framework.Queue, nil
}
