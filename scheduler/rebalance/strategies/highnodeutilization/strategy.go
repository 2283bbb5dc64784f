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

package highnodeutilization

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
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

type strategy struct {
	args Args
	// resources are the resources measured, sorted; limits holds their
	// thresholds in the same order.
	resources []v1.ResourceName
	limits    []float64
	scope     strategies.PodScope
}

// New builds the strategy from its JSON arguments.
func New(raw []byte) (strategies.Strategy, error) {
	a, err := args.Load[Args]("strategy "+string(Name), raw)
	if err != nil {
		return nil, err
	}
	th := a.measured()
	s := &strategy{args: *a, resources: slices.Sorted(maps.Keys(th))}
	for _, r := range s.resources {
		s.limits = append(s.limits, float64(th[r]))
	}
	s.scope.Namespaces = a.EvictableNamespaces
	return s, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

// underutilized reports whether every measured resource is at or below its threshold.
func (s *strategy) underutilized(u *strategies.Usage) bool {
	for i := range s.resources {
		if u.Used[i] > s.limits[i]*u.Alloc[i]/100 {
			return false
		}
	}
	return true
}

func (s *strategy) describe(u *strategies.Usage) string {
	parts := make([]string, 0, len(s.args.Thresholds))
	for i, r := range s.resources {
		if _, set := s.args.Thresholds[r]; set {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", r, u.Percent(i)))
		}
	}
	return strings.Join(parts, ", ")
}

// Run evicts pods from the underutilized nodes, the emptiest first, while
// the other schedulable nodes have room left for every measured resource.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	nodes := h.Nodes()
	var under []*strategies.Usage
	room := make([]float64, len(s.resources))
	targets := 0
	for _, ni := range nodes {
		u := strategies.MeasureUsage(ni, s.resources)
		switch {
		case s.underutilized(u):
			under = append(under, u)
		case !ni.Node().Spec.Unschedulable:
			targets++
			for i := range room {
				room[i] += max(0, u.Alloc[i]-u.Used[i])
			}
		}
	}
	if len(under) == 0 || len(under) <= s.args.NumberOfNodes || len(under) == len(nodes) || targets == 0 {
		return nil
	}
	total := func(u *strategies.Usage) float64 {
		var t float64
		for i := range s.resources {
			t += u.Percent(i)
		}
		return t
	}
	sort.SliceStable(under, func(i, j int) bool { return total(under[i]) < total(under[j]) })
	for _, u := range under {
		if !s.drain(ctx, h, u, room) {
			return nil
		}
	}
	return nil
}

// drain evicts pods from one underutilized node; it returns false once the
// target nodes are full.
func (s *strategy) drain(ctx context.Context, h strategies.Handle, u *strategies.Usage, room []float64) bool {
	name := u.NodeInfo.Node().Name
	var pods []*v1.Pod
	for _, pod := range strategies.PodsOf(u.NodeInfo) {
		if !strategies.IsTerminal(pod) && s.scope.Matches(pod) && h.Evictable(pod) {
			pods = append(pods, pod)
		}
	}
	strategies.SortForEviction(pods)
	reason := fmt.Sprintf("node is at or below thresholds (%s); its pods can pack onto busier nodes", s.describe(u))
	for _, pod := range pods {
		if slices.ContainsFunc(room, func(v float64) bool { return v <= 0 }) {
			return false
		}
		if h.LimitReached(name) {
			return true
		}
		if !h.Evict(ctx, pod, reason) {
			continue
		}
		for i, v := range strategies.PodAmounts(pod, s.resources) {
			room[i] -= v
		}
	}
	return true
}
