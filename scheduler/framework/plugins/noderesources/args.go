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

// Package noderesources implements NodeResourcesFit, which filters nodes by
// free resources and scores them by a configurable allocation strategy, and
// NodeResourcesBalancedAllocation, which prefers nodes whose resource use
// stays balanced across resources.
package noderesources

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// ScoringStrategyType names a NodeResourcesFit scoring strategy.
type ScoringStrategyType string

// Scoring strategies, as in kubescheduler.config.k8s.io/v1.
const (
	// LeastAllocated prefers nodes with the most free resources.
	LeastAllocated ScoringStrategyType = "LeastAllocated"
	// MostAllocated prefers nodes with the least free resources (bin packing).
	MostAllocated ScoringStrategyType = "MostAllocated"
	// RequestedToCapacityRatio scores utilization through a user-defined shape.
	RequestedToCapacityRatio ScoringStrategyType = "RequestedToCapacityRatio"
)

// MaxCustomPriorityScore is the highest score a shape point may give; it is
// scaled to framework.MaxNodeScore when scoring.
const MaxCustomPriorityScore int32 = 10

// Bounds of a scored resource's weight.
const (
	minResourceWeight = 1
	maxResourceWeight = 100
)

var supportedStrategies = sets.New(string(LeastAllocated), string(MostAllocated), string(RequestedToCapacityRatio))

// ResourceSpec is a resource to score and its weight.
type ResourceSpec struct {
	// Name is the resource name, for example "cpu".
	Name string `json:"name"`
	// Weight is the resource's weight, 1-100; 0 defaults to 1.
	Weight int64 `json:"weight,omitempty"`
}

// UtilizationShapePoint is one point of a RequestedToCapacityRatio shape.
type UtilizationShapePoint struct {
	// Utilization is the utilization in percent, 0-100.
	Utilization int32 `json:"utilization"`
	// Score is the score at that utilization, 0-10.
	Score int32 `json:"score"`
}

// RequestedToCapacityRatioParam holds the RequestedToCapacityRatio shape.
type RequestedToCapacityRatioParam struct {
	// Shape is a piecewise-linear function of utilization, sorted by utilization.
	Shape []UtilizationShapePoint `json:"shape,omitempty"`
}

// ScoringStrategy selects how NodeResourcesFit scores nodes.
type ScoringStrategy struct {
	// Type is the strategy.
	Type ScoringStrategyType `json:"type,omitempty"`
	// Resources are the resources scored, with weights; default cpu and memory, weight 1.
	Resources []ResourceSpec `json:"resources,omitempty"`
	// RequestedToCapacityRatio is required for, and only allowed with, that strategy.
	RequestedToCapacityRatio *RequestedToCapacityRatioParam `json:"requestedToCapacityRatio,omitempty"`
}

// NodeResourcesFitArgs are the args of NodeResourcesFit.
type NodeResourcesFitArgs struct {
	metav1.TypeMeta `json:",inline"`
	// IgnoredResources are extended resources the filter does not check.
	IgnoredResources []string `json:"ignoredResources,omitempty"`
	// IgnoredResourceGroups are extended-resource domains (the part before "/") the filter does not check.
	IgnoredResourceGroups []string `json:"ignoredResourceGroups,omitempty"`
	// ScoringStrategy selects the scoring strategy; default LeastAllocated over cpu and memory.
	ScoringStrategy *ScoringStrategy `json:"scoringStrategy,omitempty"`
}

// NodeResourcesBalancedAllocationArgs are the args of NodeResourcesBalancedAllocation.
type NodeResourcesBalancedAllocationArgs struct {
	metav1.TypeMeta `json:",inline"`
	// Resources are the resources balanced; default cpu and memory, weight 1.
	Resources []ResourceSpec `json:"resources,omitempty"`
}

func defaultResources() []ResourceSpec {
	return []ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
}

func defaultWeights(rs []ResourceSpec) {
	for i := range rs {
		if rs[i].Weight == 0 {
			rs[i].Weight = 1
		}
	}
}

// Default fills unset fields as kube-scheduler's v1 defaulting does:
// LeastAllocated over cpu and memory, and weight 1 where none is given.
func (a *NodeResourcesFitArgs) Default() {
	if a.ScoringStrategy == nil {
		a.ScoringStrategy = &ScoringStrategy{Type: LeastAllocated}
	}
	if len(a.ScoringStrategy.Resources) == 0 {
		a.ScoringStrategy.Resources = defaultResources()
	}
	defaultWeights(a.ScoringStrategy.Resources)
}

// Default fills unset fields as kube-scheduler's v1 defaulting does: cpu
// and memory, and weight 1 where none is given.
func (a *NodeResourcesBalancedAllocationArgs) Default() {
	if len(a.Resources) == 0 {
		a.Resources = defaultResources()
		return
	}
	defaultWeights(a.Resources)
}

// Validate reports every problem of defaulted args, under path.
func (a *NodeResourcesFitArgs) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "NodeResourcesFitArgs")
	for i, r := range a.IgnoredResources {
		errs = append(errs, metav1validation.ValidateLabelName(r, path.Child("ignoredResources").Index(i))...)
	}
	for i, g := range a.IgnoredResourceGroups {
		p := path.Child("ignoredResourceGroups").Index(i)
		if strings.Contains(g, "/") {
			errs = append(errs, field.Invalid(p, g, "resource group name can't contain '/'"))
		}
		errs = append(errs, metav1validation.ValidateLabelName(g, p)...)
	}
	sp := path.Child("scoringStrategy")
	s := a.ScoringStrategy
	if s == nil {
		return append(errs, field.Required(sp, "ScoringStrategy field is required"))
	}
	if !supportedStrategies.Has(string(s.Type)) {
		errs = append(errs, field.NotSupported(sp.Child("type"), s.Type, sets.List(supportedStrategies)))
	}
	errs = append(errs, validateWeights(s.Resources, sp.Child("resources"))...)
	rp := sp.Child("requestedToCapacityRatio")
	switch {
	case s.Type == RequestedToCapacityRatio && s.RequestedToCapacityRatio == nil:
		errs = append(errs, field.Required(rp, "must be specified when type is RequestedToCapacityRatio"))
	case s.Type == RequestedToCapacityRatio:
		errs = append(errs, validateShape(s.RequestedToCapacityRatio.Shape, rp.Child("shape"))...)
	case s.RequestedToCapacityRatio != nil:
		errs = append(errs, field.Forbidden(rp, "must be nil when type is not RequestedToCapacityRatio"))
	}
	return errs
}

// Validate reports every problem of defaulted args, under path.
func (a *NodeResourcesBalancedAllocationArgs) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "NodeResourcesBalancedAllocationArgs")
	seen := sets.New[string]()
	for i, r := range a.Resources {
		p := path.Child("resources").Index(i)
		if seen.Has(r.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), r.Name))
		}
		seen.Insert(r.Name)
		if r.Weight != 1 {
			errs = append(errs, field.Invalid(p.Child("weight"), r.Weight, "must be 1"))
		}
	}
	return errs
}

func validateWeights(rs []ResourceSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rs {
		if r.Weight < minResourceWeight || r.Weight > maxResourceWeight {
			errs = append(errs, field.Invalid(path.Index(i).Child("weight"), r.Weight,
				fmt.Sprintf("resource weight of %s not in valid range (0, %d]", r.Name, maxResourceWeight)))
		}
	}
	return errs
}

func validateShape(shape []UtilizationShapePoint, path *field.Path) field.ErrorList {
	if len(shape) == 0 {
		return field.ErrorList{field.Required(path, "at least one point must be specified")}
	}
	var errs field.ErrorList
	for i := 1; i < len(shape); i++ {
		if shape[i].Utilization <= shape[i-1].Utilization {
			errs = append(errs, field.Invalid(path.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
			break
		}
	}
	for i, pt := range shape {
		if pt.Utilization < 0 || pt.Utilization > 100 {
			errs = append(errs, field.Invalid(path.Index(i).Child("utilization"), pt.Utilization, "not in valid range [0, 100]"))
		}
		if pt.Score < 0 || pt.Score > MaxCustomPriorityScore {
			errs = append(errs, field.Invalid(path.Index(i).Child("score"), pt.Score, fmt.Sprintf("not in valid range [0, %d]", MaxCustomPriorityScore)))
		}
	}
	return errs
}
