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
// plugin. Utilization is the pods' requests over the node's allocatable.
package lownodeutilization

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "LowNodeUtilization"

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
}

// Validate returns every problem of the arguments.
func (a *Args) Validate() error {
	var errs []error
	check := func(field string, t Thresholds) {
		if len(t) == 0 {
			errs = append(errs, fmt.Errorf("%s: no resource threshold is configured", field))
		}
		for _, r := range slices.Sorted(maps.Keys(t)) {
			if p := t[r]; p < 0 || p > 100 {
				errs = append(errs, fmt.Errorf("%s[%s]: %v is not a percentage from 0 to 100", field, r, p))
			}
		}
	}
	check("thresholds", a.Thresholds)
	check("targetThresholds", a.TargetThresholds)
	for _, r := range slices.Sorted(maps.Keys(a.Thresholds)) {
		target, ok := a.TargetThresholds[r]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("thresholds and targetThresholds must name the same resources; targetThresholds lacks %s", r))
		case !a.UseDeviationThresholds && a.Thresholds[r] > target:
			errs = append(errs, fmt.Errorf("thresholds[%s] %v is above targetThresholds[%s] %v", r, a.Thresholds[r], r, target))
		}
	}
	for _, r := range slices.Sorted(maps.Keys(a.TargetThresholds)) {
		if _, ok := a.Thresholds[r]; !ok {
			errs = append(errs, fmt.Errorf("thresholds and targetThresholds must name the same resources; thresholds lacks %s", r))
		}
	}
	if a.NumberOfNodes < 0 {
		errs = append(errs, fmt.Errorf("numberOfNodes %d must not be negative", a.NumberOfNodes))
	}
	if ns := a.EvictableNamespaces; ns != nil && len(ns.Include) > 0 && len(ns.Exclude) > 0 {
		errs = append(errs, errors.New("evictableNamespaces: only one of include or exclude may be set"))
	}
	return errors.Join(errs...)
}
