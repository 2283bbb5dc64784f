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
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/apiwrite"
)

// noProfileMessage is the PodScheduled message of a pod parked because its
// profile was removed.
func noProfileMessage(schedulerName string) string {
	return fmt.Sprintf("no SchedulingProfile serves schedulerName %q", schedulerName)
}

// reportNoProfile tells each pod, parked when the profile serving
// schedulerName was removed, why it waits: PodScheduled=False with reason
// Unschedulable. Pods already saying so are not patched again, and pods a
// new profile took from the parked set meanwhile are left alone.
func (s *Scheduler) reportNoProfile(ctx context.Context, schedulerName string, pods []*v1.Pod) {
	msg := noProfileMessage(schedulerName)
	for _, pod := range pods {
		if !s.parked.Has(pod) {
			continue
		}
		s.statusPatcher.SendNotScheduled(ctx, pod, apiwrite.NotScheduled{Reason: v1.PodReasonUnschedulable, Message: msg}, s.clock.Now())
	}
}
