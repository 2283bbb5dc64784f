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

package scheduler

import (
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance"
)

// GangOf returns the gang pod is a member of, for the rebalancer: the
// group's kind and namespace/name, how many members it needs placed
// together, its members that are bound and not being deleted, and whether
// its disruption mode is All. A member of a PodGroup with a gang policy,
// or whose disruption mode is All, Kubernetes' own or Berth's, is in a
// gang; another basic PodGroup's member, or a pod whose group is unknown,
// is not.
func (s *Scheduler) GangOf(pod *v1.Pod) (rebalance.Gang, bool) {
	ref, ok := framework.GroupRefOf(pod)
	if !ok || s.workloads == nil {
		return rebalance.Gang{}, false
	}
	pg, err := s.workloads.PodGroup(ref)
	if err != nil {
		return rebalance.Gang{}, false
	}
	whole := pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil
	if pg.Spec.SchedulingPolicy.Gang == nil && !whole {
		return rebalance.Gang{}, false
	}
	kind := "podgroup.scheduling.k8s.io/"
	if ref.Berth {
		kind = "podgroup.scheduling.berth.io/"
	}
	return rebalance.Gang{
		Name: kind + ref.Namespace + "/" + ref.Name, MinCount: framework.MinCount(pg),
		Bound: boundOf(s.workloads.Members(ref)), Whole: whole,
	}, true
}

// boundOf keeps the pods bound to a node and not being deleted.
func boundOf(pods []*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}
