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

package noderesources

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// BalancedAllocationName is the registered name of NodeResourcesBalancedAllocation.
const BalancedAllocationName = names.NodeResourcesBalancedAllocation

const balancedPreScoreKey framework.StateKey = "PreScore" + BalancedAllocationName

// BalancedAllocation favours nodes on which the pod makes the used shares of
// the scored resources more equal.
type BalancedAllocation struct {
	scorer resourceScorer
}

var (
	_ framework.PreScorePlugin    = &BalancedAllocation{}
	_ framework.CycleScorePlugin  = &BalancedAllocation{}
	_ framework.EnqueueExtensions = &BalancedAllocation{}
)

type balancedState struct {
	podRequests []int64
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *balancedState) Clone() framework.StateData { return s }

// NewBalancedAllocation is the plugin's factory: it loads
// NodeResourcesBalancedAllocationArgs with args.Load and builds the plugin.
func NewBalancedAllocation(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[NodeResourcesBalancedAllocationArgs]("plugin "+BalancedAllocationName, raw)
	if err != nil {
		return nil, err
	}
	return NewBalancedAllocationWithArgs(a), nil
}

// NewBalancedAllocationWithArgs builds the plugin from args that args.Load returned.
func NewBalancedAllocationWithArgs(a *NodeResourcesBalancedAllocationArgs) *BalancedAllocation {
	return &BalancedAllocation{scorer: newResourceScorer(a.Resources, false)}
}

// Name returns the plugin's name.
func (*BalancedAllocation) Name() string { return BalancedAllocationName }

// PreScore computes the pod's requests once; a pod requesting none of the
// scored resources cannot unbalance a node, so scoring is skipped.
func (b *BalancedAllocation) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	reqs := b.scorer.podRequests(pod)
	if requestsNone(reqs) {
		return framework.Skipped()
	}
	state.Write(balancedPreScoreKey, &balancedState{podRequests: reqs})
	return nil
}

func requestsNone(reqs []int64) bool {
	for _, r := range reqs {
		if r != 0 {
			return false
		}
	}
	return true
}

// Score is 50 plus half of (50 plus the balance gained by placing the pod),
// so a node the pod balances best scores highest.
func (b *BalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	reqs, ok := b.scoreRequests(state, pod)
	if !ok {
		return 0, nil
	}
	return b.score(ni, reqs), nil
}

// NodeScorer scores like Score with the pod's requests read once.
func (b *BalancedAllocation) NodeScorer(_ context.Context, state *framework.CycleState, pod *v1.Pod) (framework.NodeScorer, *framework.Status) {
	reqs, ok := b.scoreRequests(state, pod)
	if !ok {
		return func(*framework.NodeInfo) (int64, *framework.Status) { return 0, nil }, nil
	}
	return func(ni *framework.NodeInfo) (int64, *framework.Status) { return b.score(ni, reqs), nil }, nil
}

// scoreRequests returns the pod's requests as PreScore stored them or,
// when PreScore did not run, computed now; ok is false when the pod
// requests none of the scored resources and every node scores 0.
func (b *BalancedAllocation) scoreRequests(state *framework.CycleState, pod *v1.Pod) (reqs []int64, ok bool) {
	if s, err := framework.ReadState[*balancedState](state, balancedPreScoreKey); err == nil {
		return s.podRequests, true
	}
	reqs = b.scorer.podRequests(pod)
	return reqs, !requestsNone(reqs)
}

func (b *BalancedAllocation) score(ni *framework.NodeInfo, reqs []int64) int64 {
	with, without := b.scorer.balanceScores(ni, reqs)
	half := framework.MaxNodeScore / 2
	return half + (half+with-without)/2
}

// ScoreExtensions returns nil: scores are already in [0, MaxNodeScore].
func (*BalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }

// EventsToRegister returns no events: a score plugin never rejects a pod.
func (*BalancedAllocation) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return nil, nil
}
