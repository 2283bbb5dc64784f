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

package framework

import (
	"context"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
)

// NativePodGroup is the event resource of Kubernetes' own PodGroup
// (scheduling.k8s.io/v1beta1), which pods join through spec.schedulingGroup.
const NativePodGroup EventResource = "scheduling.k8s.io/PodGroup"

// BerthPodGroupAPIVersion is the apiVersion a PodGroup carries when the
// scheduler made it from one of Berth's own PodGroups
// (scheduling.berth.io/v1alpha1), so that one group cycle serves both.
var BerthPodGroupAPIVersion = v1alpha1.GroupVersion.String()

// PermitTimeoutAnnotation is set on the PodGroup that stands for one of
// Berth's that has the deprecated scheduleTimeoutSeconds: how long, in
// seconds, its members wait at Permit.
const PermitTimeoutAnnotation = "scheduling.berth.io/schedule-timeout-seconds"

// GroupRef names the PodGroup a pod joins: one of Kubernetes' own, through
// the pod's spec.schedulingGroup, or one of Berth's, through the label
// scheduling.berth.io/pod-group.
type GroupRef struct {
	// Namespace is the pod's and the group's namespace.
	Namespace string
	// Name is the group's name.
	Name string
	// Berth is true for a scheduling.berth.io PodGroup.
	Berth bool
}

// String returns the group's namespace/name, with the API group for one of Berth's.
func (r GroupRef) String() string {
	if r.Berth {
		return "podgroups.scheduling.berth.io/" + r.Namespace + "/" + r.Name
	}
	return r.Namespace + "/" + r.Name
}

// GroupRefOf returns the PodGroup the pod joins, if any. A pod that names a
// scheduling.k8s.io PodGroup in spec.schedulingGroup joins that one,
// whatever its labels say.
func GroupRefOf(pod *v1.Pod) (GroupRef, bool) {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil && *sg.PodGroupName != "" {
		return GroupRef{Namespace: pod.Namespace, Name: *sg.PodGroupName}, true
	}
	if name := pod.Labels[v1alpha1.PodGroupLabel]; name != "" {
		return GroupRef{Namespace: pod.Namespace, Name: name, Berth: true}, true
	}
	return GroupRef{}, false
}

// RefOf returns the reference of a PodGroup the WorkloadLister returned.
func RefOf(pg *schedulingv1beta1.PodGroup) GroupRef {
	return GroupRef{Namespace: pg.Namespace, Name: pg.Name, Berth: pg.APIVersion == BerthPodGroupAPIVersion}
}

// InGroup reports whether the pod joins the group ref names.
func InGroup(pod *v1.Pod, ref GroupRef) bool {
	got, ok := GroupRefOf(pod)
	return ok && got == ref
}

// MinCount returns how many members a PodGroup needs placed at once: its
// gang policy's minCount, or 1 for a basic group.
func MinCount(pg *schedulingv1beta1.PodGroup) int {
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		return int(g.MinCount)
	}
	return 1
}

// TopologyKeyOf returns the node label whose domains a PodGroup must keep
// all its members in, if it has such a constraint.
func TopologyKeyOf(pg *schedulingv1beta1.PodGroup) (string, bool) {
	if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 && c.Topology[0].Key != "" {
		return c.Topology[0].Key, true
	}
	return "", false
}

// WorkloadLister reads the PodGroups the scheduler serves, Kubernetes' own
// and Berth's, and their members. Berth's PodGroups are read as
// scheduling.k8s.io/v1beta1 PodGroups with apiVersion
// BerthPodGroupAPIVersion, so that every plugin reads one type.
type WorkloadLister interface {
	// Serves reports whether the scheduler watches the kind of PodGroup
	// ref names: Kubernetes' own only when the apiserver serves them.
	Serves(ref GroupRef) bool
	// PodGroup returns the PodGroup, or an error that says why it is unknown.
	// The PodGroup must not be modified.
	PodGroup(ref GroupRef) (*schedulingv1beta1.PodGroup, error)
	// Members returns the group's non-terminal member pods, bound or not.
	// The pods must not be modified.
	Members(ref GroupRef) []*v1.Pod
	// IsPlaced reports whether the pod is assumed on or bound to a node.
	IsPlaced(pod *v1.Pod) bool
	// NodeOf returns the node the pod is bound to or assumed on, or "".
	NodeOf(pod *v1.Pod) string
}

// ScheduledMembers returns the members of a PodGroup that are bound to or
// assumed on a node.
func ScheduledMembers(l WorkloadLister, ref GroupRef) []*v1.Pod {
	var placed []*v1.Pod
	for _, p := range l.Members(ref) {
		if p.Spec.NodeName != "" || l.IsPlaced(p) {
			placed = append(placed, p)
		}
	}
	return placed
}

// Placement is a set of nodes that one try of a PodGroup's scheduling cycle
// confines the group's members to, such as the nodes of one rack.
type Placement struct {
	// Name names the placement, for a topology domain its label value.
	Name string
	// Nodes are the placement's nodes.
	Nodes []*NodeInfo
}

// PlacementProgress counts a PodGroup's members as its scheduling cycle
// places them, one after another; for a CompositePodGroup it counts its
// children, each placed whole or not at all.
type PlacementProgress struct {
	// Remaining are the members this cycle has yet to try.
	Remaining int
	// Scheduled are the members placed: bound or assumed before the cycle,
	// and those the cycle has placed so far.
	Scheduled int
}

// ProposedAssignment is one member a PodGroup's cycle placed on a node.
type ProposedAssignment struct {
	// Pod is the member.
	Pod *v1.Pod
	// NodeName is where the cycle placed it.
	NodeName string
	// State is the member's cycle state, made while the members before it
	// were assumed where the cycle placed them. Only a simulated cycle's
	// assignments (PodGroupSimulation.ScheduleGroup) carry it.
	State *CycleState
}

// PodGroupAssignments are the members a PodGroup's cycle placed in one placement.
type PodGroupAssignments struct {
	// Placement is where the members were confined; nil means every node.
	Placement *Placement
	// Assignments are the placed members.
	Assignments []ProposedAssignment
}

// PlacementGeneratePlugin proposes the placements a PodGroup's scheduling
// cycle tries, within a parent placement.
//
// The group the placement plugins are handed is a node of a hierarchy: a
// PodGroup (group.PodGroup), or, when the scheduler composes groups, a
// CompositePodGroup (group.Composite) whose children the cycle places
// within each of its placements in turn. Plugins that judge PodGroups only
// pass a CompositePodGroup by.
type PlacementGeneratePlugin interface {
	Plugin
	// GeneratePlacements returns the placements to try; it may return
	// parent alone when it has nothing to narrow.
	GeneratePlacements(ctx context.Context, group *GroupNode, parent *Placement) ([]*Placement, *Status)
}

// PlacementFeasiblePlugin says, as a PodGroup's cycle places its members,
// whether the group can still be admitted: Success once it can be, Wait
// while more members must be placed, Unschedulable once it cannot be.
type PlacementFeasiblePlugin interface {
	Plugin
	// PlacementFeasible judges the group's progress in the current placement.
	PlacementFeasible(ctx context.Context, group *GroupNode, progress PlacementProgress) *Status
}

// PlacementScorePlugin ranks the placements where a whole PodGroup fits.
type PlacementScorePlugin interface {
	Plugin
	// ScorePlacement scores one placement's assignments.
	ScorePlacement(ctx context.Context, group *GroupNode, assignments *PodGroupAssignments) (int64, *Status)
	// NormalizePlacementScores maps the scores, one per placement, into
	// [MinNodeScore, MaxNodeScore] in place.
	NormalizePlacementScores(ctx context.Context, group *GroupNode, scores []int64) *Status
}

// PodGroupPostFilterResult is what a PodGroupPostFilter plugin did for a
// group that fits nowhere: the nodes it nominated the members to.
type PodGroupPostFilterResult struct {
	// NominatingInfos are the members' nominations, by namespace and name.
	NominatingInfos map[types.NamespacedName]*NominatingInfo
}

// PodGroupSimulation is the cluster as a PodGroupPostFilter plugin may
// change it to see whether, and how, the group would then fit: pods taken
// off or put on nodes change the NodeInfos of the cycle's snapshot
// (SnapshotSharedLister) in place, and ScheduleGroup runs the group's
// cycle again on them. The scheduler undoes every change when the plugin
// returns; nothing reaches the cache or the API.
type PodGroupSimulation interface {
	// RemovePod takes a pod off the named node in the snapshot.
	RemovePod(pod *v1.Pod, nodeName string) error
	// AddPod puts a pod on the named node in the snapshot.
	AddPod(pi *PodInfo, nodeName string) error
	// ScheduleGroup runs the group's cycle on the snapshot as it stands and
	// returns where the best placement puts each member, with each
	// member's cycle state; the members are not left on their nodes. Its
	// status is the cycle's: Success when the whole group fits.
	ScheduleGroup(ctx context.Context) (*PodGroupAssignments, *Status)
	// TriedMembers are the cycle states of the members the group's cycle
	// ran the scheduling algorithm for, by UID, each from its last try; it
	// is empty when the cycle gave up on the group before trying any (for
	// example with fewer members than its minCount).
	TriedMembers() map[types.UID]*CycleState
}

// PodGroupPostFilterPlugin runs when a PodGroup's cycle found no placement
// where the group fits, for example to preempt for the whole group.
type PodGroupPostFilterPlugin interface {
	Plugin
	// PodGroupPostFilter tries to make the group schedulable; members are
	// the group's members the cycle tried to place, and sim lets the
	// plugin try the cycle again on a changed cluster. A success with
	// nominations sends the members back to the queue nominated there, to
	// be placed once the room is made.
	PodGroupPostFilter(ctx context.Context, group *GroupNode, members []*v1.Pod, sim PodGroupSimulation) (*PodGroupPostFilterResult, *Status)
}
