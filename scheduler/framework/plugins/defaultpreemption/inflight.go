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
	"errors"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// PreEnqueue's reasons while a pod's, or its group's, preemption runs, as upstream's.
const (
	msgPreempting      = "waiting for the preemption for this pod to be finished"
	msgGroupPreempting = "waiting for the preemption for this pod group to be finished"
)

// PreEnqueue keeps a pod out of the active queue while its preemption, or
// its group's, still runs in the background: until the last victim's deletion has been accepted
// (the informer shows it terminating or gone), another cycle would only
// find the node still full.
func (p *DefaultPreemption) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	if p.preemptionRunning(pod.UID) {
		if _, ok := framework.GroupRefOf(pod); ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgGroupPreempting)
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgPreempting)
	}
	return nil
}

func (p *DefaultPreemption) preemptionRunning(uid types.UID) bool {
	last, ok := p.inflight.Get(uid)
	if !ok {
		return false
	}
	if last == nil || p.podLister == nil {
		return true
	}
	victim, err := p.podLister.Pods(last.Namespace).Get(last.Name)
	return err == nil && victim.DeletionTimestamp == nil
}

// EventsToRegister registers the deletion of a bound pod, which may end a
// gated pod's wait; the hint leaves the decision to the plugins that
// rejected the pod, as upstream.
func (p *DefaultPreemption) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	if !p.async {
		return nil, nil
	}
	return []framework.ClusterEventWithHint{{
		Event:          framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete},
		QueueingHintFn: func(klog.Logger, *v1.Pod, any, any) (framework.QueueingHint, error) { return framework.QueueSkip, nil },
	}}, nil
}

// prepareAsync carries out the preemption in the background, as upstream
// does by default: nominations are cleared, all victims but one are evicted
// in parallel, then the last one. PreEnqueue gates the preemptor meanwhile.
// A failure is logged; the preemptor is retried on the next event that may
// help it.
func (p *DefaultPreemption) prepareAsync(ctx context.Context, c *candidate, preemptor *v1.Pod) {
	p.evictInBackground(ctx, c.node, c.victims, podPreemptor(preemptor), []types.UID{preemptor.UID}, func(ctx context.Context) {
		if err := p.clearLowerNominations(ctx, c.node, priorityOf(preemptor)); err != nil {
			klog.FromContext(ctx).Error(err, "Clearing the nominations of lower-priority pods", "node", klog.KRef("", c.node))
		}
	})
}

// evictInBackground evicts the victims not already terminating off the
// cycle, as upstream's asynchronous preemption does: first runs, then all
// victims but one are evicted in parallel, then the last one. PreEnqueue
// gates the pods named by gated until the last victim's deletion is
// accepted; after that a gated pod waits for an event that may help it
// (a bound pod deleted), as upstream's do. A failure is logged.
func (p *DefaultPreemption) evictInBackground(ctx context.Context, node string, victims []*v1.Pod, who preemptor, gated []types.UID, first func(context.Context)) {
	logger := klog.FromContext(ctx)
	pending := make([]*v1.Pod, 0, len(victims))
	for _, v := range victims {
		if v.DeletionTimestamp == nil {
			pending = append(pending, v)
		}
	}
	if len(pending) == 0 {
		return
	}
	for _, uid := range gated {
		p.inflight.Start(uid)
	}
	p.background.Add(1)
	go func() {
		defer p.background.Done()
		defer func() {
			for _, uid := range gated {
				p.inflight.Finish(uid)
			}
		}()
		ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		if first != nil {
			first(ctx)
		}
		var (
			mu   sync.Mutex
			errs []error
		)
		rest, last := pending[:len(pending)-1], pending[len(pending)-1]
		p.parallelizer.Until(ctx, len(rest), func(i int) {
			if err := p.preemptVictim(ctx, node, who, rest[i]); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				cancel()
			}
		}, Name)
		if err := errors.Join(errs...); err != nil {
			logger.Error(err, "Preempting victims in the background", "node", klog.KRef("", node))
			return
		}
		for _, uid := range gated {
			p.inflight.SetLastVictim(uid, types.NamespacedName{Namespace: last.Namespace, Name: last.Name})
		}
		if err := p.preemptVictim(ctx, node, who, last); err != nil {
			logger.Error(err, "Preempting the last victim in the background", "node", klog.KRef("", node))
			return
		}
		logger.V(2).Info("Background preemption finished", "node", klog.KRef("", node), "victims", len(pending))
	}()
}
