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

// Package loadawarescheduling implements LoadAwareScheduling's Filter, after
// Koordinator's plugin of that name: it keeps pods off nodes whose measured
// use, with the pods the sample does not show yet and the incoming pod's
// estimate, is above a threshold.
package loadawarescheduling

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/load"
	"github.com/berth-io/berth/scheduler/usage"
)

// Name is the plugin's registered name, as in Koordinator.
const Name = "LoadAwareScheduling"

// Reasons a node is filtered out, in Koordinator's words.
const (
	ErrReasonUsageExceedThreshold = "node(s) %s usage exceed threshold"
	ErrReasonNodeMetricExpired    = "node(s) nodeMetric expired"
)

// Defaults of the args: Koordinator's, but for
// EnableScheduleWhenNodeMetricsExpired (see Args).
const (
	DefaultNodeMetricExpirationSeconds int64 = 180
	// Estimates of a pod with no request or limit for a resource, as Koordinator's.
	DefaultMilliCPURequest int64 = 250
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// DefaultUsageThresholds and DefaultEstimatedScalingFactors are Koordinator's, in percent.
var (
	DefaultUsageThresholds         = map[v1.ResourceName]int64{v1.ResourceCPU: 65, v1.ResourceMemory: 95}
	DefaultEstimatedScalingFactors = map[v1.ResourceName]int64{v1.ResourceCPU: 85, v1.ResourceMemory: 70}
)

// Args are LoadAwareScheduling's arguments: the filtering fields of
// Koordinator's LoadAwareSchedulingArgs, plus where usage is read (Koordinator
// reads its koordlet's NodeMetrics).
type Args struct {
	metav1.TypeMeta `json:",inline"`
	// MetricProvider is where usage is read; metrics-server by default.
	MetricProvider load.MetricProvider `json:"metricProvider,omitempty"`
	// UsageThresholds are, per resource (cpu, memory), the use in percent
	// of allocatable above which a node is filtered out; 0 turns a resource
	// off. Default cpu 65, memory 95.
	UsageThresholds map[v1.ResourceName]int64 `json:"usageThresholds,omitempty"`
	// EstimatedScalingFactors are, per resource, the percent of the larger of
	// a pod's request and limit it is expected to use. Default cpu 85, memory 70.
	EstimatedScalingFactors map[v1.ResourceName]int64 `json:"estimatedScalingFactors,omitempty"`
	// FilterExpiredNodeMetrics: a node whose newest sample is older than
	// NodeMetricExpirationSeconds is handled as EnableScheduleWhenNodeMetricsExpired
	// says; when false, its old sample is used as if fresh. Default true.
	FilterExpiredNodeMetrics *bool `json:"filterExpiredNodeMetrics,omitempty"`
	// NodeMetricExpirationSeconds is the age at which a sample expires; default 180.
	NodeMetricExpirationSeconds *int64 `json:"nodeMetricExpirationSeconds,omitempty"`
	// EnableScheduleWhenNodeMetricsExpired lets pods onto a node whose
	// sample expired. Default true, unlike Koordinator's false: with
	// false, an outage of the source stops all scheduling through this
	// profile.
	EnableScheduleWhenNodeMetricsExpired *bool `json:"enableScheduleWhenNodeMetricsExpired,omitempty"`
}

// Default sets the defaults.
func (a *Args) Default() {
	a.MetricProvider.Default()
	if a.UsageThresholds == nil {
		a.UsageThresholds = maps.Clone(DefaultUsageThresholds)
	}
	if a.EstimatedScalingFactors == nil {
		a.EstimatedScalingFactors = map[v1.ResourceName]int64{}
	}
	for r, f := range DefaultEstimatedScalingFactors {
		if _, ok := a.EstimatedScalingFactors[r]; !ok {
			a.EstimatedScalingFactors[r] = f
		}
	}
	if a.FilterExpiredNodeMetrics == nil {
		a.FilterExpiredNodeMetrics = ptr.To(true)
	}
	if a.NodeMetricExpirationSeconds == nil || *a.NodeMetricExpirationSeconds <= 0 {
		a.NodeMetricExpirationSeconds = ptr.To(DefaultNodeMetricExpirationSeconds)
	}
	if a.EnableScheduleWhenNodeMetricsExpired == nil {
		a.EnableScheduleWhenNodeMetricsExpired = ptr.To(true)
	}
}

// Validate reports every problem of defaulted args under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "LoadAwareSchedulingArgs")
	errs = append(errs, a.MetricProvider.Validate(path.Child("metricProvider"))...)
	supported := []string{string(v1.ResourceCPU), string(v1.ResourceMemory)}
	for _, m := range []struct {
		name string
		vals map[v1.ResourceName]int64
	}{{"usageThresholds", a.UsageThresholds}, {"estimatedScalingFactors", a.EstimatedScalingFactors}} {
		for _, r := range slices.Sorted(maps.Keys(m.vals)) {
			p := path.Child(m.name).Key(string(r))
			switch v := m.vals[r]; {
			case r != v1.ResourceCPU && r != v1.ResourceMemory:
				errs = append(errs, field.NotSupported(p, r, supported))
			case v < 0 || v > 100:
				errs = append(errs, field.Invalid(p, v, "must be a percentage, 0 to 100"))
			}
		}
	}
	return errs
}

// LoadAwareScheduling filters out nodes whose estimated use with the pod
// is above a threshold.
type LoadAwareScheduling struct {
	args       *Args
	store      usage.Store
	clock      clock.PassiveClock
	expiration time.Duration
}

var (
	_ framework.FilterPlugin = &LoadAwareScheduling{}
	_ framework.UsageReader  = &LoadAwareScheduling{}
)

// New is the plugin's factory. Usage is read from the Handle's NodeUsage
// store for the args' metricProvider; without one the plugin lets every
// node through, as for a node with no sample.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	pl := &LoadAwareScheduling{
		args:       a,
		clock:      clock.RealClock{},
		expiration: time.Duration(*a.NodeMetricExpirationSeconds) * time.Second,
	}
	if h != nil {
		if p := h.NodeUsage(); p != nil {
			pl.store = p.Store(a.MetricProvider.Source())
		}
	}
	return pl, nil
}

// Name returns the plugin's name.
func (*LoadAwareScheduling) Name() string { return Name }

// UsageSource returns the source the plugin reads.
func (pl *LoadAwareScheduling) UsageSource() usage.Source { return pl.args.MetricProvider.Source() }

// Filter rejects the node when, for a resource with a threshold, the
// sampled use plus the estimates of the pods the sample does not show yet
// and of the pod is above the threshold, in percent of allocatable rounded
// as Koordinator rounds. A node with no sample passes; one whose sample
// expired passes unless EnableScheduleWhenNodeMetricsExpired is false.
// DaemonSet pods always pass: they run on every node regardless.
func (pl *LoadAwareScheduling) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if pl.store == nil || isDaemonSetPod(pod) {
		return nil
	}
	nu, fresh := pl.store.Node(nodeInfo.Name())
	if fresh == usage.Missing {
		return nil
	}
	if *pl.args.FilterExpiredNodeMetrics && (fresh == usage.Stale || pl.clock.Since(nu.SampledAt) > pl.expiration) {
		if *pl.args.EnableScheduleWhenNodeMetricsExpired {
			return nil
		}
		return framework.NewStatus(framework.Unschedulable, ErrReasonNodeMetricExpired)
	}
	cpu, memory := load.Allocatable(nodeInfo)
	for _, r := range []struct {
		name        v1.ResourceName
		res         usage.Resource
		allocatable float64
	}{{v1.ResourceCPU, usage.CPU, cpu}, {v1.ResourceMemory, usage.Memory, memory}} {
		threshold := pl.args.UsageThresholds[r.name]
		if threshold == 0 || r.allocatable <= 0 {
			continue
		}
		estimate := pl.estimator(r.name)
		used := nu.Usage[r.res].Average * r.allocatable
		for _, pi := range nodeInfo.Pods {
			if load.NotInSample(pi.Pod, nu.SampledAt) {
				used += estimate(pi.Pod)
			}
		}
		used += estimate(pod)
		if int64(math.Round(used/r.allocatable*100)) > threshold {
			return framework.NewStatus(framework.Unschedulable, fmt.Sprintf(ErrReasonUsageExceedThreshold, r.name))
		}
	}
	return nil
}

// estimator returns Koordinator's estimate of a pod's use of r: the larger
// of its request and limit times the scaling factor, at most the limit, and
// the default for a pod that sets neither.
func (pl *LoadAwareScheduling) estimator(r v1.ResourceName) func(*v1.Pod) float64 {
	factor := float64(pl.args.EstimatedScalingFactors[r]) / 100
	return func(pod *v1.Pod) float64 {
		req, limit := podAmount(pod, r, false), podAmount(pod, r, true)
		q := max(req, limit)
		if q == 0 {
			if r == v1.ResourceCPU {
				return float64(DefaultMilliCPURequest)
			}
			return float64(DefaultMemoryRequest)
		}
		est := math.Round(q * factor)
		if limit > 0 && est > limit {
			est = limit
		}
		return est
	}
}

// podAmount sums a resource's requests or limits over the pod's containers,
// in millicores for CPU and bytes otherwise, taking the larger of that sum
// and any init container's, plus the overhead.
func podAmount(pod *v1.Pod, r v1.ResourceName, limits bool) float64 {
	get := func(c *v1.Container) float64 {
		list := c.Resources.Requests
		if limits {
			list = c.Resources.Limits
		}
		q, ok := list[r]
		if !ok {
			return 0
		}
		if r == v1.ResourceCPU {
			return float64(q.MilliValue())
		}
		return float64(q.Value())
	}
	var sum, init float64
	for i := range pod.Spec.Containers {
		sum += get(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		init = max(init, get(&pod.Spec.InitContainers[i]))
	}
	sum = max(sum, init)
	if q, ok := pod.Spec.Overhead[r]; ok && sum > 0 {
		if r == v1.ResourceCPU {
			sum += float64(q.MilliValue())
		} else {
			sum += float64(q.Value())
		}
	}
	return sum
}

func isDaemonSetPod(pod *v1.Pod) bool {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
