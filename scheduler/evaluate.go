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

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// Evaluation is what one profile's scheduling cycle finds for a pod on a
// snapshot when every node is filtered: each node's Filter verdict and, for
// the feasible nodes, the scores. berth explain prints it.
type Evaluation struct {
	// Framework is the profile evaluated.
	Framework *runtime.Framework
	// Nodes lists the snapshot's node names, in the snapshot's order.
	Nodes []string
	// Feasible lists the nodes that passed PreFilter, Filter and the
	// extenders' filters, in the snapshot's order.
	Feasible []string
	// Diagnosis holds the status of every other node (a rejected node's
	// names the plugin) and the PreFilter message if PreFilter rejected the pod.
	Diagnosis framework.Diagnosis
	// Scores are the feasible nodes' weighted scores per plugin and their
	// totals, in the order of Feasible.
	Scores []framework.NodePluginScores
	// NominatedNodePasses reports that the pod has a nominated node that
	// passes Filter: the scheduler then takes that node without scoring.
	NominatedNodePasses bool
}

// Unschedulable returns the scheduler's message for a pod no node fits
// ("0/N nodes are available: …"), or "" when some node fits.
func (e *Evaluation) Unschedulable(pod *v1.Pod) string {
	if len(e.Feasible) > 0 {
		return ""
	}
	return (&framework.FitError{Pod: pod, NumAllNodes: len(e.Nodes), Diagnosis: e.Diagnosis}).Error()
}

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
		e, err := evaluate(ctx, fwk, s.snapshot, pod)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", fwk.ProfileName(), err)
		}
		e.Nodes = names
		out = append(out, e)
	}
	return out, nil
}

// evaluate runs one profile over every node of the snapshot.
func evaluate(ctx context.Context, fwk *runtime.Framework, snap *schedcache.Snapshot, pod *v1.Pod) (*Evaluation, error) {
	state := framework.NewCycleState()
	feasible, diagnosis, err := algorithm.FindFeasibleNodes(ctx, fwk, snap, state, pod, nil)
	if err != nil {
		return nil, err
	}
	e := &Evaluation{Framework: fwk, Diagnosis: diagnosis, Feasible: make([]string, len(feasible))}
	for i, ni := range feasible {
		e.Feasible[i] = ni.Name()
		if ni.Name() == pod.Status.NominatedNodeName {
			e.NominatedNodePasses = true
		}
	}
	if len(feasible) == 0 {
		return e, nil
	}
	// The scheduler does not score a single feasible node; its scores are
	// computed here all the same, for the reader.
	if e.Scores, err = algorithm.PrioritizeNodes(ctx, fwk, state, pod, feasible); err != nil {
		return nil, err
	}
	return e, nil
}
