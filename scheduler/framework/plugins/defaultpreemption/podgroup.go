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

package defaultpreemption

import (
	"context"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/scheduler/framework"
)

// Messages of preemption for a pod group, in kube-scheduler v1.37's words.
const (
	groupPreemptionPrefix = "pod group preemption: "
	msgGroupNotEligible   = "not eligible due to preemptionPolicy=Never."
	msgNoGroupVictims     = "No preemption victims found for incoming preemptor"
	msgGroupNotSupported  = "Berth does not evict pods for a pod group yet"
)

var _ framework.PodGroupPostFilterPlugin = (*DefaultPreemption)(nil)

// PodGroupPostFilter answers for a scheduling.k8s.io PodGroup that fits in
// no placement, as kube-scheduler's pod group preemption answers: a group
// whose members may not preempt (a member with preemptionPolicy Never) is
// not eligible, and a group with no pod of lower priority than its own in
// the cluster has no victims. Evicting victims for a whole group is not
// implemented yet: a group that has lower-priority pods to take room from
// is told so and stays pending.
func (p *DefaultPreemption) PodGroupPostFilter(_ context.Context, group *schedulingv1beta1.PodGroup, members []*v1.Pod) (*framework.PodGroupPostFilterResult, *framework.Status) {
	for _, m := range members {
		if pp := m.Spec.PreemptionPolicy; pp != nil && *pp == v1.PreemptNever {
			return nil, framework.NewStatus(framework.Unschedulable, groupPreemptionPrefix+msgGroupNotEligible)
		}
	}
	priority := groupPriority(group)
	nodes, err := p.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			if p.victimPriority(pi.Pod) < priority {
				return nil, framework.NewStatus(framework.Unschedulable, groupPreemptionPrefix+msgGroupNotSupported)
			}
		}
	}
	return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, groupPreemptionPrefix+msgNoGroupVictims)
}

// groupPriority is a PodGroup's priority; without one it is 0, as upstream.
func groupPriority(pg *schedulingv1beta1.PodGroup) int32 {
	if pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	return 0
}

// victimPriority is the priority a pod is preempted at: its PodGroup's for
// a member of a scheduling.k8s.io PodGroup, its own otherwise.
func (p *DefaultPreemption) victimPriority(pod *v1.Pod) int32 {
	if name, ok := framework.SchedulingGroupOf(pod); ok {
		if pg, err := p.handle.Workloads().PodGroup(pod.Namespace, name); err == nil {
			return groupPriority(pg)
		}
	}
	return priorityOf(pod)
}
