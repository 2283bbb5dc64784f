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

// Package names holds the registered names of upstream kube-scheduler's
// in-tree plugins, so profiles, the registry and the webhook agree on them.
package names

// Plugin names as kube-scheduler v1.37 registers them.
const (
	// PrioritySort orders the queue by priority, then by age.
	PrioritySort = "PrioritySort"
	// DefaultBinder binds through the pods/binding subresource.
	DefaultBinder = "DefaultBinder"
	// DefaultPreemption evicts lower-priority pods to make room.
	DefaultPreemption = "DefaultPreemption"
	// DynamicResources allocates DRA resource claims.
	DynamicResources = "DynamicResources"
	// GangScheduling holds a pod group until enough members fit.
	GangScheduling = "GangScheduling"
	// ImageLocality prefers nodes that already have the pod's images.
	ImageLocality = "ImageLocality"
	// InterPodAffinity applies pod affinity and anti-affinity.
	InterPodAffinity = "InterPodAffinity"
	// NodeAffinity applies node selectors and node affinity.
	NodeAffinity = "NodeAffinity"
	// NodeDeclaredFeatures matches pods to the features nodes declare.
	NodeDeclaredFeatures = "NodeDeclaredFeatures"
	// NodeName honours spec.nodeName.
	NodeName = "NodeName"
	// NodePorts checks host port conflicts.
	NodePorts = "NodePorts"
	// NodeResourcesBalancedAllocation prefers nodes whose resource use stays balanced.
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	// NodeResourcesFit checks and scores free node resources.
	NodeResourcesFit = "NodeResourcesFit"
	// NodeUnschedulable rejects cordoned nodes.
	NodeUnschedulable = "NodeUnschedulable"
	// NodeVolumeLimits checks per-node volume attach limits.
	NodeVolumeLimits = "NodeVolumeLimits"
	// PodTopologySpread applies topology spread constraints.
	PodTopologySpread = "PodTopologySpread"
	// DeferredPodScheduling defers pods until their prerequisites exist.
	DeferredPodScheduling = "DeferredPodScheduling"
	// SchedulingGates keeps gated pods out of the active queue.
	SchedulingGates = "SchedulingGates"
	// TaintToleration applies node taints and pod tolerations.
	TaintToleration = "TaintToleration"
	// VolumeBinding binds PVCs to PVs.
	VolumeBinding = "VolumeBinding"
	// VolumeRestrictions checks volume access-mode conflicts.
	VolumeRestrictions = "VolumeRestrictions"
	// VolumeZone checks that volumes and nodes share a zone.
	VolumeZone = "VolumeZone"
	// TopologyPlacementGenerator proposes topology placements for pod groups.
	TopologyPlacementGenerator = "TopologyPlacementGenerator"
	// PodGroupPodsCount scores placements by how many group members they hold.
	PodGroupPodsCount = "PodGroupPodsCount"
)
