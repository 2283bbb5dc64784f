package highnodeutilization

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
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
	var a Args
	if err := framework.DecodeArgs(string(Name), raw, &a); err != nil {
		return nil, err
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	th := a.defaulted()
	s := &strategy{args: a, resources: slices.Sorted(maps.Keys(th))}
	for _, r := range s.resources {
		s.limits = append(s.limits, float64(th[r]))
	}
	s.scope.Namespaces = a.EvictableNamespaces
	s.scope.Compile()
	return s, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

// usage is one node's allocatable and requested amounts per measured resource.
type usage struct {
	ni          *framework.NodeInfo
	alloc, used []float64
}

func (u *usage) percent(i int) float64 {
	if u.alloc[i] <= 0 {
		if u.used[i] > 0 {
			return 100
		}
		return 0
	}
	return u.used[i] * 100 / u.alloc[i]
}

// amount reads resource r from list: millicores for CPU, units otherwise.
func amount(list v1.ResourceList, r v1.ResourceName) float64 {
	q, ok := list[r]
	if !ok {
		return 0
	}
	if r == v1.ResourceCPU {
		return float64(q.MilliValue())
	}
	return float64(q.Value())
}

// requests returns what pod requests of each measured resource; a pod
// counts as one of the "pods" resource.
func (s *strategy) requests(pod *v1.Pod) []float64 {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	out := make([]float64, len(s.resources))
	for i, r := range s.resources {
		if r == v1.ResourcePods {
			out[i] = 1
			continue
		}
		out[i] = amount(reqs, r)
	}
	return out
}

func (s *strategy) measure(ni *framework.NodeInfo) *usage {
	n := len(s.resources)
	u := &usage{ni: ni, alloc: make([]float64, n), used: make([]float64, n)}
	for i, r := range s.resources {
		u.alloc[i] = amount(ni.Node().Status.Allocatable, r)
	}
	for _, pod := range strategies.PodsOf(ni) {
		if strategies.IsTerminal(pod) {
			continue
		}
		for i, v := range s.requests(pod) {
			u.used[i] += v
		}
	}
	return u
}

// underutilized reports whether every measured resource is at or below its threshold.
func (s *strategy) underutilized(u *usage) bool {
	for i := range s.resources {
		if u.used[i] > s.limits[i]*u.alloc[i]/100 {
			return false
		}
	}
	return true
}

func (s *strategy) describe(u *usage) string {
	parts := make([]string, 0, len(s.args.Thresholds))
	for i, r := range s.resources {
		if _, set := s.args.Thresholds[r]; set {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", r, u.percent(i)))
		}
	}
	return strings.Join(parts, ", ")
}

// Run evicts pods from the underutilized nodes, the emptiest first, while
// the other schedulable nodes have room left for every measured resource.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	nodes := h.Nodes()
	var under []*usage
	room := make([]float64, len(s.resources))
	targets := 0
	for _, ni := range nodes {
		u := s.measure(ni)
		switch {
		case s.underutilized(u):
			under = append(under, u)
		case !ni.Node().Spec.Unschedulable:
			targets++
			for i := range room {
				room[i] += max(0, u.alloc[i]-u.used[i])
			}
		}
	}
	if len(under) == 0 || len(under) <= s.args.NumberOfNodes || len(under) == len(nodes) || targets == 0 {
		return nil
	}
	total := func(u *usage) float64 {
		var t float64
		for i := range s.resources {
			t += u.percent(i)
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
func (s *strategy) drain(ctx context.Context, h strategies.Handle, u *usage, room []float64) bool {
	name := u.ni.Node().Name
	var pods []*v1.Pod
	for _, pod := range strategies.PodsOf(u.ni) {
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
		for i, v := range s.requests(pod) {
			room[i] -= v
		}
	}
	return true
}
