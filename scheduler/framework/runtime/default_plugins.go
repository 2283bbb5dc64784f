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

package runtime

import (
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Names of upstream's in-tree plugins that make up the default profile.
const (
	SchedulingGates                 = "SchedulingGates"
	PrioritySort                    = "PrioritySort"
	NodeName                        = "NodeName"
	NodeUnschedulable               = "NodeUnschedulable"
	TaintToleration                 = "TaintToleration"
	NodeAffinity                    = "NodeAffinity"
	NodePorts                       = "NodePorts"
	NodeResourcesFit                = "NodeResourcesFit"
	VolumeRestrictions              = "VolumeRestrictions"
	NodeVolumeLimits                = "NodeVolumeLimits"
	VolumeBinding                   = "VolumeBinding"
	VolumeZone                      = "VolumeZone"
	PodTopologySpread               = "PodTopologySpread"
	InterPodAffinity                = "InterPodAffinity"
	DynamicResources                = "DynamicResources"
	DefaultPreemption               = "DefaultPreemption"
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	ImageLocality                   = "ImageLocality"
	DefaultBinder                   = "DefaultBinder"
	NodeDeclaredFeatures            = "NodeDeclaredFeatures"
	GangScheduling                  = "GangScheduling"
	TopologyPlacementGenerator      = "TopologyPlacementGenerator"
	PodGroupPodsCount               = "PodGroupPodsCount"
)

// DefaultPlugins returns upstream kube-scheduler v1.37's default profile with
// its default feature gates: every plugin enabled through MultiPoint, in
// upstream's order, with upstream's score weights. DynamicResources (GA,
// locked on) sits before DefaultPreemption so that freeing a claim is tried
// before evicting a pod; NodeDeclaredFeatures (GA in 1.37) comes next.
// Then come the workload plugins that kube-scheduler adds with its
// GenericWorkload and TopologyAwareWorkloadScheduling gates, which Berth
// enables in every profile rather than behind a process-wide gate:
// GangScheduling (last of the pod plugins, so its PostFilter for Berth's own
// PodGroups runs after DefaultPreemption's and a gang is released only when
// preemption cannot help), TopologyPlacementGenerator and PodGroupPodsCount.
func DefaultPlugins() *v1alpha1.Plugins {
	w := func(n int32) *int32 { return ptr.To(n) }
	return &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{
		{Name: SchedulingGates},
		{Name: PrioritySort},
		{Name: NodeName},
		{Name: NodeUnschedulable},
		{Name: TaintToleration, Weight: w(3)},
		{Name: NodeAffinity, Weight: w(2)},
		{Name: NodePorts},
		{Name: NodeResourcesFit, Weight: w(1)},
		{Name: VolumeRestrictions},
		{Name: NodeVolumeLimits},
		{Name: VolumeBinding},
		{Name: VolumeZone},
		{Name: PodTopologySpread, Weight: w(2)},
		{Name: InterPodAffinity, Weight: w(2)},
		{Name: DynamicResources, Weight: w(2)},
		{Name: DefaultPreemption},
		{Name: NodeResourcesBalancedAllocation, Weight: w(1)},
		{Name: ImageLocality, Weight: w(1)},
		{Name: DefaultBinder},
		{Name: NodeDeclaredFeatures},
		{Name: GangScheduling},
		{Name: TopologyPlacementGenerator},
		{Name: PodGroupPodsCount, Weight: w(1)},
	}}}
}
