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
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
)

// GroupEvaluation is a dry run of the cycle of the PodGroup a pod belongs
// to, placement by placement, for berth explain (algorithm.GroupEvaluation).
type GroupEvaluation = algorithm.GroupEvaluation

// PlacementEvaluation is one placement's try in a GroupEvaluation.
type PlacementEvaluation = algorithm.PlacementEvaluation

// EvaluateGroup runs, without placing anything, the cycle fwk would run for
// the PodGroup pod belongs to (Kubernetes' own or Berth's): every placement is tried
// with the group's pending members, as the scheduling loop would, on the
// snapshot alone. It returns nil for a pod in no such group. Like
// EvaluatePod it needs synced informers and a scheduling loop that is not
// running.
func (s *Scheduler) EvaluateGroup(ctx context.Context, pod *v1.Pod, fwk *runtime.Framework) (*GroupEvaluation, error) {
	if s.loopStarted.Load() {
		return nil, errors.New("cannot evaluate a group on a scheduler whose scheduling loop runs")
	}
	ref, ok := framework.GroupRefOf(pod)
	if !ok || s.workloads == nil || !s.workloads.Serves(ref) {
		return nil, nil
	}
	out := &GroupEvaluation{Group: ref.String()}
	pg, err := s.workloads.PodGroup(ref)
	if err != nil {
		out.Waiting = fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", ref.Name)
		return out, nil
	}
	if h, ok := framework.HierarchyOf(s.workloads); ok && !ref.Berth && pg.Spec.ParentCompositePodGroupName != nil {
		if root, ok := h.RootOf(framework.GroupKey{Kind: framework.PodGroupKind, Namespace: pg.Namespace, Name: pg.Name}); ok {
			out.Root = root.Namespace + "/" + root.Name
		}
	}
	out.Gang = pg.Spec.SchedulingPolicy.Gang != nil
	out.MinCount = framework.MinCount(pg)
	out.TopologyKey, _ = framework.TopologyKeyOf(pg)
	members := s.workloads.Members(ref)
	out.Members = len(members)
	var pending []*framework.QueuedPodInfo
	for _, m := range members {
		if m.Spec.NodeName != "" || s.workloads.IsPlaced(m) {
			out.Placed++
			continue
		}
		if m.DeletionTimestamp != nil || len(m.Spec.SchedulingGates) > 0 {
			continue
		}
		pi, err := framework.NewPodInfo(m)
		if err != nil {
			return nil, fmt.Errorf("reading member %s: %w", framework.PodKey(m), err)
		}
		// Without the queue, creation stands for the arrival sortMembers reads.
		pending = append(pending, &framework.QueuedPodInfo{PodInfo: pi, Timestamp: m.CreationTimestamp.Time})
	}
	if out.Gang && len(members) < out.MinCount {
		out.Waiting = msgAwaitingMinCount
		return out, nil
	}
	algorithm.SortMembers(pending)
	if len(pending) == 0 {
		return out, nil
	}
	if err := s.cache.UpdateSnapshot(klog.FromContext(ctx), s.snapshot); err != nil {
		out.Status = algorithm.Errorf("updating the snapshot: %v", err).Message()
		return out, nil
	}

	// The group's members are tried as the loop's cycle tries them: one
	// PodGroup, whatever CompositePodGroup is above it.
	scheduled := len(framework.ScheduledMembers(s.workloads, ref))
	tries, status := algorithm.TryEachPlacement(ctx, s.env(fwk, false), framework.PodGroupNode(pg), pending, scheduled)
	out.Placements, out.Status = algorithm.EvaluatePlacements(tries, status)
	return out, nil
}

// msgAwaitingMinCount is why a gang's members wait before any cycle while
// fewer than minCount of its pods exist, in kube-scheduler's words.
const msgAwaitingMinCount = "waiting for minCount pods from a gang to appear in scheduling queue"
