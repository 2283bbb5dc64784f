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

package strategies

import (
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// PodsOf returns the pods bound to ni.
func PodsOf(ni *framework.NodeInfo) []*v1.Pod {
	pods := make([]*v1.Pod, 0, len(ni.Pods))
	for _, pi := range ni.Pods {
		pods = append(pods, pi.Pod)
	}
	return pods
}

// IsTerminal reports whether pod has finished.
func IsTerminal(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

// OwnedByKind reports whether one of pod's owners is of one of kinds.
func OwnedByKind(pod *v1.Pod, kinds []string) bool {
	for _, o := range pod.OwnerReferences {
		if slices.Contains(kinds, o.Kind) {
			return true
		}
	}
	return false
}

// ContainerStatuses returns pod's container statuses, with the init
// containers' first when withInit is set.
func ContainerStatuses(pod *v1.Pod, withInit bool) []v1.ContainerStatus {
	if !withInit {
		return pod.Status.ContainerStatuses
	}
	return append(slices.Clone(pod.Status.InitContainerStatuses), pod.Status.ContainerStatuses...)
}

// qosRank orders QoS classes from the first to evict to the last.
func qosRank(pod *v1.Pod) int {
	switch qosOf(pod) {
	case v1.PodQOSBestEffort:
		return 0
	case v1.PodQOSBurstable:
		return 1
	default:
		return 2
	}
}

// qosOf returns the pod's QoS class, computed when the status lacks it.
func qosOf(pod *v1.Pod) v1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	any, guaranteed := false, true
	for _, c := range pod.Spec.Containers {
		if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
			any = true
		}
		for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			l, hasLimit := c.Resources.Limits[r]
			q, hasReq := c.Resources.Requests[r]
			if !hasLimit || (hasReq && q.Cmp(l) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return v1.PodQOSBestEffort
	case guaranteed:
		return v1.PodQOSGuaranteed
	}
	return v1.PodQOSBurstable
}

func priorityOf(pod *v1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// SortForEviction orders pods as the descheduler evicts them: lower
// priority first, then BestEffort before Burstable before Guaranteed.
func SortForEviction(pods []*v1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		pi, pj := priorityOf(pods[i]), priorityOf(pods[j])
		if pi != pj {
			return pi < pj
		}
		return qosRank(pods[i]) < qosRank(pods[j])
	})
}
