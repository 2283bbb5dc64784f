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

package dynamicresources

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// ReasonGroupDeallocated is PodGroupPostFilter's reason once it went
// through the group's claims, in kube-scheduler v1.37's words, whether or
// not it freed one.
const ReasonGroupDeallocated = "deallocation and deletion of ResourceClaims completed"

// errNoGroupState is kube-scheduler's error when its cycle tried no
// member: the plugin finds none of the state PreFilter keeps for the group.
var errNoGroupState = errors.New("not found")

var _ framework.PodGroupPostFilterPlugin = &DynamicResources{}

// PodGroupPostFilter frees, for a PodGroup that fits in no placement, the
// claims PostFilter would free for each member the cycle tried, as
// kube-scheduler v1.37 does before it preempts for the group. Like
// upstream it leaves a group with a topology constraint alone, and fails
// with an error when the cycle tried no member at all (a gang left with
// fewer members than its minCount): upstream then finds no group state.
// Its reason, added to the group's, says it went through the claims. A
// CompositePodGroup's hierarchy is left alone too, as upstream leaves it.
func (pl *DynamicResources) PodGroupPostFilter(ctx context.Context, group *framework.GroupNode, members []*v1.Pod, sim framework.PodGroupSimulation) (*framework.PodGroupPostFilterResult, *framework.Status) {
	logger := klog.FromContext(ctx)
	if group.Composite != nil {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	if pg := group.PodGroup; pg.Spec.SchedulingConstraints != nil {
		logger.V(5).Info("Leaving the claims of a topology-constrained pod group alone", "podGroup", klog.KObj(pg))
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	var tried map[types.UID]*framework.CycleState
	if sim != nil {
		tried = sim.TriedMembers()
	}
	if len(tried) == 0 {
		return nil, framework.AsStatus(errNoGroupState)
	}
	for _, m := range members {
		cs := tried[m.UID]
		if cs == nil {
			continue
		}
		if _, st := pl.PostFilter(ctx, cs, m, nil); st.Code() == framework.Error {
			return nil, st
		}
	}
	return nil, framework.NewStatus(framework.Unschedulable, ReasonGroupDeallocated)
}
