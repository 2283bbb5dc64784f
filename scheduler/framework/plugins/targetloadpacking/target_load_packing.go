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

// Package targetloadpacking implements TargetLoadPacking, scheduler-plugins'
// Trimaran score that packs pods onto nodes until their measured CPU use
// reaches a target, then spreads: a best-fit bin packing on real usage.
package targetloadpacking

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
const Name = "TargetLoadPacking"

// Defaults of the args, as scheduler-plugins sets them.
const (
	DefaultTargetUtilization         int64 = 40
	DefaultRequestsMilliCores        int64 = 1000
	DefaultRequestsMultiplier              = "1.5"
	defaultRequestsMultiplierFloat64       = 1.5
)

// Args are TargetLoadPacking's arguments, scheduler-plugins'
// TargetLoadPackingArgs.
type Args struct {
	metav1.TypeMeta   `json:",inline"`
	load.TrimaranSpec `json:",inline"`
	// DefaultRequests is the CPU a container that asks for none and sets no
	// limit is expected to use; default 1 core.
	DefaultRequests v1.ResourceList `json:"defaultRequests,omitempty"`
	// DefaultRequestsMultiplier scales the CPU request of a container that
	// sets no limit; default "1.5".
	DefaultRequestsMultiplier *string `json:"defaultRequestsMultiplier,omitempty"`
	// TargetUtilization is the CPU use, in percent, nodes are packed to;
	// default 40 (unset or not above 0).
	TargetUtilization *int64 `json:"targetUtilization,omitempty"`
}

// Default sets scheduler-plugins' defaults.
func (a *Args) Default() {
	a.TrimaranSpec.Default()
	if a.DefaultRequests == nil {
		a.DefaultRequests = v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(DefaultRequestsMilliCores, resource.DecimalSI)}
	}
	if a.DefaultRequestsMultiplier == nil {
		a.DefaultRequestsMultiplier = ptr.To(DefaultRequestsMultiplier)
	}
	if a.TargetUtilization == nil || *a.TargetUtilization <= 0 {
		a.TargetUtilization = ptr.To(DefaultTargetUtilization)
	}
}

// Validate reports every problem of defaulted args under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "TargetLoadPackingArgs")
	errs = append(errs, a.TrimaranSpec.Validate(path)...)
	if *a.TargetUtilization > 100 {
		errs = append(errs, field.Invalid(path.Child("targetUtilization"), *a.TargetUtilization, "must be a percentage, at most 100"))
	}
	if m, err := strconv.ParseFloat(*a.DefaultRequestsMultiplier, 64); err != nil || m < 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		errs = append(errs, field.Invalid(path.Child("defaultRequestsMultiplier"), *a.DefaultRequestsMultiplier, "must be a non-negative number, e.g. \"1.5\""))
	}
	if cpu, ok := a.DefaultRequests[v1.ResourceCPU]; ok && cpu.Sign() < 0 {
		errs = append(errs, field.Invalid(path.Child("defaultRequests", "cpu"), cpu.String(), "must not be negative"))
	}
	return errs
}

// TargetLoadPacking scores nodes by their predicted CPU use with the pod:
// highest at the target, lower below it (room left to pack) and falling to
// 0 above it.
type TargetLoadPacking struct {
	target      float64
	defaultCPU  float64
	multiplier  float64
	store       usage.Store
	source      usage.Source
	logger      logr.Logger
	description string
	// memo keeps each node's CPU load per view and NodeInfo.
	memo load.Memo[load.NodeLoad]
}

var (
	_ framework.CycleScorePlugin = &TargetLoadPacking{}
	_ framework.UsageEstimator   = &TargetLoadPacking{}
)

// New is the plugin's factory. Usage is read from the Handle's NodeUsage
// store for the args' metricProvider; without one (validation, tests) every
// node's use is estimated from its pods.
func New(ctx context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	multiplier, err := strconv.ParseFloat(*a.DefaultRequestsMultiplier, 64)
	if err != nil { // Validate parsed it already.
		multiplier = defaultRequestsMultiplierFloat64
	}
	pl := &TargetLoadPacking{
		target:     float64(*a.TargetUtilization),
		defaultCPU: float64(a.DefaultRequests.Cpu().MilliValue()),
		multiplier: multiplier,
		source:     a.MetricProvider.Source(),
		logger:     klog.FromContext(ctx).WithValues("plugin", Name),
	}
	pl.description = load.Describe(pl.source)
	pl.store = load.StoreFor(h, pl.source)
	return pl, nil
}

// Name returns the plugin's name.
func (*TargetLoadPacking) Name() string { return Name }

// UsageSource returns the source the plugin reads.
func (pl *TargetLoadPacking) UsageSource() usage.Source { return pl.source }

// EstimateUsage returns the predicted CPU of the pods the node's sample does
// not show yet, or, without a fresh sample, of all its pods, which Score
// takes as the node's use.
func (pl *TargetLoadPacking) EstimateUsage(view usage.View, nodeInfo *framework.NodeInfo) framework.UsageEstimate {
	return load.Estimate(view, nodeInfo, pl.predictCPU, nil)
}

// predictCPU is PredictCPU for a pod on a node.
func (pl *TargetLoadPacking) predictCPU(pi *framework.PodInfo) float64 { return pl.PredictCPU(pi.Pod) }

// PredictCPU is the CPU, in millicores, a pod is expected to use: each
// container's limit, else its request times the multiplier, else the
// default; plus the pod's overhead (scheduler-plugins' PredictUtilisation).
func (pl *TargetLoadPacking) PredictCPU(pod *v1.Pod) float64 {
	var sum float64
	for i := range pod.Spec.Containers {
		r := &pod.Spec.Containers[i].Resources
		if limit, ok := r.Limits[v1.ResourceCPU]; ok {
			sum += float64(limit.MilliValue())
		} else if req, ok := r.Requests[v1.ResourceCPU]; ok {
			sum += math.Round(float64(req.MilliValue()) * pl.multiplier)
		} else {
			sum += pl.defaultCPU
		}
	}
	if pod.Spec.Overhead != nil {
		sum += float64(pod.Spec.Overhead.Cpu().MilliValue())
	}
	return sum
}

// Score returns the node's score for the pod from its predicted CPU use in
// percent, u, with the pod: (100-T)·u/T + T up to the target T, then
// T·(100-u)/(100-T), and 0 above 100.
func (pl *TargetLoadPacking) Score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	score, _ := pl.NodeScorer(ctx, state, pod)
	return score(nodeInfo)
}

// NodeScorer predicts the pod's CPU once for the cycle and returns Score
// for each node.
func (pl *TargetLoadPacking) NodeScorer(_ context.Context, _ *framework.CycleState, pod *v1.Pod) (framework.NodeScorer, *framework.Status) {
	podCPU := pl.PredictCPU(pod)
	estimate := pl.predictCPU
	var view usage.View
	if pl.store != nil {
		view = pl.store.View()
	}
	return func(nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
		cpu, _ := load.Allocatable(nodeInfo)
		l, ok := pl.memo.Get(view, nodeInfo)
		if !ok {
			l = load.Load(view, nodeInfo, usage.CPU, cpu, estimate)
			pl.memo.Put(view, nodeInfo, l.Freshness, l.SampledAt, l)
		}
		if l.Freshness != usage.Fresh && pl.store != nil && pl.logger.V(5).Enabled() {
			pl.logger.V(5).Info("No fresh usage for the node; scoring the estimates of its pods", "node", klog.KRef("", nodeInfo.Name()), "usage", l.Freshness, "source", pl.description)
		}
		if cpu <= 0 {
			return framework.MinNodeScore, nil
		}
		return Score(100*(l.Used+podCPU)/cpu, pl.target), nil
	}, nil
}

// Score is the score of a node whose predicted CPU use is predicted percent,
// packing to target percent.
func Score(predicted, target float64) int64 {
	switch {
	case predicted > 100:
		return framework.MinNodeScore
	case predicted > target:
		return int64(math.Round(target * (100 - predicted) / (100 - target)))
	default:
		return int64(math.Round((100-target)*predicted/target + target))
	}
}

// ScoreExtensions returns nil: the scores are already in [0, 100].
func (*TargetLoadPacking) ScoreExtensions() framework.ScoreExtensions { return nil }

// String describes the plugin's source for logs.
func (pl *TargetLoadPacking) String() string {
	return fmt.Sprintf("%s reading %s", Name, pl.description)
}
