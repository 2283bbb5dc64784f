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
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

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

var _ strategies.MetricsReader = (*strategy)(nil)

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

// MetricsSource returns the source metricsUtilization reads, with the
// field that asks for it.
func (s *strategy) MetricsSource() (v1alpha1.MetricsSource, *field.Path) {
	return s.args.MetricsUtilization.SourceField()
}

// usage is one node's used amounts and bounds, per configured resource.
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

// measure returns the node's amounts per configured resource, with room
// for its bounds: the pods' requests, or with m what the node really uses.
func (s *strategy) measure(ni *framework.NodeInfo, m *strategies.Metrics) (*usage, error) {
	n := len(s.resources)
	u := &usage{Usage: strategies.MeasureUsage(ni, s.resources), low: make([]float64, n), high: make([]float64, n)}
	if m == nil {
		return u, nil
	}
	if err := s.args.MetricsUtilization.ReadNodeUsage(u.Usage, s.resources, m.Nodes); err != nil {
		return nil, err
	}
	return u, nil
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

// reason says why a pod of u is evicted.
func (s *strategy) reason(u *usage, m *strategies.Metrics) string {
	switch {
	case m == nil:
		return fmt.Sprintf("node is above targetThresholds (%s) and underutilized nodes have room", s.describe(u))
	case m.PodUsage == nil:
		return fmt.Sprintf("node's usage from Prometheus is above targetThresholds (%s) and underutilized nodes have room", s.describe(u))
	}
	return fmt.Sprintf("node's usage from metrics-server is above targetThresholds (%s) and underutilized nodes have room", s.describe(u))
}

// Run evicts pods from overutilized nodes, the busiest first, while they
// stay above their target and the underutilized nodes have room. With
// metricsUtilization, a node without fresh usage fails the run before
// anything is evicted.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	nodes := h.Nodes()
	if len(nodes) == 0 {
		return nil
	}
	m, err := s.args.MetricsUtilization.ReadMetrics(ctx, h)
	if err != nil {
		return err
	}
	if m != nil {
		nodes = slices.DeleteFunc(slices.Clone(nodes), strategies.NotReady)
		if len(nodes) == 0 {
			return nil
		}
	}
	usages := make([]*usage, len(nodes))
	for i, ni := range nodes {
		u, err := s.measure(ni, m)
		if err != nil {
			return err
		}
		usages[i] = u
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
		s.drain(ctx, h, u, room, m)
	}
	return nil
}

// drain evicts pods from one overutilized node. Without the pods' usage
// (Prometheus), what an eviction frees is unknown: one pod leaves the
// node, or up to the policy's per-node limit when it sets one.
func (s *strategy) drain(ctx context.Context, h strategies.Handle, u *usage, room []float64, m *strategies.Metrics) {
	logger := klog.FromContext(ctx)
	name := u.NodeInfo.Node().Name
	var pods []*v1.Pod
	for _, pod := range strategies.PodsOf(u.NodeInfo) {
		if !strategies.IsTerminal(pod) && s.scope.Matches(pod) && h.Evictable(pod) {
			pods = append(pods, pod)
		}
	}
	strategies.SortForEviction(pods)
	reason := s.reason(u, m)
	for _, pod := range pods {
		if !u.overutilized() || slices.ContainsFunc(room, func(v float64) bool { return v <= 0 }) || h.LimitReached(name) {
			return
		}
		amounts, known, err := s.podAmounts(ctx, pod, m)
		if err != nil {
			logger.V(2).Info("Pod stays: its usage is unknown", "pod", klog.KObj(pod), "node", klog.KRef("", name), "err", err.Error())
			continue
		}
		if !h.Evict(ctx, pod, reason) {
			continue
		}
		if !known {
			if !m.NodeLimited {
				return
			}
			continue
		}
		for i, v := range amounts {
			u.Used[i] -= v
			room[i] -= v
		}
	}
}

// podAmounts returns what evicting pod frees of each configured resource:
// its requests, or with m what it uses now; known is false when the
// source gives no pod's usage.
func (s *strategy) podAmounts(ctx context.Context, pod *v1.Pod, m *strategies.Metrics) (amounts []float64, known bool, err error) {
	if m == nil {
		return strategies.PodAmounts(pod, s.resources), true, nil
	}
	if m.PodUsage == nil {
		return nil, false, nil
	}
	used, err := m.PodUsage(ctx, pod)
	if err != nil {
		return nil, false, err
	}
	amounts = make([]float64, len(s.resources))
	for i, r := range s.resources {
		switch r {
		case v1.ResourcePods:
			amounts[i] = 1
		case v1.ResourceCPU:
			q := used[v1.ResourceCPU]
			amounts[i] = float64(q.MilliValue())
		default:
			q := used[r]
			amounts[i] = float64(q.Value())
		}
	}
	return amounts, true, nil
}
