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
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "LowNodeUtilization"

// MetricResource is the resource whose thresholds apply to the value of a
// Prometheus query, in percent (the descheduler's MetricResource).
const MetricResource v1.ResourceName = "MetricResource"

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
type MetricsUtilization struct {
	// MetricsServer is the deprecated form of Source KubernetesMetrics.
	MetricsServer bool `json:"metricsServer,omitempty"`
	// Source is KubernetesMetrics or Prometheus.
	Source v1alpha1.MetricsSource `json:"source,omitempty"`
	// Prometheus holds the query of source Prometheus.
	Prometheus *Prometheus `json:"prometheus,omitempty"`
}

// Prometheus is the query whose value is a node's utilization.
type Prometheus struct {
	// Query returns an instant vector of one sample per node, labelled
	// instance=<node name>, valued in [0, 1].
	Query string `json:"query,omitempty"`
}

// source returns the metrics source the args read, "" for requests.
func (a *Args) source() v1alpha1.MetricsSource {
	switch m := a.MetricsUtilization; {
	case m == nil:
		return ""
	case m.Source != "":
		return m.Source
	case m.MetricsServer:
		return v1alpha1.MetricsSourceKubernetesMetrics
	}
	return ""
}

// query returns the Prometheus query, "" for another source.
func (a *Args) query() string {
	if a.source() != v1alpha1.MetricsSourcePrometheus || a.MetricsUtilization.Prometheus == nil {
		return ""
	}
	return a.MetricsUtilization.Prometheus.Query
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
	errs = append(errs, a.EvictableNamespaces.Validate(path.Child("evictableNamespaces"))...)
	errs = append(errs, a.MetricsUtilization.validate(path.Child("metricsUtilization"))...)
	return append(errs, a.validateResources(low, high)...)
}

// validate reports the problems of the metrics source under path: at most
// one source, and the query Prometheus needs.
func (m *MetricsUtilization) validate(path *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	switch {
	case m.MetricsServer && m.Source != "":
		errs = append(errs, field.Forbidden(path.Child("metricsServer"), fmt.Sprintf(
			"only one source may be set: metricsServer is the deprecated form of source %s", v1alpha1.MetricsSourceKubernetesMetrics)))
	case !m.MetricsServer && m.Source == "":
		errs = append(errs, field.Required(path.Child("source"), fmt.Sprintf(
			"%s or %s; leave metricsUtilization unset to read the pods' requests", v1alpha1.MetricsSourceKubernetesMetrics, v1alpha1.MetricsSourcePrometheus)))
	}
	source := m.Source
	if source == "" && m.MetricsServer {
		source = v1alpha1.MetricsSourceKubernetesMetrics
	}
	switch source {
	case v1alpha1.MetricsSourceKubernetesMetrics:
		if m.Prometheus != nil {
			errs = append(errs, field.Forbidden(path.Child("prometheus"), fmt.Sprintf(
				"prometheus configuration is not allowed when source is %s", v1alpha1.MetricsSourceKubernetesMetrics)))
		}
	case v1alpha1.MetricsSourcePrometheus:
		if m.Prometheus == nil || strings.TrimSpace(m.Prometheus.Query) == "" {
			errs = append(errs, field.Required(path.Child("prometheus", "query"), fmt.Sprintf(
				"prometheus query is required when metrics source is %s", v1alpha1.MetricsSourcePrometheus)))
		}
	case "":
	default:
		errs = append(errs, field.NotSupported(path.Child("source"), source,
			[]string{string(v1alpha1.MetricsSourceKubernetesMetrics), string(v1alpha1.MetricsSourcePrometheus)}))
	}
	return errs
}

// validateResources reports thresholds on resources the source does not
// give: a Prometheus query gives MetricResource alone, metrics-server cpu
// and memory (pods counts the node's pods), and MetricResource is
// Prometheus's only.
func (a *Args) validateResources(low, high *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch a.source() {
	case v1alpha1.MetricsSourcePrometheus:
		for _, t := range []struct {
			path *field.Path
			th   Thresholds
		}{{low, a.Thresholds}, {high, a.TargetThresholds}} {
			names := slices.Sorted(maps.Keys(t.th))
			if len(t.th) > 0 && !slices.Equal(names, []v1.ResourceName{MetricResource}) {
				errs = append(errs, field.Invalid(t.path, names, fmt.Sprintf(
					"must name %s alone when metricsUtilization.source is %s: the query's value is the only usage Prometheus gives",
					MetricResource, v1alpha1.MetricsSourcePrometheus)))
			}
		}
	case v1alpha1.MetricsSourceKubernetesMetrics:
		for _, r := range slices.Sorted(maps.Keys(a.Thresholds)) {
			if r != v1.ResourceCPU && r != v1.ResourceMemory && r != v1.ResourcePods {
				errs = append(errs, field.Invalid(low.Key(string(r)), float64(a.Thresholds[r]), fmt.Sprintf(
					"metrics-server gives cpu and memory only: with metricsUtilization.source %s thresholds may name cpu, memory and pods",
					v1alpha1.MetricsSourceKubernetesMetrics)))
			}
		}
	default:
		if p, ok := a.Thresholds[MetricResource]; ok {
			errs = append(errs, field.Invalid(low.Key(string(MetricResource)), float64(p), fmt.Sprintf(
				"is the value of a Prometheus query: set metricsUtilization.source to %s", v1alpha1.MetricsSourcePrometheus)))
		}
	}
	return errs
}
