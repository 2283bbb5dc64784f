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

// Package loadvariationriskbalancing implements LoadVariationRiskBalancing,
// scheduler-plugins' Trimaran score that prefers nodes whose measured use,
// with the pod's request, is low and steady: it balances the risk that a
// node's load varies past its capacity.
package loadvariationriskbalancing

import (
	"context"
	"math"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/load"
	"github.com/berth-io/berth/scheduler/usage"
)

// Name is the plugin's registered name, as in scheduler-plugins.
const Name = "LoadVariationRiskBalancing"

// Defaults of the args, as scheduler-plugins sets them.
const (
	DefaultSafeVarianceMargin      = 1.0
	DefaultSafeVarianceSensitivity = 1.0
)

// Args are LoadVariationRiskBalancing's arguments, scheduler-plugins'
// LoadVariationRiskBalancingArgs.
type Args struct {
	metav1.TypeMeta   `json:",inline"`
	load.TrimaranSpec `json:",inline"`
	// SafeVarianceMargin multiplies the spread of use; default 1 (unset or negative).
	SafeVarianceMargin *float64 `json:"safeVarianceMargin,omitempty"`
	// SafeVarianceSensitivity is the root taken of the spread; default 1 (unset or negative).
	SafeVarianceSensitivity *float64 `json:"safeVarianceSensitivity,omitempty"`
}

// Default sets scheduler-plugins' defaults.
func (a *Args) Default() {
	a.TrimaranSpec.Default()
	if a.SafeVarianceMargin == nil || *a.SafeVarianceMargin < 0 {
		a.SafeVarianceMargin = ptr.To(DefaultSafeVarianceMargin)
	}
	if a.SafeVarianceSensitivity == nil || *a.SafeVarianceSensitivity < 0 {
		a.SafeVarianceSensitivity = ptr.To(DefaultSafeVarianceSensitivity)
	}
}

// Validate reports every problem of defaulted args under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "LoadVariationRiskBalancingArgs")
	errs = append(errs, a.TrimaranSpec.Validate(path)...)
	for name, v := range map[string]float64{"safeVarianceMargin": *a.SafeVarianceMargin, "safeVarianceSensitivity": *a.SafeVarianceSensitivity} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			errs = append(errs, field.Invalid(path.Child(name), v, "must be a finite number"))
		}
	}
	return errs
}

// LoadVariationRiskBalancing scores each node (1 - risk)·100 for CPU and
// memory, risk being the mean of the node's use with the pod's request and
// the margin-scaled spread of its use, and takes the lower of the two.
type LoadVariationRiskBalancing struct {
	margin, sensitivity float64
	source              usage.Source
	store               usage.Store
	logger              logr.Logger
	description         string
	// memo keeps each node's CPU and memory loads per view and NodeInfo.
	memo load.Memo[[2]load.NodeLoad]
}

var (
	_ framework.CycleScorePlugin = &LoadVariationRiskBalancing{}
	_ framework.UsageEstimator   = &LoadVariationRiskBalancing{}
)

// New is the plugin's factory. Usage is read from the Handle's NodeUsage
// store for the args' metricProvider; without one every node's use is the
// sum of its pods' requests, with no spread.
func New(ctx context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	src := a.MetricProvider.Source()
	pl := &LoadVariationRiskBalancing{
		margin:      *a.SafeVarianceMargin,
		source:      src,
		sensitivity: *a.SafeVarianceSensitivity,
		logger:      klog.FromContext(ctx).WithValues("plugin", Name),
		description: load.Describe(src),
	}
	pl.store = load.StoreFor(h, src)
	return pl, nil
}

// Name returns the plugin's name.
func (*LoadVariationRiskBalancing) Name() string { return Name }

// UsageSource returns the source the plugin reads.
func (pl *LoadVariationRiskBalancing) UsageSource() usage.Source { return pl.source }

// EstimateUsage returns the requests of the pods the node's sample does not
// show yet, or, without a fresh sample, of all its pods, which Score takes
// as the node's use.
func (pl *LoadVariationRiskBalancing) EstimateUsage(view usage.View, nodeInfo *framework.NodeInfo) framework.UsageEstimate {
	return load.Estimate(view, nodeInfo, cpuRequest, memoryRequest)
}

func cpuRequest(pi *framework.PodInfo) float64    { return float64(pi.Requests.MilliCPU) }
func memoryRequest(pi *framework.PodInfo) float64 { return float64(pi.Requests.Memory) }

// Score returns min(CPU score, memory score) for the node, or the one of
// them that could be computed.
func (pl *LoadVariationRiskBalancing) Score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	score, _ := pl.NodeScorer(ctx, state, pod)
	return score(nodeInfo)
}

// NodeScorer takes the pod's requests and the usage once for the cycle and
// returns Score for each node.
func (pl *LoadVariationRiskBalancing) NodeScorer(_ context.Context, _ *framework.CycleState, pod *v1.Pod) (framework.NodeScorer, *framework.Status) {
	req := framework.PodRequests(pod)
	var view usage.View
	if pl.store != nil {
		view = pl.store.View()
	}
	return func(nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
		cpu, memory := load.Allocatable(nodeInfo)
		loads, ok := pl.memo.Get(view, nodeInfo)
		if !ok {
			loads = [2]load.NodeLoad{
				load.Load(view, nodeInfo, usage.CPU, cpu, cpuRequest),
				load.Load(view, nodeInfo, usage.Memory, memory, memoryRequest),
			}
			pl.memo.Put(view, nodeInfo, loads[0].Freshness, loads[0].SampledAt, loads)
		}
		cpuLoad, memLoad := loads[0], loads[1]
		if cpuLoad.Freshness != usage.Fresh && view != nil && pl.logger.V(5).Enabled() {
			pl.logger.V(5).Info("No fresh usage for the node; scoring its pods' requests", "node", klog.KRef("", nodeInfo.Name()), "usage", cpuLoad.Freshness, "source", pl.description)
		}
		cpuScore, cpuOK := pl.riskScore(cpuLoad, float64(req.MilliCPU))
		memScore, memOK := pl.riskScore(memLoad, float64(req.Memory))
		var total float64
		switch {
		case cpuOK && memOK:
			total = min(cpuScore, memScore)
		default:
			total = max(cpuScore, memScore)
		}
		return int64(math.Round(total)), nil
	}, nil
}

// riskScore is (1 - risk)·100 for one resource, risk = (μ + σ')/2 with μ
// the use plus the request over allocatable and σ' the spread over
// allocatable, raised to 1/sensitivity and scaled by the margin, both
// clamped to [0, 1]. ok is false for a resource the node has none of.
func (pl *LoadVariationRiskBalancing) riskScore(l load.NodeLoad, request float64) (float64, bool) {
	if l.Allocatable <= 0 {
		return 0, false
	}
	used := max(min(l.Used, l.Allocatable), 0)
	mu := unit((used + max(request, 0)) / l.Allocatable)
	sigma := unit(l.StdDev / l.Allocatable)
	// Defaulting leaves sensitivity at 0 or above; at 0 the root is +Inf
	// and any spread short of the whole node counts as none, as upstream.
	sigma = math.Pow(sigma, 1/pl.sensitivity)
	sigma = unit(sigma * pl.margin)
	risk := (mu + sigma) / 2
	return (1 - risk) * float64(framework.MaxNodeScore), true
}

// unit clamps v to [0, 1].
func unit(v float64) float64 { return max(min(v, 1), 0) }

// ScoreExtensions returns nil: the scores are already in [0, 100].
func (*LoadVariationRiskBalancing) ScoreExtensions() framework.ScoreExtensions { return nil }
