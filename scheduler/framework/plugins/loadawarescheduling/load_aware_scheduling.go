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
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"

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

// The reasons for CPU and memory, formatted once.
var (
	reasonCPU    = fmt.Sprintf(ErrReasonUsageExceedThreshold, v1.ResourceCPU)
	reasonMemory = fmt.Sprintf(ErrReasonUsageExceedThreshold, v1.ResourceMemory)
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
	// last is the estimate of the last pod Filter saw without PreFilter.
	last       atomic.Pointer[lastEstimate]
	args       *Args
	store      usage.Store
	clock      clock.PassiveClock
	expiration time.Duration
	// cpuThreshold and memoryThreshold are the args' usageThresholds, 0 when off.
	cpuThreshold, memoryThreshold int64
	// cpuOver, memoryOver and expired are Filter's rejections, built once
	// and shared: the framework only reads them.
	cpuOver, memoryOver, expired *framework.Status
	// memo keeps what each node's sample and the pods it does not show
	// add up to, per view and NodeInfo.
	memo load.Memo[nodeUse]
}

// nodeUse is a node's sampled use plus the estimates of the pods its
// sample does not show yet.
type nodeUse struct {
	fresh     usage.Freshness
	sampledAt time.Time
	used      podEstimate
}

var (
	_ framework.PreFilterPlugin = &LoadAwareScheduling{}
	_ framework.FilterPlugin    = &LoadAwareScheduling{}
	_ framework.UsageEstimator  = &LoadAwareScheduling{}
)

// preFilterKey holds the incoming pod's estimates for the cycle.
const preFilterKey framework.StateKey = "PreFilter" + Name

// podEstimate is what a pod is expected to use: millicores of CPU and bytes
// of memory.
type podEstimate struct{ cpu, memory float64 }

// cycleState is what PreFilter takes once for the cycle: the pod's
// estimate and the usage as it is at the cycle's start.
type cycleState struct {
	estimate podEstimate
	view     usage.View
}

// Clone returns the state itself: it is never changed.
func (s *cycleState) Clone() framework.StateData { return s }

// PreFilter estimates the pod once for the cycle; it skips Filter without a
// store and for DaemonSet pods, which always pass.
func (pl *LoadAwareScheduling) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if pl.store == nil || isDaemonSetPod(pod) {
		return nil, framework.Skipped()
	}
	state.Write(preFilterKey, &cycleState{estimate: pl.estimatePod(framework.PodRequests(pod), pod), view: pl.store.View()})
	return nil, nil
}

// PreFilterExtensions returns nil: a pod added or removed by preemption's
// simulation counts as any pod on the node, with no state to update.
func (*LoadAwareScheduling) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// New is the plugin's factory. Usage is read from the Handle's NodeUsage
// store for the args' metricProvider; without one the plugin lets every
// node through, as for a node with no sample.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	pl := &LoadAwareScheduling{
		args:            a,
		clock:           clock.RealClock{},
		expiration:      time.Duration(*a.NodeMetricExpirationSeconds) * time.Second,
		cpuThreshold:    a.UsageThresholds[v1.ResourceCPU],
		memoryThreshold: a.UsageThresholds[v1.ResourceMemory],
		cpuOver:         framework.NewStatus(framework.Unschedulable, reasonCPU).WithPlugin(Name),
		memoryOver:      framework.NewStatus(framework.Unschedulable, reasonMemory).WithPlugin(Name),
		expired:         framework.NewStatus(framework.Unschedulable, ErrReasonNodeMetricExpired).WithPlugin(Name),
	}
	pl.store = load.StoreFor(h, a.MetricProvider.Source())
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
func (pl *LoadAwareScheduling) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if pl.store == nil || isDaemonSetPod(pod) {
		return nil
	}
	incoming, view := pl.incoming(state, pod)
	nu, ok := pl.memo.Get(view, nodeInfo)
	if !ok {
		nu = pl.nodeUse(view, nodeInfo)
		pl.memo.Put(view, nodeInfo, nu.fresh, nu.sampledAt, nu)
	}
	if nu.fresh == usage.Missing {
		return nil
	}
	if *pl.args.FilterExpiredNodeMetrics && (nu.fresh == usage.Stale || pl.clock.Since(nu.sampledAt) > pl.expiration) {
		if *pl.args.EnableScheduleWhenNodeMetricsExpired {
			return nil
		}
		return pl.expired
	}
	cpu, memory := load.Allocatable(nodeInfo)
	if over(nu.used.cpu+incoming.cpu, cpu, pl.cpuThreshold) {
		return pl.cpuOver
	}
	if over(nu.used.memory+incoming.memory, memory, pl.memoryThreshold) {
		return pl.memoryOver
	}
	return nil
}

// over reports whether used is above threshold percent of allocatable,
// rounded as Koordinator rounds; a threshold of 0 is off.
func over(used, allocatable float64, threshold int64) bool {
	return threshold != 0 && allocatable > 0 && int64(math.Round(used/allocatable*100)) > threshold
}

// nodeUse adds up the node's sampled use and the estimates of the pods
// its sample does not show yet; only fresh and sampledAt are set for a
// node without a sample.
func (pl *LoadAwareScheduling) nodeUse(view usage.View, nodeInfo *framework.NodeInfo) nodeUse {
	nu, fresh := view.Node(nodeInfo.Name())
	u := nodeUse{fresh: fresh, sampledAt: nu.SampledAt}
	if fresh == usage.Missing {
		return u
	}
	cpu, memory := load.Allocatable(nodeInfo)
	u.used = podEstimate{cpu: nu.Usage[usage.CPU].Average * cpu, memory: nu.Usage[usage.Memory].Average * memory}
	for _, pi := range nodeInfo.Pods {
		if load.NotInSample(pi.Pod, nu.SampledAt) {
			e := pl.estimatePod(pi.Requests, pi.Pod)
			u.used.cpu += e.cpu
			u.used.memory += e.memory
		}
	}
	return u
}

// EstimateUsage returns the estimates Filter adds to the node's sample for
// the pods it does not show yet; for a node Filter does not judge by its
// use (no sample, or an expired one), the basis is UsageNotJudged.
func (pl *LoadAwareScheduling) EstimateUsage(view usage.View, nodeInfo *framework.NodeInfo) framework.UsageEstimate {
	none := framework.UsageEstimate{Basis: framework.UsageNotJudged}
	if view == nil {
		return none
	}
	nu, fresh := view.Node(nodeInfo.Name())
	if fresh == usage.Missing || *pl.args.FilterExpiredNodeMetrics && (fresh == usage.Stale || pl.clock.Since(nu.SampledAt) > pl.expiration) {
		return none
	}
	e := framework.UsageEstimate{Basis: framework.UsageFromSample}
	for _, pi := range nodeInfo.Pods {
		if load.NotInSample(pi.Pod, nu.SampledAt) {
			est := pl.estimatePod(pi.Requests, pi.Pod)
			e.Pods++
			e.MilliCPU += est.cpu
			e.Memory += est.memory
		}
	}
	return e
}

// incoming returns the pod's estimate and the usage to judge nodes by:
// PreFilter's, or, for a profile that enables the plugin at Filter only,
// the estimate computed for the pod by the first Filter of its cycle and
// the store itself.
func (pl *LoadAwareScheduling) incoming(state *framework.CycleState, pod *v1.Pod) (podEstimate, usage.View) {
	if s, err := framework.ReadState[*cycleState](state, preFilterKey); err == nil {
		return s.estimate, s.view
	}
	if last := pl.last.Load(); last != nil && last.uid == pod.UID && last.resourceVersion == pod.ResourceVersion && last.pod == pod {
		return last.estimate, pl.store
	}
	e := pl.estimatePod(framework.PodRequests(pod), pod)
	pl.last.Store(&lastEstimate{pod: pod, uid: pod.UID, resourceVersion: pod.ResourceVersion, estimate: e})
	return e, pl.store
}

// lastEstimate is the estimate of the last pod Filter saw without PreFilter.
type lastEstimate struct {
	pod             *v1.Pod
	uid             types.UID
	resourceVersion string
	estimate        podEstimate
}

// estimatePod is Koordinator's estimate of what a pod will use of CPU and
// memory: for each, the larger of its request (from requests, the pod's
// effective requests) and its limit, times the resource's scaling factor,
// at most the limit; 250m CPU and 200 MiB for a pod that sets neither.
func (pl *LoadAwareScheduling) estimatePod(requests *framework.Resource, pod *v1.Pod) podEstimate {
	limitCPU, limitMemory := podLimits(pod)
	one := func(request, limit float64, factor int64, def int64) float64 {
		q := max(request, limit)
		if q == 0 {
			return float64(def)
		}
		est := math.Round(q * float64(factor) / 100)
		if limit > 0 && est > limit {
			est = limit
		}
		return est
	}
	f := pl.args.EstimatedScalingFactors
	return podEstimate{
		cpu:    one(float64(requests.MilliCPU), limitCPU, f[v1.ResourceCPU], DefaultMilliCPURequest),
		memory: one(float64(requests.Memory), limitMemory, f[v1.ResourceMemory], DefaultMemoryRequest),
	}
}

// podLimits sums the CPU (millicores) and memory (bytes) limits of the
// pod's containers, taking the larger of that and any init container's,
// plus the overhead when there is a limit. Most pods' containers set no
// limits, and the loop then reads no map.
func podLimits(pod *v1.Pod) (cpu, memory float64) {
	add := func(c *v1.Container, cpu, memory *float64, sum bool) {
		if len(c.Resources.Limits) == 0 {
			return
		}
		l := c.Resources.Limits
		if q, ok := l[v1.ResourceCPU]; ok {
			*cpu = combine(*cpu, float64(q.MilliValue()), sum)
		}
		if q, ok := l[v1.ResourceMemory]; ok {
			*memory = combine(*memory, float64(q.Value()), sum)
		}
	}
	for i := range pod.Spec.Containers {
		add(&pod.Spec.Containers[i], &cpu, &memory, true)
	}
	var initCPU, initMemory float64
	for i := range pod.Spec.InitContainers {
		add(&pod.Spec.InitContainers[i], &initCPU, &initMemory, false)
	}
	cpu, memory = max(cpu, initCPU), max(memory, initMemory)
	if o := pod.Spec.Overhead; o != nil {
		if q, ok := o[v1.ResourceCPU]; ok && cpu > 0 {
			cpu += float64(q.MilliValue())
		}
		if q, ok := o[v1.ResourceMemory]; ok && memory > 0 {
			memory += float64(q.Value())
		}
	}
	return cpu, memory
}

// combine adds v to acc, or keeps the larger of the two.
func combine(acc, v float64, sum bool) float64 {
	if sum {
		return acc + v
	}
	return max(acc, v)
}

func isDaemonSetPod(pod *v1.Pod) bool {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
