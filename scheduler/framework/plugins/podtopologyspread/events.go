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

package podtopologyspread

import (
	"context"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
)

// EventsToRegister retries a pod the plugin rejected when an assigned pod
// its hard constraints select comes, goes or changes labels, when its own
// labels or tolerations change, and when a node with its topology keys
// comes, goes or changes labels or taints.
func (pl *PodTopologySpread) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete},
			QueueingHintFn: pl.isSchedulableAfterAssignedPodChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodLabel | framework.UpdatePodToleration},
			QueueingHintFn: pl.isSchedulableAfterOwnPodChange,
		},
		{
			Event: framework.ClusterEvent{Resource: framework.Node,
				ActionType: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint},
			QueueingHintFn: pl.isSchedulableAfterNodeChange,
		},
	}, nil
}

// takesPart reports whether other counts for the spread of pod: it is on a
// node, or nominated to one, in the pod's namespace.
func takesPart(other, pod *v1.Pod) bool {
	placed := other.Spec.NodeName != "" || other.Status.NominatedNodeName != ""
	return placed && other.Namespace == pod.Namespace
}

// isSchedulableAfterAssignedPodChange queues the pod when an added or
// deleted pod is selected by one of its hard constraints, or an updated
// pod's labels changed whether a constraint selects it.
func (pl *PodTopologySpread) isSchedulableAfterAssignedPodChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (after != nil && !takesPart(after, pod)) || (before != nil && !takesPart(before, pod)) {
		return framework.QueueSkip, nil
	}
	cs, err := pl.constraintsFor(pod, v1.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	switch {
	case before != nil && after != nil:
		return labelChangeHint(logger, pod, before, after, cs), nil
	case after != nil:
		if anySelects(cs, after.Labels) {
			logger.V(5).Info("a selected pod was assigned", "pod", klog.KObj(pod), "assignedPod", klog.KObj(after))
			return framework.Queue, nil
		}
	case before != nil:
		if anySelects(cs, before.Labels) {
			logger.V(5).Info("a selected pod was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(before))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterOwnPodChange queues the pod when it got new tolerations
// and a hard constraint honours taints, or its labels changed whether a hard
// constraint selects it.
func (pl *PodTopologySpread) isSchedulableAfterOwnPodChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if before == nil || after == nil || after.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	cs, err := pl.constraintsFor(pod, v1.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	if !equality.Semantic.DeepEqual(before.Spec.Tolerations, after.Spec.Tolerations) {
		for i := range cs {
			if cs[i].honorTaints {
				logger.V(5).Info("the pod got new tolerations and a constraint honours taints", "pod", klog.KObj(after))
				return framework.Queue, nil
			}
		}
	}
	return labelChangeHint(logger, pod, before, after, cs), nil
}

// labelChangeHint queues when the update changed whether some constraint
// selects the updated pod.
func labelChangeHint(logger logr.Logger, pod, before, after *v1.Pod, cs []constraint) framework.QueueingHint {
	if labels.Equals(before.Labels, after.Labels) {
		return framework.QueueSkip
	}
	for i := range cs {
		if cs[i].selector.Matches(labels.Set(before.Labels)) != cs[i].selector.Matches(labels.Set(after.Labels)) {
			logger.V(5).Info("a label update changed whether a constraint selects the pod",
				"pod", klog.KObj(pod), "updatedPod", klog.KObj(after))
			return framework.Queue
		}
	}
	return framework.QueueSkip
}

// isSchedulableAfterNodeChange queues the pod when a node with all its
// topology keys is added or deleted, when an update gives or takes away one
// of those keys, and when a node with all keys changes a key's value or its
// taints.
func (pl *PodTopologySpread) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	cs, err := pl.constraintsFor(pod, v1.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	hadKeys := before != nil && hasAllTopologyKeys(before.Labels, cs)
	hasKeys := after != nil && hasAllTopologyKeys(after.Labels, cs)
	switch {
	case before != nil && after != nil:
		if hadKeys != hasKeys {
			logger.V(5).Info("a node gained or lost topology keys", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
		if hasKeys && (topologyValuesChanged(before.Labels, after.Labels, cs) ||
			!equality.Semantic.DeepEqual(before.Spec.Taints, after.Spec.Taints)) {
			logger.V(5).Info("a node changed its domains or taints", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case after != nil:
		if hasKeys {
			logger.V(5).Info("a node with the topology keys was added", "pod", klog.KObj(pod), "node", klog.KObj(after))
			return framework.Queue, nil
		}
	case before != nil:
		if hadKeys {
			logger.V(5).Info("a node with the topology keys was deleted", "pod", klog.KObj(pod), "node", klog.KObj(before))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// topologyValuesChanged reports whether any constraint's topology key has a
// different value after the update.
func topologyValuesChanged(before, after map[string]string, cs []constraint) bool {
	for i := range cs {
		if before[cs[i].topologyKey] != after[cs[i].topologyKey] {
			return true
		}
	}
	return false
}
