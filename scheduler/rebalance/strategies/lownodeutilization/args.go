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
// plugin. Utilization is the pods' requests over the node's allocatable,
// or, with metricsUtilization, what the nodes really use: metrics-server's
// smoothed usage, or the value of a Prometheus query.
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

// MetricResource is the resource whose thresholds apply to the value of a
// Prometheus query, in percent (the descheduler's MetricResource).
const MetricResource = strategies.MetricResource

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
	// MetricsUtilization reads what the nodes really use instead of the
	// pods' requests.
	MetricsUtilization *MetricsUtilization `json:"metricsUtilization,omitempty"`
}

// MetricsUtilization says where the strategy reads real usage, through one
// of the policy's metricsProviders.
type MetricsUtilization = strategies.MetricsUtilization

// Prometheus is the query whose value is a node's utilization.
type Prometheus = strategies.Prometheus

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
	errs = append(errs, a.EvictableNamespaces.Validate(path.Child("evictableNamespaces"))...)
	errs = append(errs, a.MetricsUtilization.Validate(path.Child("metricsUtilization"))...)
	return append(errs, a.validateResources(low, high)...)
}

// validateResources reports thresholds on resources the source does not
// give. With Prometheus both thresholds must name MetricResource alone;
// otherwise targetThresholds name the resources thresholds name.
func (a *Args) validateResources(low, high *field.Path) field.ErrorList {
	errs := strategies.ValidateMetricsThresholds(a.MetricsUtilization, low, a.Thresholds)
	if a.MetricsUtilization.Reads() == v1alpha1.MetricsSourcePrometheus {
		errs = append(errs, strategies.ValidateMetricsThresholds(a.MetricsUtilization, high, a.TargetThresholds)...)
	}
	return errs
}
