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

// PodGroupPhase is where a gang is in its life.
// +kubebuilder:validation:Enum=Pending;Scheduling;Scheduled;Running;Failed
type PodGroupPhase string

const (
	// PodGroupPending means fewer than minMember pods of the group exist.
	PodGroupPending PodGroupPhase = "Pending"
	// PodGroupScheduling means members are being placed but not all are bound.
	PodGroupScheduling PodGroupPhase = "Scheduling"
	// PodGroupScheduled means at least minMember members are bound.
	PodGroupScheduled PodGroupPhase = "Scheduled"
	// PodGroupRunning means at least minMember members are running.
	PodGroupRunning PodGroupPhase = "Running"
	// PodGroupFailed means the group timed out or a member failed.
	PodGroupFailed PodGroupPhase = "Failed"
)

// PodGroupSpec declares a gang: pods that are bound all together or not at all.
type PodGroupSpec struct {
	// minMember is the number of members that must be placeable at once
	// before any member is bound.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	MinMember int32 `json:"minMember"`
	// scheduleTimeoutSeconds is how long assumed members wait for the rest of
	// the gang before all of them are rejected and their reservations released.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
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
	// conditions describe the gang's state in detail.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PodGroup is a gang of pods, joined by the scheduling.berth.io/pod-group
// label, that Berth binds only when minMember of them can be placed together.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=pg,categories=berth
// +kubebuilder:printcolumn:name="Min",type=integer,JSONPath=`.spec.minMember`
// +kubebuilder:printcolumn:name="Scheduled",type=integer,JSONPath=`.status.scheduled`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the gang's requirement.
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
