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

package podtopologyspread

import (
	"context"
	"fmt"
	"maps"
	"math"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

const preFilterKey framework.StateKey = "PreFilter" + Name

// domainCount is a topology domain with its number of matching pods.
type domainCount struct {
	domain string
	pods   int
}

// lowestTwo tracks two domains of a constraint such that [0] always has the
// fewest matching pods and [1] no fewer than [0]. Two suffice because
// preemption adds or removes pods on one node, so one domain, at a time,
// on its own copy of the state: when the minimum domain grows, [1] is at
// least as good a candidate as any other domain that was not tracked.
type lowestTwo [2]domainCount

func newLowestTwo() lowestTwo {
	return lowestTwo{{pods: math.MaxInt32}, {pods: math.MaxInt32}}
}

// set records that the domain now has n matching pods.
func (l *lowestTwo) set(domain string, n int) {
	switch domain {
	case l[0].domain:
		l[0].pods = n
	case l[1].domain:
		l[1].pods = n
	default:
		switch {
		case n < l[0].pods:
			l[1] = l[0]
			l[0] = domainCount{domain: domain, pods: n}
		case n < l[1].pods:
			l[1] = domainCount{domain: domain, pods: n}
		}
		return
	}
	if l[1].pods < l[0].pods {
		l[0], l[1] = l[1], l[0]
	}
}

// filterState is what PreFilter learns of the pod's hard constraints.
type filterState struct {
	constraints []constraint
	// selfMatch[i] is 1 when constraint i selects the incoming pod itself.
	selfMatch []int
	// counts[i] maps each eligible domain of constraint i to its matching pods.
	counts []map[string]int
	// lowest[i] holds the smallest counts of constraint i. It is nil when
	// the counts come from the count cache until AddPod or RemovePod needs
	// it; minimums[i] is then constraint i's smallest count.
	lowest   []lowestTwo
	minimums []int
	// sharedCounts is set when counts belong to the count cache: they are
	// copied before AddPod or RemovePod changes them.
	sharedCounts bool
	// view holds the same counts by node position when they come from the
	// count cache; AddPod and RemovePod drop it.
	view *domainView
	// v5 is the cycle's logger at verbosity 5, looked up once; Filter logs
	// why it rejects a node only when verbose is set.
	v5      logr.Logger
	verbose bool
}

// setLogger keeps the verbosity-5 logger of ctx.
func (s *filterState) setLogger(ctx context.Context) {
	s.v5 = klog.FromContext(ctx).V(5)
	s.verbose = s.v5.Enabled()
}

// Clone copies the counts, which AddPod and RemovePod change.
func (s *filterState) Clone() framework.StateData {
	out := &filterState{
		constraints: s.constraints,
		selfMatch:   s.selfMatch,
		counts:      make([]map[string]int, len(s.counts)),
		lowest:      append([]lowestTwo(nil), s.lowest...),
		minimums:    s.minimums,
		view:        s.view,
		v5:          s.v5,
		verbose:     s.verbose,
	}
	for i, m := range s.counts {
		out.counts[i] = maps.Clone(m)
	}
	return out
}

// globalMin is the minimum matching pods over constraint i's domains, or 0
// while there are fewer domains than minDomains.
func (s *filterState) globalMin(i int) int {
	if len(s.counts[i]) < int(s.constraints[i].minDomains) {
		return 0
	}
	if s.lowest == nil {
		return s.minimums[i]
	}
	return s.lowest[i][0].pods
}

// findLowest fills lowest from the counts.
func (s *filterState) findLowest() {
	s.lowest = make([]lowestTwo, len(s.counts))
	for i, m := range s.counts {
		s.lowest[i] = newLowestTwo()
		for domain, n := range m {
			s.lowest[i].set(domain, n)
		}
	}
}

// PreFilter counts, for each of the pod's hard constraints, the matching pods
// in every topology domain of the eligible nodes. It skips Filter for pods
// without hard constraints.
func (pl *PodTopologySpread) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	cs, err := pl.constraintsFor(pod, v1.DoNotSchedule)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return nil, framework.Skipped()
	}
	if pl.hard != nil && cacheable(pod, cs) {
		if s := pl.cachedHard(ctx, pod, cs, nodes); s != nil {
			state.Write(preFilterKey, s)
			return nil, nil
		}
	}
	state.Write(preFilterKey, pl.countHard(ctx, pod, cs, nodes))
	return nil, nil
}

// cachedHard builds the filter state from the count cache, which recounts
// only the nodes that changed since it last counted these constraints; nil
// when the cache does not keep them yet.
func (pl *PodTopologySpread) cachedHard(ctx context.Context, pod *v1.Pod, cs []constraint, nodes []*framework.NodeInfo) *filterState {
	counts, minimums, view := pl.hard.lookup(ctx, klog.FromContext(ctx), pl.parallelizer, pod.Namespace, cs, nodes)
	if counts == nil {
		return nil
	}
	s := &filterState{
		constraints:  cs,
		selfMatch:    make([]int, len(cs)),
		counts:       counts,
		minimums:     minimums,
		sharedCounts: true,
		view:         view,
	}
	s.setLogger(ctx)
	podLabels := labels.Set(pod.Labels)
	for i := range cs {
		if cs[i].selector.Matches(podLabels) {
			s.selfMatch[i] = 1
		}
	}
	return s
}

// countHard builds the filter state over the nodes in parallel: each node's
// counts go to its own slots, then one pass adds them up per domain.
func (pl *PodTopologySpread) countHard(ctx context.Context, pod *v1.Pod, cs []constraint, nodes []*framework.NodeInfo) *filterState {
	logger := klog.FromContext(ctx)
	k := len(cs)
	s := &filterState{
		constraints: cs,
		selfMatch:   make([]int, k),
		counts:      make([]map[string]int, k),
	}
	s.setLogger(ctx)
	podLabels := labels.Set(pod.Labels)
	for i := range cs {
		if cs[i].selector.Matches(podLabels) {
			s.selfMatch[i] = 1
		}
		size := 0
		if cs[i].topologyKey == v1.LabelHostname {
			size = len(nodes)
		}
		s.counts[i] = make(map[string]int, size)
	}
	// perNode[n*k+i] is node n's count for constraint i, or -1 when the node
	// is not eligible for it, and domains[n*k+i] its domain: the parallel
	// pass reads each node once, the sums below touch no node.
	perNode := make([]int32, len(nodes)*k)
	domains := make([]string, len(nodes)*k)
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	pl.parallelizer.Until(ctx, len(nodes), func(n int) {
		countNode(logger, pod, cs, required, nodes[n], perNode[n*k:(n+1)*k], domains[n*k:(n+1)*k])
	}, Name)
	for j, c := range perNode {
		if c >= 0 {
			s.counts[j%k][domains[j]] += int(c)
		}
	}
	s.findLowest()
	return s
}

// countNode fills slots with the node's matching pods per constraint, -1
// where the node does not take part, and domains with the node's domain of
// each constraint.
func countNode(logger logr.Logger, pod *v1.Pod, cs []constraint, required nodeaffinity.RequiredNodeAffinity, ni *framework.NodeInfo, slots []int32, domains []string) {
	for i := range slots {
		slots[i] = -1
	}
	node := ni.Node()
	if node == nil {
		return
	}
	// The node takes part only if it has every constraint's topology key.
	for i := range cs {
		d, ok := node.Labels[cs[i].topologyKey]
		if !ok {
			return
		}
		domains[i] = d
	}
	for i := range cs {
		c := &cs[i]
		if !c.includesNode(logger, pod, node, required) {
			continue
		}
		if j := c.sameSelectorAs; j >= 0 && slots[j] >= 0 {
			slots[i] = slots[j]
			continue
		}
		slots[i] = int32(countMatching(ni.Pods, c.selector, pod.Namespace))
	}
}

// readFilterState reads PreFilter's state.
func readFilterState(state *framework.CycleState) (*filterState, error) {
	s, err := framework.ReadState[*filterState](state, preFilterKey)
	if err != nil {
		return nil, fmt.Errorf("reading %s state: %w", preFilterKey, err)
	}
	return s, nil
}

// PreFilterExtensions returns the plugin itself, which updates its counts
// when preemption adds or removes pods.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts podToAdd as if it ran on the node.
func (pl *PodTopologySpread) AddPod(ctx context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := readFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.adjust(klog.FromContext(ctx), podToSchedule, podToAdd.Pod, nodeInfo.Node(), 1)
	return nil
}

// RemovePod stops counting podToRemove on the node.
func (pl *PodTopologySpread) RemovePod(ctx context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := readFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.adjust(klog.FromContext(ctx), podToSchedule, podToRemove.Pod, nodeInfo.Node(), -1)
	return nil
}

// adjust adds delta to the counts of the node's domains for every
// constraint that selects other and for which the node is eligible.
func (s *filterState) adjust(logger logr.Logger, incoming, other *v1.Pod, node *v1.Node, delta int) {
	if node == nil || other.Namespace != incoming.Namespace || !hasAllTopologyKeys(node.Labels, s.constraints) {
		return
	}
	s.view = nil
	if s.sharedCounts {
		for i := range s.counts {
			s.counts[i] = maps.Clone(s.counts[i])
		}
		s.sharedCounts = false
	}
	if s.lowest == nil {
		s.findLowest()
	}
	required := nodeaffinity.GetRequiredNodeAffinity(incoming)
	otherLabels := labels.Set(other.Labels)
	for i := range s.constraints {
		c := &s.constraints[i]
		if !c.selector.Matches(otherLabels) || !c.includesNode(logger, incoming, node, required) {
			continue
		}
		domain := node.Labels[c.topologyKey]
		s.counts[i][domain] += delta
		s.lowest[i].set(domain, s.counts[i][domain])
	}
}

// Filter rejects the node when placing the pod there would make a domain
// exceed its constraint's maxSkew over the global minimum, and, unresolvably,
// when the node lacks a topology key. It only looks up PreFilter's counts:
// by the node's position when the count cache gave them, else by its labels.
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	s, err := readFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.view != nil && !s.verbose {
		if p := s.view.tracker.Position(nodeInfo); p >= 0 {
			if st, ok := pl.filterAt(s, p); ok {
				return st
			}
		}
	}
	for i := range s.constraints {
		c := &s.constraints[i]
		domain, ok := node.Labels[c.topologyKey]
		if !ok {
			if s.verbose {
				s.v5.Info("node lacks a topology key", "pod", klog.KObj(pod), "node", klog.KObj(node), "topologyKey", c.topologyKey)
			}
			return pl.missingLabel
		}
		minimum := s.globalMin(i)
		skew := s.counts[i][domain] + s.selfMatch[i] - minimum
		if skew > int(c.maxSkew) {
			if s.verbose {
				s.v5.Info("placing the pod would exceed maxSkew", "pod", klog.KObj(pod), "node", klog.KObj(node),
					"topologyKey", c.topologyKey, "matching", s.counts[i][domain], "minimum", minimum, "maxSkew", c.maxSkew)
			}
			return pl.tooSkewed
		}
	}
	return nil
}

// filterAt is Filter for the node at position p of the count cache's view,
// which has the node's domain numbers and their counts. It reports false,
// for the label path to decide, when the view does not cover the position
// or a domain: the cache changed since this state's PreFilter, which a
// scheduling cycle never sees.
func (pl *PodTopologySpread) filterAt(s *filterState, p int) (*framework.Status, bool) {
	v, k := s.view, len(s.constraints)
	if (p+1)*k > len(v.ids) {
		return nil, false
	}
	ids := v.ids[p*k : (p+1)*k]
	for i, id := range ids {
		if id < 0 {
			return pl.missingLabel, true
		}
		counts := v.byID[i]
		if int(id) >= len(counts) {
			return nil, false
		}
		if counts[id]+s.selfMatch[i]-s.globalMin(i) > int(s.constraints[i].maxSkew) {
			return pl.tooSkewed, true
		}
	}
	return nil, true
}
