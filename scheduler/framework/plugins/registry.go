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

// Package plugins assembles Berth's in-tree scheduling plugins.
package plugins

import (
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/defaultbinder"
	"github.com/berth-io/berth/scheduler/framework/plugins/defaultpreemption"
	"github.com/berth-io/berth/scheduler/framework/plugins/dynamicresources"
	"github.com/berth-io/berth/scheduler/framework/plugins/gangscheduling"
	"github.com/berth-io/berth/scheduler/framework/plugins/imagelocality"
	"github.com/berth-io/berth/scheduler/framework/plugins/interpodaffinity"
	"github.com/berth-io/berth/scheduler/framework/plugins/loadawarescheduling"
	"github.com/berth-io/berth/scheduler/framework/plugins/loadvariationriskbalancing"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodeaffinity"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodedeclaredfeatures"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodename"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodeports"
	"github.com/berth-io/berth/scheduler/framework/plugins/noderesources"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodeunschedulable"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodevolumelimits"
	"github.com/berth-io/berth/scheduler/framework/plugins/podgrouppodscount"
	"github.com/berth-io/berth/scheduler/framework/plugins/podtopologyspread"
	"github.com/berth-io/berth/scheduler/framework/plugins/queuesort"
	"github.com/berth-io/berth/scheduler/framework/plugins/schedulinggates"
	"github.com/berth-io/berth/scheduler/framework/plugins/tainttoleration"
	"github.com/berth-io/berth/scheduler/framework/plugins/targetloadpacking"
	"github.com/berth-io/berth/scheduler/framework/plugins/topologyplacement"
	"github.com/berth-io/berth/scheduler/framework/plugins/volumebinding"
	"github.com/berth-io/berth/scheduler/framework/plugins/volumerestrictions"
	"github.com/berth-io/berth/scheduler/framework/plugins/volumezone"
)

// NewInTreeRegistry returns a new map from plugin name to factory for every
// in-tree plugin Berth implements; callers may add to it.
func NewInTreeRegistry() map[string]framework.PluginFactory {
	return map[string]framework.PluginFactory{
		names.PrioritySort:                    queuesort.New,
		names.SchedulingGates:                 schedulinggates.New,
		names.NodeName:                        nodename.New,
		names.NodeUnschedulable:               nodeunschedulable.New,
		names.NodeResourcesFit:                noderesources.NewFit,
		names.NodeResourcesBalancedAllocation: noderesources.NewBalancedAllocation,
		names.DefaultBinder:                   defaultbinder.New,
		names.TaintToleration:                 tainttoleration.New,
		names.NodePorts:                       nodeports.New,
		names.NodeAffinity:                    nodeaffinity.New,
		names.ImageLocality:                   imagelocality.New,
		names.DynamicResources:                dynamicresources.New,
		names.NodeDeclaredFeatures:            nodedeclaredfeatures.New,
		names.PodTopologySpread:               podtopologyspread.New,
		names.InterPodAffinity:                interpodaffinity.New,
		names.VolumeRestrictions:              volumerestrictions.New,
		names.VolumeZone:                      volumezone.New,
		names.NodeVolumeLimits:                nodevolumelimits.New,
		names.VolumeBinding:                   volumebinding.New,
		names.DefaultPreemption:               defaultpreemption.New,
		names.GangScheduling:                  gangscheduling.New,
		names.TopologyPlacementGenerator:      topologyplacement.New,
		names.PodGroupPodsCount:               podgrouppodscount.New,
		// Load-aware plugins, beyond kube-scheduler's: scheduler-plugins'
		// Trimaran scores and Koordinator's usage filter.
		targetloadpacking.Name:          targetloadpacking.New,
		loadvariationriskbalancing.Name: loadvariationriskbalancing.New,
		loadawarescheduling.Name:        loadawarescheduling.New,
	}
}
