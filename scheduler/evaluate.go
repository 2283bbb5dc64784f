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

// Evaluation is what one profile's scheduling cycle finds for a pod on a
// snapshot when every node is filtered (algorithm.Evaluation).
type Evaluation = algorithm.Evaluation

// SyncOnce starts the scheduler's informers, waits until the cache holds
// every node and bound pod, and stops them, so that the cache stays as the
// cluster was at that moment. It is for a scheduler that never schedules
// (berth explain); compile its profiles first, so that the informers their
// plugins ask for are started and synced too.
func (s *Scheduler) SyncOnce(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(ctx)
	if !s.startInformers(runCtx) {
		cancel()
		return errors.New("the scheduler's informers are already running")
	}
	defer func() {
		cancel()
		s.informerFactory.Shutdown()
	}()
	if err := s.waitForInformers(runCtx); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("syncing the informers: %w", ctx.Err())
	}
	return nil
}

// EvaluatePod runs, for each framework, the scheduling cycle's PreFilter,
// Filter, PreScore, Score and NormalizeScore over every node of one
// snapshot of the cache, with the code the scheduling cycle runs, and
// returns what each found. Nothing is assumed, reserved or bound. A pod
// bound to a node is evaluated as if it were pending: it leaves the cache
// first (for good; the scheduler is not expected to run afterwards). It
// must not be called on a scheduler whose scheduling loop runs.
func (s *Scheduler) EvaluatePod(ctx context.Context, pod *v1.Pod, fwks ...*runtime.Framework) ([]*Evaluation, error) {
	if s.loopStarted.Load() {
		return nil, errors.New("cannot evaluate a pod on a scheduler whose scheduling loop runs")
	}
	logger := klog.FromContext(ctx)
	if pod.Spec.NodeName != "" {
		if cached, err := s.cache.GetPod(pod); err == nil {
			if err := s.cache.RemovePod(logger, cached); err != nil {
				return nil, fmt.Errorf("taking pod %s off node %s: %w", framework.PodKey(pod), pod.Spec.NodeName, err)
			}
		}
		pending := pod.DeepCopy()
		pending.Spec.NodeName = ""
		pod = pending
	}
	if err := s.cache.UpdateSnapshot(logger, s.snapshot); err != nil {
		return nil, fmt.Errorf("updating the snapshot: %w", err)
	}
	all, err := s.snapshot.NodeInfos().List()
	if err != nil {
		return nil, fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	names := make([]string, len(all))
	for i, ni := range all {
		names[i] = ni.Name()
	}
	out := make([]*Evaluation, 0, len(fwks))
	for _, fwk := range fwks {
		e, err := algorithm.Evaluate(ctx, fwk, s.snapshot, pod)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", fwk.ProfileName(), err)
		}
		e.Nodes = names
		out = append(out, e)
	}
	return out, nil
}
