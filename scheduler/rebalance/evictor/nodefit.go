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

package evictor

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// Filterer runs a profile's PreFilter and Filter plugins;
// *runtime.Framework is one.
type Filterer interface {
	// RunPreFilterPlugins runs the PreFilter plugins for pod.
	RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod) (*framework.PreFilterResult, *framework.Status, sets.Set[string])
	// RunFilterPlugins runs the Filter plugins for pod on one node.
	RunFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status
}

var _ Filterer = (*runtime.Framework)(nil)

// NodeFit asks a profile's filters whether a pod would fit on a node other
// than its own. The filters must read the same snapshot as nodes.
type NodeFit struct {
	filters Filterer
	nodes   []*framework.NodeInfo
}

// NewNodeFit returns a NodeFit over nodes with filters.
func NewNodeFit(filters Filterer, nodes []*framework.NodeInfo) *NodeFit {
	return &NodeFit{filters: filters, nodes: nodes}
}

// Check returns nil when some node other than pod's passes the filters, or
// an error saying why none does.
func (n *NodeFit) Check(ctx context.Context, pod *v1.Pod) error {
	// The copy is unbound, so the filters see it as the scheduler would see
	// its replacement; the mark tells plugins to count released what the
	// pod alone holds (its own devices).
	candidate := pod.DeepCopy()
	candidate.Spec.NodeName = ""
	state := framework.NewCycleState()
	framework.MarkRelocation(state)
	result, status, _ := n.filters.RunPreFilterPlugins(ctx, state, candidate)
	if !status.IsSuccess() {
		return fmt.Errorf("no other node fits: %s", status.Message())
	}
	checked, why := 0, ""
	for _, ni := range n.nodes {
		node := ni.Node()
		if node == nil || node.Name == pod.Spec.NodeName {
			continue
		}
		if !result.AllNodes() && !result.NodeNames.Has(node.Name) {
			continue
		}
		checked++
		s := n.filters.RunFilterPlugins(ctx, state, candidate, ni)
		if s.IsSuccess() {
			return nil
		}
		if why == "" {
			why = fmt.Sprintf("; node %s: %s", node.Name, s.Message())
		}
	}
	return fmt.Errorf("none of the %d other candidate nodes passes the profile's filters%s", checked, why)
}
