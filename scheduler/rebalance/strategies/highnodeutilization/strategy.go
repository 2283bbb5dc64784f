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
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

type strategy struct {
	args Args
	// judged are the resources by which a node is underutilized, sorted;
	// limits holds their thresholds in the same order. By requests they
	// are the resources measured; with metricsUtilization, the policy's
	// thresholds, read from the usage.
	judged []v1.ResourceName
	limits []float64
	// room are the resources measured by requests, sorted: the target
	// nodes must have room for each.
	room  []v1.ResourceName
	scope strategies.PodScope
}

var _ strategies.MetricsReader = (*strategy)(nil)

// New builds the strategy from its JSON arguments.
func New(raw []byte) (strategies.Strategy, error) {
	a, err := args.Load[Args]("strategy "+string(Name), raw)
	if err != nil {
		return nil, err
	}
	th := a.measured()
	s := &strategy{args: *a}
	// MetricResource is no pod's request: the room is counted without it.
	s.room = slices.DeleteFunc(slices.Sorted(maps.Keys(th)), func(r v1.ResourceName) bool { return r == strategies.MetricResource })
	s.judged = s.room
	if a.MetricsUtilization.Reads() != "" {
		th = a.Thresholds
		s.judged = slices.Sorted(maps.Keys(th))
	}
	for _, r := range s.judged {
		s.limits = append(s.limits, float64(th[r]))
	}
	s.scope.Namespaces = a.EvictableNamespaces
	return s, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

// MetricsSource returns the source metricsUtilization reads, with the
// field that asks for it.
func (s *strategy) MetricsSource() (v1alpha1.MetricsSource, *field.Path) {
	return s.args.MetricsUtilization.SourceField()
}

// node is one node as the strategy measures it: use, over the judged
// resources, says whether it is underutilized; req, over the room
// resources, what its pods request. They are one Usage by requests.
type node struct {
	use, req *strategies.Usage
}

// measure returns ni's usage: the pods' requests, and with m what the node
// really uses.
func (s *strategy) measure(ni *framework.NodeInfo, m *strategies.Metrics) (node, error) {
	req := strategies.MeasureUsage(ni, s.room)
	if m == nil {
		return node{use: req, req: req}, nil
	}
	use := strategies.MeasureUsage(ni, s.judged)
	if err := s.args.MetricsUtilization.ReadNodeUsage(use, s.judged, m.Nodes); err != nil {
		return node{}, err
	}
	return node{use: use, req: req}, nil
}

// underutilized reports whether every judged resource is at or below its threshold.
func (s *strategy) underutilized(u *strategies.Usage) bool {
	for i := range s.judged {
		if u.Used[i] > s.limits[i]*u.Alloc[i]/100 {
			return false
		}
	}
	return true
}

func (s *strategy) describe(u *strategies.Usage) string {
	parts := make([]string, 0, len(s.args.Thresholds))
	for i, r := range s.judged {
		if _, set := s.args.Thresholds[r]; set {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", r, u.Percent(i)))
		}
	}
	return strings.Join(parts, ", ")
}

// reason says why the pods of n are evicted.
func (s *strategy) reason(n node) string {
	what := "node"
	switch s.args.MetricsUtilization.Reads() {
	case v1alpha1.MetricsSourceKubernetesMetrics:
		what = "node's usage from metrics-server"
	case v1alpha1.MetricsSourcePrometheus:
		what = "node's usage from Prometheus"
	}
	return fmt.Sprintf("%s is at or below thresholds (%s); its pods can pack onto busier nodes", what, s.describe(n.use))
}

// Run evicts pods from the underutilized nodes, the emptiest first, while
// the other schedulable nodes have room left, by requests, for every
// measured resource. With metricsUtilization, nodes that are not Ready are
// left out, and a node without fresh usage fails the run before anything
// is evicted.
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
	}
	measured := make([]node, len(nodes))
	for i, ni := range nodes {
		if measured[i], err = s.measure(ni, m); err != nil {
			return err
		}
	}
	var under []node
	room := make([]float64, len(s.room))
	targets := 0
	for _, n := range measured {
		switch {
		case s.underutilized(n.use):
			under = append(under, n)
		case !n.req.NodeInfo.Node().Spec.Unschedulable:
			targets++
			for i := range room {
				room[i] += max(0, n.req.Alloc[i]-n.req.Used[i])
			}
		}
	}
	if len(under) == 0 || len(under) <= s.args.NumberOfNodes || len(under) == len(nodes) || targets == 0 {
		return nil
	}
	total := func(n node) float64 {
		var t float64
		for i := range s.judged {
			t += n.use.Percent(i)
		}
		return t
	}
	sort.SliceStable(under, func(i, j int) bool { return total(under[i]) < total(under[j]) })
	for _, n := range under {
		if !s.drain(ctx, h, n, room) {
			return nil
		}
	}
	return nil
}

// drain evicts pods from one underutilized node, each taking its requests
// from the targets' room; it returns false once the target nodes are
// full. Whatever the source, every pod may go: the node is being emptied,
// so what a pod uses does not bound how many leave it.
func (s *strategy) drain(ctx context.Context, h strategies.Handle, n node, room []float64) bool {
	name := n.req.NodeInfo.Node().Name
	var pods []*v1.Pod
	for _, pod := range strategies.PodsOf(n.req.NodeInfo) {
		if !strategies.IsTerminal(pod) && s.scope.Matches(pod) && h.Evictable(pod) {
			pods = append(pods, pod)
		}
	}
	strategies.SortForEviction(pods)
	reason := s.reason(n)
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
		for i, v := range strategies.PodAmounts(pod, s.room) {
			room[i] -= v
		}
	}
	return true
}
