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
	"math"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

const preScoreKey framework.StateKey = "PreScore" + Name

// scoreState is what PreScore learns of the pod's soft constraints.
type scoreState struct {
	constraints []constraint
	// ignored are feasible nodes that lack a topology key; they score 0.
	ignored sets.Set[string]
	// domains[i] maps the domains of constraint i that hold a feasible node
	// to an index into counts[i]. Hostname constraints have none: a node's
	// own pods are counted when it is scored.
	domains []map[string]int
	// counts[i][d] is the matching pods in domain d of constraint i.
	counts [][]int64
	// weights[i] is log(domains+2) for constraint i, so that counts in
	// topologies with few domains are not drowned by those with many.
	weights []float64
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *scoreState) Clone() framework.StateData { return s }

// PreScore counts, for each of the pod's soft constraints, the matching pods
// in the domains of the feasible nodes, over every node of the snapshot that
// is eligible. It skips Score for pods without soft constraints.
func (pl *PodTopologySpread) PreScore(ctx context.Context, state *framework.CycleState, pod *v1.Pod, feasible []*framework.NodeInfo) *framework.Status {
	all, err := pl.allNodes()
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(all) == 0 {
		return framework.Skipped()
	}
	cs, err := pl.constraintsFor(pod, v1.ScheduleAnyway)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return framework.Skipped()
	}
	// The System defaults tolerate nodes without a zone label so that such
	// clusters still spread over hosts; other constraints need every key.
	requireAllKeys := len(pod.Spec.TopologySpreadConstraints) > 0 || !pl.systemDefaulted
	s := newScoreState(cs, feasible, requireAllKeys)

	logger := klog.FromContext(ctx)
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	pl.parallelizer.Until(ctx, len(all), func(n int) {
		ni := all[n]
		node := ni.Node()
		if node == nil || (requireAllKeys && !hasAllTopologyKeys(node.Labels, cs)) {
			return
		}
		for i := range cs {
			c := &cs[i]
			if s.domains[i] == nil || !c.includesNode(logger, pod, node, required) {
				continue
			}
			d, ok := s.domains[i][node.Labels[c.topologyKey]]
			if !ok {
				continue
			}
			if matched := countMatching(ni.Pods, c.selector, pod.Namespace); matched > 0 {
				atomic.AddInt64(&s.counts[i][d], int64(matched))
			}
		}
	}, Name)
	state.Write(preScoreKey, s)
	return nil
}

// newScoreState registers the domains of the feasible nodes and weighs each
// constraint by its number of domains.
func newScoreState(cs []constraint, feasible []*framework.NodeInfo, requireAllKeys bool) *scoreState {
	s := &scoreState{
		constraints: cs,
		domains:     make([]map[string]int, len(cs)),
		counts:      make([][]int64, len(cs)),
		weights:     make([]float64, len(cs)),
	}
	for i := range cs {
		if cs[i].topologyKey != v1.LabelHostname {
			s.domains[i] = map[string]int{}
		}
	}
	for _, ni := range feasible {
		node := ni.Node()
		if node == nil {
			continue
		}
		if requireAllKeys && !hasAllTopologyKeys(node.Labels, cs) {
			if s.ignored == nil {
				s.ignored = sets.New[string]()
			}
			s.ignored.Insert(node.Name)
			continue
		}
		for i := range cs {
			if s.domains[i] == nil {
				continue
			}
			// A node without the key registers the empty domain, as upstream
			// does: it weighs the constraint but is never scored by it.
			v := node.Labels[cs[i].topologyKey]
			if _, ok := s.domains[i][v]; !ok {
				s.domains[i][v] = len(s.domains[i])
			}
		}
	}
	for i := range cs {
		size := len(s.domains[i])
		if s.domains[i] == nil {
			size = len(feasible) - len(s.ignored)
		} else {
			s.counts[i] = make([]int64, size)
		}
		s.weights[i] = math.Log(float64(size + 2))
	}
	return s
}

// Score sums, over the soft constraints, the matching pods of the node's
// domain times the constraint's weight plus maxSkew-1; fewer is better, and
// NormalizeScore turns the sums around. Nodes lacking a key score 0.
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, framework.AsStatus(fmt.Errorf("scoring pod %s: node not found", framework.PodKey(pod)))
	}
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return 0, framework.AsStatus(fmt.Errorf("reading %s state: %w", preScoreKey, err))
	}
	if s.ignored.Has(node.Name) {
		return 0, nil
	}
	var total float64
	for i := range s.constraints {
		c := &s.constraints[i]
		v, ok := node.Labels[c.topologyKey]
		if !ok {
			continue
		}
		var matched int64
		if s.domains[i] == nil {
			matched = int64(countMatching(nodeInfo.Pods, c.selector, pod.Namespace))
		} else if d, ok := s.domains[i][v]; ok {
			matched = s.counts[i][d]
		}
		total += float64(matched)*s.weights[i] + float64(c.maxSkew-1)
	}
	return int64(math.Round(total)), nil
}

// ScoreExtensions returns the plugin itself, which normalizes scores.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the sums onto [0, MaxNodeScore] in reverse: the node
// with the lowest sum gets MaxNodeScore when the sums differ, every node gets
// it when all sums are 0, and ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", preScoreKey, err))
	}
	lowest, highest := int64(math.MaxInt64), int64(0)
	for i := range scores {
		if s.ignored.Has(scores[i].Name) {
			continue
		}
		lowest = min(lowest, scores[i].Score)
		highest = max(highest, scores[i].Score)
	}
	for i := range scores {
		switch {
		case s.ignored.Has(scores[i].Name):
			scores[i].Score = 0
		case highest == 0:
			scores[i].Score = framework.MaxNodeScore
		default:
			scores[i].Score = framework.MaxNodeScore * (highest + lowest - scores[i].Score) / highest
		}
	}
	return nil
}
