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

package interpodaffinity

import (
	"context"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
)

// EventsToRegister retries a rejected pod when an assigned pod appears,
// changes its labels or goes away in a way that may satisfy the pod's terms,
// when the pod's own labels change, and when a node appears or its labels
// change the topology domains the pod's terms use.
func (pl *InterPodAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete},
			QueueingHintFn: pl.isSchedulableAfterAssignedPodChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodLabel},
			QueueingHintFn: pl.isSchedulableAfterOwnLabelChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel},
			QueueingHintFn: pl.isSchedulableAfterNodeChange,
		},
	}, nil
}

// isSchedulableAfterAssignedPodChange queues the pod when an added pod
// matches all of its affinity terms, an updated pod starts matching all of
// them or stops matching its anti-affinity, or a deleted pod matched its
// anti-affinity or had anti-affinity that the pod matches.
func (pl *InterPodAffinity) isSchedulableAfterAssignedPodChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (after != nil && unplaced(after)) || (before != nil && unplaced(before)) {
		return framework.QueueSkip, nil
	}
	own, err := framework.NewPodInfo(pod)
	if err != nil {
		return framework.Queue, err
	}
	switch {
	case before != nil && after != nil:
		if !matchesAll(own.RequiredAffinityTerms, before) && matchesAll(own.RequiredAffinityTerms, after) {
			logger.V(5).Info("an assigned pod now matches the pod's affinity", "pod", klog.KObj(pod), "assignedPod", klog.KObj(after))
			return framework.Queue, nil
		}
		if matchesAny(own.RequiredAntiAffinityTerms, before) && !matchesAny(own.RequiredAntiAffinityTerms, after) {
			logger.V(5).Info("an assigned pod no longer matches the pod's anti-affinity", "pod", klog.KObj(pod), "assignedPod", klog.KObj(after))
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case after != nil:
		if matchesAll(own.RequiredAffinityTerms, after) {
			logger.V(5).Info("an added assigned pod matches the pod's affinity", "pod", klog.KObj(pod), "assignedPod", klog.KObj(after))
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case before != nil:
		if matchesAny(own.RequiredAntiAffinityTerms, before) {
			logger.V(5).Info("a deleted pod matched the pod's anti-affinity", "pod", klog.KObj(pod), "assignedPod", klog.KObj(before))
			return framework.Queue, nil
		}
		gone, err := framework.NewPodInfo(before)
		if err != nil {
			return framework.Queue, err
		}
		if matchesAny(gone.RequiredAntiAffinityTerms, pod) {
			logger.V(5).Info("a deleted pod had anti-affinity to the pod", "pod", klog.KObj(pod), "assignedPod", klog.KObj(before))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// unplaced reports whether a pod is neither bound nor nominated to a node.
func unplaced(p *v1.Pod) bool {
	return p.Spec.NodeName == "" && p.Status.NominatedNodeName == ""
}

// isSchedulableAfterOwnLabelChange queues the pod when its own labels
// changed: existing pods' anti-affinity may no longer select it.
func (*InterPodAffinity) isSchedulableAfterOwnLabelChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, updated, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil || updated.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("the pod's labels changed", "pod", klog.KObj(pod))
	return framework.Queue, nil
}

// isSchedulableAfterNodeChange queues the pod when a node appears with, or
// gains, or changes the value of, a topology key of its affinity terms; and,
// for anti-affinity, when any node appears or a node loses or changes the
// value of a topology key of its anti-affinity terms.
func (*InterPodAffinity) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	own, err := framework.NewPodInfo(pod)
	if err != nil {
		return framework.Queue, err
	}
	for i := range own.RequiredAffinityTerms {
		key := own.RequiredAffinityTerms[i].TopologyKey
		now, has := after.Labels[key]
		if !has {
			continue
		}
		if before == nil {
			logger.V(5).Info("a node with a topology key of the pod's affinity was added", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
		if was, had := before.Labels[key]; !had || was != now {
			logger.V(5).Info("a node gained or changed a topology key of the pod's affinity", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
	}
	for i := range own.RequiredAntiAffinityTerms {
		if before == nil {
			logger.V(5).Info("a node was added and the pod has anti-affinity", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
		key := own.RequiredAntiAffinityTerms[i].TopologyKey
		was, had := before.Labels[key]
		if !had {
			continue
		}
		if now, has := after.Labels[key]; !has || was != now {
			logger.V(5).Info("a node lost or changed a topology key of the pod's anti-affinity", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
