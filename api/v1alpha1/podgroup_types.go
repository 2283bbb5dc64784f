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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodGroupLabel is the pod label whose value names the PodGroup, in the pod's
// namespace, that the pod belongs to.
const PodGroupLabel = "scheduling.berth.io/pod-group"

// PodGroupProtectionFinalizer keeps a PodGroup that is being deleted while
// pods that have not finished still name it, as kube-apiserver's
// PodGroupProtection keeps a scheduling.k8s.io PodGroup. Berth's manager
// adds it when it first sees a group and removes it once no such pod is left.
const PodGroupProtectionFinalizer = "scheduling.berth.io/podgroup-protection"

// PodGroupPhase is where a gang is in its life.
// +kubebuilder:validation:Enum=Pending;Scheduling;Scheduled;Running;Failed
type PodGroupPhase string

const (
	// PodGroupPending means fewer than minCount pods of the group exist.
	PodGroupPending PodGroupPhase = "Pending"
	// PodGroupScheduling means members are being placed but fewer than minCount are bound.
	PodGroupScheduling PodGroupPhase = "Scheduling"
	// PodGroupScheduled means at least minCount members are bound.
	PodGroupScheduled PodGroupPhase = "Scheduled"
	// PodGroupRunning means at least minCount members are running.
	PodGroupRunning PodGroupPhase = "Running"
	// PodGroupFailed means a member failed and too few of the others remain.
	PodGroupFailed PodGroupPhase = "Failed"
)

// PodGroupSpec declares a group of pods that Berth schedules together. Its
// fields and their meaning are those of Kubernetes' own
// scheduling.k8s.io/v1beta1 PodGroup, so that moving a group to the native
// API is a rename.
// +kubebuilder:validation:XValidation:rule="has(self.schedulingPolicy) != has(self.minMember)",message="set exactly one of schedulingPolicy and the deprecated minMember"
type PodGroupSpec struct {
	// schedulingPolicy says how the members are scheduled: as a gang, all
	// of minCount at once or none, or each on its own (basic).
	// +optional
	SchedulingPolicy *PodGroupSchedulingPolicy `json:"schedulingPolicy,omitempty"`
	// schedulingConstraints confine the whole group, for example to one
	// topology domain such as a rack.
	// +optional
	SchedulingConstraints *PodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`
	// disruptionMode says whether preemption may take single members of
	// this group (single, the default) or only the whole group at once (all).
	// +optional
	DisruptionMode *DisruptionMode `json:"disruptionMode,omitempty"`
	// priorityClassName names the PriorityClass whose value is the group's
	// priority, which preemption weighs for the whole group and which every
	// member's own priority must equal. Unset, or naming no PriorityClass,
	// the group has the globalDefault PriorityClass's value, or 0. Berth
	// reads the class when it schedules, where Kubernetes resolves a native
	// PodGroup's at admission.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// minMember is the number of members that must be placeable at once
	// before any member is bound.
	//
	// Deprecated: use schedulingPolicy.gang.minCount, which means the same;
	// Berth reads minMember as that when schedulingPolicy is not set.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	MinMember int32 `json:"minMember,omitempty"`
	// scheduleTimeoutSeconds is how long the members a group's scheduling
	// cycle placed wait at Permit for the rest of them before all are
	// rejected and their reservations released; unset, they wait five
	// minutes, as kube-scheduler's members do.
	//
	// Deprecated: kept for objects written for Berth v0.1; the native API
	// has no such field.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
}

// PodGroupSchedulingPolicy is how a group's members are scheduled; exactly
// one of its fields is set.
// +kubebuilder:validation:XValidation:rule="has(self.basic) != has(self.gang)",message="set exactly one of basic and gang"
type PodGroupSchedulingPolicy struct {
	// basic schedules each member on its own, as if it were in no group,
	// while topology constraints still apply to the group.
	// +optional
	Basic *BasicSchedulingPolicy `json:"basic,omitempty"`
	// gang binds no member until minCount members can be placed at once.
	// +optional
	Gang *GangSchedulingPolicy `json:"gang,omitempty"`
}

// BasicSchedulingPolicy has no settings: members are scheduled one by one.
type BasicSchedulingPolicy struct{}

// GangSchedulingPolicy is the all-or-nothing policy of a gang.
type GangSchedulingPolicy struct {
	// minCount is how many members must be placeable at the same time
	// before the scheduler binds any of them.
	// +kubebuilder:validation:Minimum=1
	MinCount int32 `json:"minCount"`
}

// PodGroupSchedulingConstraints confine where a group's members may go.
type PodGroupSchedulingConstraints struct {
	// topology keeps the whole group inside one domain of a node label,
	// for example one rack. At most one constraint may be given.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1
	Topology []TopologyConstraint `json:"topology,omitempty"`
}

// TopologyConstraint names the node label whose domains a group must stay in.
type TopologyConstraint struct {
	// key is the node label; all members go to nodes with the same value of it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`
}

// DisruptionMode is how preemption may disrupt a group; exactly one field is set.
// +kubebuilder:validation:XValidation:rule="has(self.single) != has(self.all)",message="set exactly one of single and all"
type DisruptionMode struct {
	// single lets preemption take members one by one.
	// +optional
	Single *SingleDisruptionMode `json:"single,omitempty"`
	// all makes preemption take the whole group or none of it.
	// +optional
	All *AllDisruptionMode `json:"all,omitempty"`
}

// SingleDisruptionMode has no settings.
type SingleDisruptionMode struct{}

// AllDisruptionMode has no settings.
type AllDisruptionMode struct{}

// MinCount returns how many members the group needs placed at once: the
// gang's minCount, the deprecated minMember, or 1 for a basic group.
func (s *PodGroupSpec) MinCount() int32 {
	switch {
	case s.SchedulingPolicy != nil && s.SchedulingPolicy.Gang != nil:
		return s.SchedulingPolicy.Gang.MinCount
	case s.SchedulingPolicy != nil:
		return 1
	case s.MinMember > 0:
		return s.MinMember
	}
	return 1
}

// PodGroupStatus is the observed state of a PodGroup.
type PodGroupStatus struct {
	// observedGeneration is the generation the controller last processed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// phase summarizes the gang's progress.
	// +optional
	Phase PodGroupPhase `json:"phase,omitempty"`
	// scheduled is the number of members bound to a node.
	// +optional
	Scheduled int32 `json:"scheduled,omitempty"`
	// running is the number of members in phase Running.
	// +optional
	Running int32 `json:"running,omitempty"`
	// conditions describe the group's state: Ready, Reconciling and Stalled
	// from Berth's PodGroup controller, and PodGroupInitiallyScheduled from
	// the scheduler, with kube-scheduler's reasons and messages.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PodGroup is a group of pods, joined by the scheduling.berth.io/pod-group
// label, that Berth schedules as kube-scheduler schedules Kubernetes' own
// scheduling.k8s.io/v1beta1 PodGroup, on clusters that do not serve that API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=berth
// +kubebuilder:printcolumn:name="Min",type=integer,JSONPath=`.spec.schedulingPolicy.gang.minCount`
// +kubebuilder:printcolumn:name="MinMember",type=integer,JSONPath=`.spec.minMember`,priority=1
// +kubebuilder:printcolumn:name="Topology",type=string,JSONPath=`.spec.schedulingConstraints.topology[0].key`
// +kubebuilder:printcolumn:name="Scheduled",type=integer,JSONPath=`.status.scheduled`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is how the group is scheduled.
	Spec PodGroupSpec `json:"spec"`
	// status is the gang's observed state.
	// +optional
	Status PodGroupStatus `json:"status,omitempty"`
}

// PodGroupList is a list of PodGroups.
// +kubebuilder:object:root=true
type PodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the pod groups.
	Items []PodGroup `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PodGroup{}, &PodGroupList{})
}
