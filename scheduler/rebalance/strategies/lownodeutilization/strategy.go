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

package lownodeutilization

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

type strategy struct {
	args      Args
	resources []v1.ResourceName
	scope     strategies.PodScope
}

// New builds the strategy from its JSON arguments.
func New(raw []byte) (strategies.Strategy, error) {
	a, err := args.Load[Args]("strategy "+string(Name), raw)
	if err != nil {
		return nil, err
	}
	s := &strategy{args: *a, resources: slices.Sorted(maps.Keys(a.Thresholds))}
	s.scope.Namespaces = a.EvictableNamespaces
	return s, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

// usage is one node's requested amounts and bounds, per configured resource.
type usage struct {
	*strategies.Usage
	low, high []float64
}

func (u *usage) underutilized() bool {
	if u.NodeInfo.Node().Spec.Unschedulable {
		return false
	}
	for i := range u.Used {
		if u.Used[i] > u.low[i] {
			return false
		}
	}
	return true
}

func (u *usage) overutilized() bool {
	for i := range u.Used {
		if u.Used[i] > u.high[i] {
			return true
		}
	}
	return false
}

// measure returns the node's amounts per configured resource, with room for its bounds.
func (s *strategy) measure(ni *framework.NodeInfo) *usage {
	n := len(s.resources)
	return &usage{Usage: strategies.MeasureUsage(ni, s.resources), low: make([]float64, n), high: make([]float64, n)}
}

// bounds sets each node's low and high amounts from the thresholds, read
// as absolute percentages or as deviations from the mean.
func (s *strategy) bounds(usages []*usage) {
	for i, r := range s.resources {
		low, high := float64(s.args.Thresholds[r]), float64(s.args.TargetThresholds[r])
		if s.args.UseDeviationThresholds {
			var mean float64
			for _, u := range usages {
				mean += u.Percent(i)
			}
			mean /= float64(len(usages))
			low, high = max(0, mean-low), min(100, mean+high)
		}
		for _, u := range usages {
			u.low[i], u.high[i] = low*u.Alloc[i]/100, high*u.Alloc[i]/100
		}
	}
}

func (s *strategy) describe(u *usage) string {
	parts := make([]string, len(s.resources))
	for i, r := range s.resources {
		parts[i] = fmt.Sprintf("%s %.0f%%", r, u.Percent(i))
	}
	return strings.Join(parts, ", ")
}

// Run evicts pods from overutilized nodes, the busiest first, while they
// stay above their target and the underutilized nodes have room.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	nodes := h.Nodes()
	if len(nodes) == 0 {
		return nil
	}
	usages := make([]*usage, len(nodes))
	for i, ni := range nodes {
		usages[i] = s.measure(ni)
	}
	s.bounds(usages)
	var under, over []*usage
	for _, u := range usages {
		switch {
		case u.underutilized():
			under = append(under, u)
		case u.overutilized():
			over = append(over, u)
		}
	}
	if len(under) == 0 || len(under) <= s.args.NumberOfNodes || len(under) == len(usages) || len(over) == 0 {
		return nil
	}
	room := make([]float64, len(s.resources))
	for _, u := range under {
		for i := range room {
			room[i] += u.high[i] - u.Used[i]
		}
	}
	total := func(u *usage) float64 {
		var t float64
		for i := range s.resources {
			t += u.Percent(i)
		}
		return t
	}
	sort.SliceStable(over, func(i, j int) bool { return total(over[i]) > total(over[j]) })
	for _, u := range over {
		s.drain(ctx, h, u, room)
	}
	return nil
}

// drain evicts pods from one overutilized node.
func (s *strategy) drain(ctx context.Context, h strategies.Handle, u *usage, room []float64) {
	name := u.NodeInfo.Node().Name
	var pods []*v1.Pod
	for _, pod := range strategies.PodsOf(u.NodeInfo) {
		if !strategies.IsTerminal(pod) && s.scope.Matches(pod) && h.Evictable(pod) {
			pods = append(pods, pod)
		}
	}
	strategies.SortForEviction(pods)
	for _, pod := range pods {
		if !u.overutilized() || slices.ContainsFunc(room, func(v float64) bool { return v <= 0 }) || h.LimitReached(name) {
			return
		}
		reason := fmt.Sprintf("node is above targetThresholds (%s) and underutilized nodes have room", s.describe(u))
		if !h.Evict(ctx, pod, reason) {
			continue
		}
		for i, v := range strategies.PodAmounts(pod, s.resources) {
			u.Used[i] -= v
			room[i] -= v
		}
	}
}
