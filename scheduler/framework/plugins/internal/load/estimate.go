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

package load

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/usage"
)

// ReportingLag is how long after a pod is bound its use may still be
// missing from a node's sample: scheduler-plugins' metrics-agent reporting
// interval, 60 seconds.
const ReportingLag = time.Minute

// NotInSample reports whether a pod on a node whose newest sample was taken
// at sampledAt may not show in that sample yet, and so must be counted with
// an estimate: one bound (its PodScheduled=True condition's time) later
// than ReportingLag before the sample; for a pod with no such condition
// (placed by spec.nodeName), one the kubelet started later than that; and
// a pod neither bound nor started, which this scheduler has just assumed.
func NotInSample(pod *v1.Pod, sampledAt time.Time) bool {
	since := sampledAt.Add(-ReportingLag)
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionTrue {
			return c.LastTransitionTime.Time.After(since)
		}
	}
	if pod.Status.StartTime != nil {
		return pod.Status.StartTime.Time.After(since)
	}
	return true
}

// Estimator estimates what a pod will use of one resource, in millicores
// for CPU and bytes for memory.
type Estimator func(pi *framework.PodInfo) float64

// NodeLoad is a node's estimated use of one resource and how it was found.
type NodeLoad struct {
	// Used is the estimated use, in the units of the estimator, including
	// the pods the sample does not show yet.
	Used float64
	// StdDev is the spread of the sampled use, in the same units; 0 when
	// the source gives none or the node has no fresh sample.
	StdDev float64
	// Allocatable is the node's allocatable amount of the resource.
	Allocatable float64
	// Freshness says whether Used comes from a fresh sample (Fresh) or, the
	// node having none, from the estimates of all its pods.
	Freshness usage.Freshness
	// SampledAt is the time of the node's newest sample, zero without one.
	SampledAt time.Time
}

// Load returns the node's use of res: the fresh sample's average plus the
// estimates of the pods it does not show yet; without a fresh sample, the
// estimates of every pod on the node (what requests-based scoring would
// see, through the plugin's own estimator). view may be nil.
func Load(view usage.View, nodeInfo *framework.NodeInfo, res usage.Resource, allocatable float64, estimate Estimator) NodeLoad {
	l := NodeLoad{Allocatable: allocatable, Freshness: usage.Missing}
	var nu usage.NodeUsage
	if view != nil {
		nu, l.Freshness = view.Node(nodeInfo.Name())
	}
	if l.Freshness != usage.Fresh {
		for _, pi := range nodeInfo.Pods {
			l.Used += estimate(pi)
		}
		return l
	}
	l.SampledAt = nu.SampledAt
	stat := nu.Usage[res]
	l.Used = stat.Average * allocatable
	l.StdDev = stat.StdDev * allocatable
	for _, pi := range nodeInfo.Pods {
		if NotInSample(pi.Pod, nu.SampledAt) {
			l.Used += estimate(pi)
		}
	}
	return l
}

// Allocatable returns the node's allocatable CPU in millicores and memory in bytes.
func Allocatable(nodeInfo *framework.NodeInfo) (cpuMilli, memory float64) {
	a := nodeInfo.Allocatable
	if a == nil {
		return 0, 0
	}
	return float64(a.MilliCPU), float64(a.Memory)
}

// Estimate returns what Load adds to the node's sample for the pods it
// does not show yet, or, without a fresh sample, the estimates of every pod
// on the node, which Load takes as its use: cpu's in millicores, memory's
// in bytes. memory may be nil for a plugin that reads CPU only; view may
// be nil.
func Estimate(view usage.View, nodeInfo *framework.NodeInfo, cpu, memory Estimator) framework.UsageEstimate {
	fresh := usage.Missing
	var nu usage.NodeUsage
	if view != nil {
		nu, fresh = view.Node(nodeInfo.Name())
	}
	e := framework.UsageEstimate{Basis: framework.UsageFromSample}
	if fresh != usage.Fresh {
		e.Basis = framework.UsageFromPods
	}
	for _, pi := range nodeInfo.Pods {
		if fresh == usage.Fresh && !NotInSample(pi.Pod, nu.SampledAt) {
			continue
		}
		e.Pods++
		e.MilliCPU += cpu(pi)
		if memory != nil {
			e.Memory += memory(pi)
		}
	}
	return e
}
