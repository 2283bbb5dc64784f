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

// Package lownodeutilization moves pods off overutilized nodes while
// underutilized nodes have room, as the descheduler's LowNodeUtilization
// plugin. Utilization is the pods' requests over the node's allocatable.
package lownodeutilization

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "LowNodeUtilization"

// Percentage is a share of a node's allocatable, from 0 to 100.
type Percentage float64

// Thresholds map resource names to percentages.
type Thresholds map[v1.ResourceName]Percentage

// Args are the strategy's arguments.
type Args struct {
	// Thresholds: a node with every resource at or below them is underutilized.
	Thresholds Thresholds `json:"thresholds"`
	// TargetThresholds: a node with some resource above them is overutilized.
	TargetThresholds Thresholds `json:"targetThresholds"`
	// UseDeviationThresholds reads both as distances below and above the
	// nodes' mean utilization.
	UseDeviationThresholds bool `json:"useDeviationThresholds,omitempty"`
	// NumberOfNodes: the strategy acts only when more nodes than this are underutilized.
	NumberOfNodes int `json:"numberOfNodes,omitempty"`
	// EvictableNamespaces limits the evicted pods to some namespaces.
	EvictableNamespaces *strategies.Namespaces `json:"evictableNamespaces,omitempty"`
}

// Default leaves the arguments as written: none has a default.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	low, high := path.Child("thresholds"), path.Child("targetThresholds")
	errs := strategies.ValidateThresholds(low, a.Thresholds)
	errs = append(errs, strategies.ValidateThresholds(high, a.TargetThresholds)...)
	const same = "thresholds and targetThresholds must name the same resources"
	for _, r := range slices.Sorted(maps.Keys(a.Thresholds)) {
		target, ok := a.TargetThresholds[r]
		switch {
		case !ok:
			errs = append(errs, field.Required(high.Key(string(r)), same))
		case !a.UseDeviationThresholds && a.Thresholds[r] > target:
			errs = append(errs, field.Invalid(low.Key(string(r)), float64(a.Thresholds[r]),
				fmt.Sprintf("is above targetThresholds[%s] %v", r, target)))
		}
	}
	for _, r := range slices.Sorted(maps.Keys(a.TargetThresholds)) {
		if _, ok := a.Thresholds[r]; !ok {
			errs = append(errs, field.Required(low.Key(string(r)), same))
		}
	}
	if a.NumberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), a.NumberOfNodes, "must not be negative"))
	}
	return append(errs, a.EvictableNamespaces.Validate(path.Child("evictableNamespaces"))...)
}
