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

	"github.com/berth-io/berth/scheduler/rebalance"
)

// GangOf returns the gang pod is a member of, for the rebalancer, from the
// PodGroups the scheduler serves (rebalance.WorkloadGangs).
func (s *Scheduler) GangOf(pod *v1.Pod) (rebalance.Gang, bool) {
	if s.workloads == nil {
		return rebalance.Gang{}, false
	}
	return rebalance.WorkloadGangs{Workloads: s.workloads}.GangOf(pod)
}
