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

// Package highnodeutilization empties underutilized nodes onto the busier
// ones, as the descheduler's HighNodeUtilization plugin, so that a cluster
// autoscaler can remove them. Utilization is the pods' requests over the
// node's allocatable or, with metricsUtilization (which the descheduler's
// plugin does not take), what the nodes really use: metrics-server's
// smoothed usage, or the value of a Prometheus query. It is meant to run
// with a bin-packing profile.
package highnodeutilization

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "HighNodeUtilization"

// Percentage is a share of a node's allocatable, from 0 to 100.
type Percentage float64

// Args are the strategy's arguments.
type Args struct {
	// Thresholds: a node with every listed resource at or below them is
	// underutilized; cpu, memory and pods default to 100.
	Thresholds map[v1.ResourceName]Percentage `json:"thresholds"`
	// NumberOfNodes: the strategy acts only when more nodes than this are underutilized.
	NumberOfNodes int `json:"numberOfNodes,omitempty"`
	// EvictableNamespaces keeps the pods of the excluded namespaces; as in
	// the descheduler, only exclude is supported.
	EvictableNamespaces *strategies.Namespaces `json:"evictableNamespaces,omitempty"`
	// MetricsUtilization judges the nodes by what they really use instead
	// of the pods' requests; the target nodes' room is still their requests'.
	MetricsUtilization *strategies.MetricsUtilization `json:"metricsUtilization,omitempty"`
}

// Default leaves the arguments as written: the thresholds of cpu, memory
// and pods the policy leaves out are filled in by measured, not here, so
// that thresholds naming no resource stay an error and eviction reasons
// name only the thresholds the policy sets.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	th := path.Child("thresholds")
	errs := strategies.ValidateThresholds(th, a.Thresholds)
	if a.NumberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), a.NumberOfNodes, "must not be negative"))
	}
	if ns := a.EvictableNamespaces; ns != nil && len(ns.Include) > 0 {
		errs = append(errs, field.Forbidden(path.Child("evictableNamespaces", "include"), "only exclude is supported"))
	}
	errs = append(errs, a.MetricsUtilization.Validate(path.Child("metricsUtilization"))...)
	return append(errs, strategies.ValidateMetricsThresholds(a.MetricsUtilization, th, a.Thresholds)...)
}

// measured returns the thresholds of the resources measured: the policy's,
// with cpu, memory and pods at 100 when absent, so that they never keep a
// node from being underutilized but targets must still have room for them.
func (a *Args) measured() map[v1.ResourceName]Percentage {
	out := maps.Clone(a.Thresholds)
	if out == nil {
		out = map[v1.ResourceName]Percentage{}
	}
	for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods} {
		if _, ok := out[r]; !ok {
			out[r] = 100
		}
	}
	return out
}
