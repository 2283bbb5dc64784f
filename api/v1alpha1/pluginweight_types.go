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

// ProfileReference names a SchedulingProfile.
type ProfileReference struct {
	// name is the SchedulingProfile's metadata.name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// PluginWeightSpec sets one score plugin's weight in one or more profiles.
// +kubebuilder:validation:XValidation:rule="has(self.profileRef) != has(self.profileSelector)",message="exactly one of profileRef or profileSelector must be set"
type PluginWeightSpec struct {
	// profileRef names the one profile this weight applies to.
	// +optional
	ProfileRef *ProfileReference `json:"profileRef,omitempty"`
	// profileSelector selects, by label, the profiles this weight applies to.
	// +optional
	ProfileSelector *metav1.LabelSelector `json:"profileSelector,omitempty"`
	// plugin is the name of the score plugin whose weight is set.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Plugin string `json:"plugin"`
	// weight replaces the plugin's weight in the selected profiles.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight"`
}

// PluginWeightStatus is the observed state of a PluginWeight.
type PluginWeightStatus struct {
	// observedGeneration is the generation the controller last processed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// appliedTo lists the profiles in which this weight is live.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	AppliedTo []string `json:"appliedTo,omitempty"`
	// conditions are Ready, Reconciling and Stalled, as kstatus reads them,
	// and Applied, kept for compatibility. Ready is True when the weight is
	// live in every profile it selects; it is False with Stalled True when
	// the weight cannot take effect without a change (reason Conflict: an
	// older PluginWeight already sets this plugin in a selected profile;
	// ProfileNotFound, NoMatchingProfile, PluginNotScoring), and False with
	// Reconciling True while a selected profile has yet to apply it
	// (reason Pending).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PluginWeight changes one score plugin's weight in selected SchedulingProfiles
// without editing them. Of two PluginWeights on one profile and plugin, the older wins.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=pw,categories=berth
// +kubebuilder:printcolumn:name="Profile",type=string,JSONPath=`.spec.profileRef.name`
// +kubebuilder:printcolumn:name="Selector",type=string,JSONPath=`.spec.profileSelector`
// +kubebuilder:printcolumn:name="Plugin",type=string,JSONPath=`.spec.plugin`
// +kubebuilder:printcolumn:name="Weight",type=integer,JSONPath=`.spec.weight`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Applied-To",type=string,JSONPath=`.status.appliedTo`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PluginWeight struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired weight and where it applies.
	Spec PluginWeightSpec `json:"spec"`
	// status says where the weight is live.
	// +optional
	Status PluginWeightStatus `json:"status,omitempty"`
}

// PluginWeightList is a list of PluginWeights.
// +kubebuilder:object:root=true
type PluginWeightList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the weights.
	Items []PluginWeight `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PluginWeight{}, &PluginWeightList{})
}
