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

package strategies

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/usage"
)

// MetricResource is the resource whose thresholds apply to the value of a
// Prometheus query, in percent (the descheduler's MetricResource).
const MetricResource v1.ResourceName = "MetricResource"

// MetricsUtilization is the utilization strategies' metricsUtilization:
// where they read real usage, through one of the policy's metricsProviders.
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

// Reads returns the metrics source m reads, "" when m is nil: the
// strategy then reads the pods' requests.
func (m *MetricsUtilization) Reads() v1alpha1.MetricsSource {
	switch {
	case m == nil:
		return ""
	case m.Source != "":
		return m.Source
	case m.MetricsServer:
		return v1alpha1.MetricsSourceKubernetesMetrics
	}
	return ""
}

// Query returns the Prometheus query, "" for another source.
func (m *MetricsUtilization) Query() string {
	if m.Reads() != v1alpha1.MetricsSourcePrometheus || m.Prometheus == nil {
		return ""
	}
	return m.Prometheus.Query
}

// SourceField is MetricsReader.MetricsSource for args holding m at
// metricsUtilization: the source m reads and the field that asks for it.
func (m *MetricsUtilization) SourceField() (v1alpha1.MetricsSource, *field.Path) {
	if m == nil {
		return "", nil
	}
	at := field.NewPath("metricsUtilization")
	if m.Source == "" {
		return m.Reads(), at.Child("metricsServer")
	}
	return m.Source, at.Child("source")
}

// Validate reports the problems of the metrics source under path: at most
// one source, and the query Prometheus needs. A nil m has none.
func (m *MetricsUtilization) Validate(path *field.Path) field.ErrorList {
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
	switch source := m.Reads(); source {
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

// ValidateMetricsThresholds reports the thresholds, at path, on resources
// the source m reads does not give: a Prometheus query gives
// MetricResource alone, metrics-server cpu and memory (pods counts the
// node's pods), and MetricResource is Prometheus's only.
func ValidateMetricsThresholds[P ~float64](m *MetricsUtilization, path *field.Path, thresholds map[v1.ResourceName]P) field.ErrorList {
	var errs field.ErrorList
	switch m.Reads() {
	case v1alpha1.MetricsSourcePrometheus:
		names := slices.Sorted(maps.Keys(thresholds))
		if len(thresholds) > 0 && !slices.Equal(names, []v1.ResourceName{MetricResource}) {
			errs = append(errs, field.Invalid(path, names, fmt.Sprintf(
				"must name %s alone when metricsUtilization.source is %s: the query's value is the only usage Prometheus gives",
				MetricResource, v1alpha1.MetricsSourcePrometheus)))
		}
	case v1alpha1.MetricsSourceKubernetesMetrics:
		for _, r := range slices.Sorted(maps.Keys(thresholds)) {
			if r != v1.ResourceCPU && r != v1.ResourceMemory && r != v1.ResourcePods {
				errs = append(errs, field.Invalid(path.Key(string(r)), float64(thresholds[r]), fmt.Sprintf(
					"metrics-server gives cpu and memory only: with metricsUtilization.source %s thresholds may name cpu, memory and pods",
					v1alpha1.MetricsSourceKubernetesMetrics)))
			}
		}
	default:
		if p, ok := thresholds[MetricResource]; ok {
			errs = append(errs, field.Invalid(path.Key(string(MetricResource)), float64(p), fmt.Sprintf(
				"is the value of a Prometheus query: set metricsUtilization.source to %s", v1alpha1.MetricsSourcePrometheus)))
		}
	}
	return errs
}

// ReadMetrics reads through h the usage m asks for. It returns nil and no
// error when m reads none; an error says why the usage cannot be read.
func (m *MetricsUtilization) ReadMetrics(ctx context.Context, h Handle) (*Metrics, error) {
	src := m.Reads()
	if src == "" {
		return nil, nil
	}
	got, err := h.Metrics(ctx, MetricsQuery{Source: src, Query: m.Query()})
	if err != nil {
		return nil, fmt.Errorf("reading node usage from the policy's %s metrics provider: %w", src, err)
	}
	if got == nil || got.Nodes == nil {
		return nil, errors.New("the rebalancer gave no node usage")
	}
	return got, nil
}

// ReadNodeUsage sets u's used amounts, one per resource, to what its node
// really uses in nodes: cpu and memory are the smoothed share of
// allocatable, MetricResource the query's value in whole percents of a
// capacity of 100, as the descheduler counts it; pods keeps the node's
// pods. A node without fresh usage, or without the usage of a resource,
// is an error naming it.
func (m *MetricsUtilization) ReadNodeUsage(u *Usage, resources []v1.ResourceName, nodes usage.Store) error {
	name := u.NodeInfo.Node().Name
	nu, fresh := nodes.Node(name)
	switch fresh {
	case usage.Missing:
		return fmt.Errorf("node %s has no usage in %s", name, m.from())
	case usage.Stale:
		err := fmt.Errorf("the usage of node %s in %s is stale: its newest sample was taken at %s",
			name, m.from(), nu.SampledAt.UTC().Format(time.RFC3339))
		if readErr := nodes.Err(); readErr != nil {
			err = fmt.Errorf("%w, and the last read failed: %w", err, readErr)
		}
		return err
	}
	for i, r := range resources {
		var res usage.Resource
		switch r {
		case v1.ResourceCPU:
			res = usage.CPU
		case v1.ResourceMemory:
			res = usage.Memory
		case MetricResource:
			res = usage.Metric
		default:
			// pods: the node's pods are counted, as with requests.
			continue
		}
		st, ok := nu.Usage[res]
		if !ok {
			return fmt.Errorf("node %s has no %s usage in %s", name, r, m.from())
		}
		if r == MetricResource {
			u.Alloc[i], u.Used[i] = 100, math.Trunc(st.Average*100)
			continue
		}
		u.Used[i] = st.Average * u.Alloc[i]
	}
	return nil
}

// from names where the usage was read, for messages.
func (m *MetricsUtilization) from() string {
	if m.Reads() == v1alpha1.MetricsSourcePrometheus {
		return fmt.Sprintf("the result of Prometheus query %q", m.Query())
	}
	return "metrics-server's node metrics"
}

// NotReady reports whether the node says it is not Ready: metrics-server
// and Prometheus have no fresh usage of such a node, and the descheduler
// leaves it out of what it measures.
func NotReady(ni *framework.NodeInfo) bool {
	for _, c := range ni.Node().Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status != v1.ConditionTrue
		}
	}
	return false
}
