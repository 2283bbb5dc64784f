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
	"strings"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
)

// EventResource is the kind of object a cluster event is about.
type EventResource string

// Event resources the scheduler watches.
const (
	// Pod is an assigned pod (for unscheduled pods, see UnscheduledPod).
	Pod EventResource = "Pod"
	// UnscheduledPod is a pod waiting for scheduling.
	UnscheduledPod EventResource = "UnscheduledPod"
	// Node is a node.
	Node EventResource = "Node"
	// PersistentVolume is a PV.
	PersistentVolume EventResource = "PersistentVolume"
	// PersistentVolumeClaim is a PVC.
	PersistentVolumeClaim EventResource = "PersistentVolumeClaim"
	// StorageClass is a StorageClass.
	StorageClass EventResource = "storage.k8s.io/StorageClass"
	// CSINode is a CSINode.
	CSINode EventResource = "storage.k8s.io/CSINode"
	// CSIDriver is a CSIDriver.
	CSIDriver EventResource = "storage.k8s.io/CSIDriver"
	// CSIStorageCapacity is a CSIStorageCapacity.
	CSIStorageCapacity EventResource = "storage.k8s.io/CSIStorageCapacity"
	// VolumeAttachment is a VolumeAttachment.
	VolumeAttachment EventResource = "storage.k8s.io/VolumeAttachment"
	// ResourceClaim is a DRA ResourceClaim.
	ResourceClaim EventResource = "resource.k8s.io/ResourceClaim"
	// ResourceSlice is a DRA ResourceSlice.
	ResourceSlice EventResource = "resource.k8s.io/ResourceSlice"
	// DeviceClass is a DRA DeviceClass.
	DeviceClass EventResource = "resource.k8s.io/DeviceClass"
	// PodGroup is a Berth PodGroup.
	PodGroup EventResource = "scheduling.berth.io/PodGroup"
	// WildCard matches every resource.
	WildCard EventResource = "*"
)

// ActionType is a bit set of what happened to an object.
type ActionType int64

// Actions, as upstream.
const (
	// Add is a creation.
	Add ActionType = 1 << iota
	// Delete is a deletion.
	Delete
	// UpdateNodeAllocatable is a change of a node's allocatable resources.
	UpdateNodeAllocatable
	// UpdateNodeLabel is a change of a node's labels.
	UpdateNodeLabel
	// UpdateNodeTaint is a change of a node's taints.
	UpdateNodeTaint
	// UpdateNodeCondition is a change of a node's conditions.
	UpdateNodeCondition
	// UpdateNodeAnnotation is a change of a node's annotations.
	UpdateNodeAnnotation
	// UpdateNodeDeclaredFeature is a change of a node's declared features.
	UpdateNodeDeclaredFeature
	// UpdatePodLabel is a change of a pod's labels.
	UpdatePodLabel
	// UpdatePodScaleDown is a decrease of a pod's requests.
	UpdatePodScaleDown
	// UpdatePodToleration is a change of an unscheduled pod's tolerations.
	UpdatePodToleration
	// UpdatePodSchedulingGatesEliminated is the removal of a pod's last scheduling gate.
	UpdatePodSchedulingGatesEliminated
	// UpdatePodGeneratedResourceClaim is a change of a pod's generated resource claims.
	UpdatePodGeneratedResourceClaim
	// updateOther is any other update.
	updateOther

	// Update is any update.
	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition | UpdateNodeAnnotation | UpdateNodeDeclaredFeature |
		UpdatePodLabel | UpdatePodScaleDown | UpdatePodToleration | UpdatePodSchedulingGatesEliminated |
		UpdatePodGeneratedResourceClaim | updateOther
	// All is any action.
	All = Add | Delete | Update
	// UpdateOther is an update that none of the specific update actions covers.
	UpdateOther = updateOther
)

var actionNames = []struct {
	a    ActionType
	name string
}{
	{Add, "Add"}, {Delete, "Delete"}, {UpdateNodeAllocatable, "UpdateNodeAllocatable"},
	{UpdateNodeLabel, "UpdateNodeLabel"}, {UpdateNodeTaint, "UpdateNodeTaint"},
	{UpdateNodeCondition, "UpdateNodeCondition"}, {UpdateNodeAnnotation, "UpdateNodeAnnotation"}, {UpdateNodeDeclaredFeature, "UpdateNodeDeclaredFeature"},
	{UpdatePodLabel, "UpdatePodLabel"}, {UpdatePodScaleDown, "UpdatePodScaleDown"},
	{UpdatePodToleration, "UpdatePodToleration"}, {UpdatePodSchedulingGatesEliminated, "UpdatePodSchedulingGatesEliminated"},
	{UpdatePodGeneratedResourceClaim, "UpdatePodGeneratedResourceClaim"}, {updateOther, "UpdateOther"},
}

// String names the actions in the set.
func (a ActionType) String() string {
	if a == All {
		return "All"
	}
	var names []string
	for _, n := range actionNames {
		if a&n.a != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, "|")
}

// ClusterEvent is something that happened in the cluster.
type ClusterEvent struct {
	// Resource is what the event is about.
	Resource EventResource
	// ActionType is what happened.
	ActionType ActionType
	// CustomLabel overrides the event's label in metrics.
	CustomLabel string
}

// Label names the event for logs and metrics.
func (e ClusterEvent) Label() string {
	if e.CustomLabel != "" {
		return e.CustomLabel
	}
	return string(e.Resource) + e.ActionType.String()
}

// IsWildCard reports whether the event matches every registered event.
func (e ClusterEvent) IsWildCard() bool {
	return e.Resource == WildCard && e.ActionType == All
}

// Match reports whether a registered event e covers the incoming event.
func (e ClusterEvent) Match(incoming ClusterEvent) bool {
	if e.IsWildCard() || incoming.IsWildCard() {
		return true
	}
	return (e.Resource == WildCard || e.Resource == incoming.Resource) && e.ActionType&incoming.ActionType != 0
}

// Well-known events.
var (
	// EventUnschedulableTimeout moves pods that sat unschedulable too long.
	EventUnschedulableTimeout = ClusterEvent{Resource: WildCard, ActionType: All, CustomLabel: "UnschedulableTimeout"}
	// EventForceActivate moves pods on request.
	EventForceActivate = ClusterEvent{Resource: WildCard, ActionType: All, CustomLabel: "ForceActivate"}
	// EventProfileChanged moves a profile's unschedulable pods when a new
	// generation of it goes live: every plugin may judge them differently.
	EventProfileChanged = ClusterEvent{Resource: WildCard, ActionType: All, CustomLabel: "ProfileChanged"}
)

// QueueingHint says whether an event may make a rejected pod schedulable.
type QueueingHint int

const (
	// QueueSkip means the event does not help the pod.
	QueueSkip QueueingHint = iota
	// Queue means the event may help: move the pod to activeQ or backoffQ.
	Queue
)

// String names the hint.
func (h QueueingHint) String() string {
	if h == Queue {
		return "Queue"
	}
	return "QueueSkip"
}

// QueueingHintFn decides whether an event helps a pod that the plugin rejected.
// oldObj and newObj are the event's object before and after (nil where absent).
type QueueingHintFn func(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (QueueingHint, error)

// ClusterEventWithHint is an event a plugin cares about, with its hint.
// A nil QueueingHintFn means Queue for every such event.
type ClusterEventWithHint struct {
	// Event is the event.
	Event ClusterEvent
	// QueueingHintFn filters the event, or nil to always queue.
	QueueingHintFn QueueingHintFn
}

// EnqueueExtensions is implemented by plugins that can reject pods, to say
// which cluster events may make a rejected pod schedulable again.
type EnqueueExtensions interface {
	Plugin
	// EventsToRegister lists the events worth retrying a rejected pod for.
	EventsToRegister(ctx context.Context) ([]ClusterEventWithHint, error)
}
