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
)

// GangOf returns the gang pod is a member of, for the rebalancer: the
// group's kind and namespace/name, how many members it needs placed
// together and its members that are bound and not being deleted. A member
// of a PodGroup with a gang policy, Kubernetes' own or Berth's, is in a
// gang; a basic PodGroup's member, or a pod whose group is unknown, is not.
func (s *Scheduler) GangOf(pod *v1.Pod) (name string, minCount int, bound []*v1.Pod, ok bool) {
	ref, ok := framework.GroupRefOf(pod)
	if !ok || s.workloads == nil {
		return "", 0, nil, false
	}
	pg, err := s.workloads.PodGroup(ref)
	if err != nil || pg.Spec.SchedulingPolicy.Gang == nil {
		return "", 0, nil, false
	}
	kind := "podgroup.scheduling.k8s.io/"
	if ref.Berth {
		kind = "podgroup.scheduling.berth.io/"
	}
	return kind + ref.Namespace + "/" + ref.Name, framework.MinCount(pg), boundOf(s.workloads.Members(ref)), true
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
