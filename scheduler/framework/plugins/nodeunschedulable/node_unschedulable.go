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

// Package nodeunschedulable implements NodeUnschedulable, which keeps pods
// off cordoned nodes unless they tolerate the unschedulable taint.
package nodeunschedulable

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.NodeUnschedulable

// Filter reasons, as upstream.
const (
	// ErrReasonUnknownCondition is kept for compatibility with upstream's reason set.
	ErrReasonUnknownCondition = "node(s) had unknown conditions"
	// ErrReasonUnschedulable is the reason for a cordoned node.
	ErrReasonUnschedulable = "node(s) were unschedulable"
)

// unschedulableTaint is the taint a cordoned node is treated as carrying.
var unschedulableTaint = v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}

var errNoNode = errors.New("node not found")

// NodeUnschedulable rejects nodes with spec.unschedulable set.
type NodeUnschedulable struct{}

var (
	_ framework.FilterPlugin      = &NodeUnschedulable{}
	_ framework.EnqueueExtensions = &NodeUnschedulable{}
	_ framework.SignPlugin        = &NodeUnschedulable{}
)

// New is the plugin's factory; NodeUnschedulable takes no args.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &NodeUnschedulable{}, nil
}

// Name returns the plugin's name.
func (*NodeUnschedulable) Name() string { return Name }

// SignPod signs the pod by its tolerations, one of which may let it onto
// unschedulable nodes.
func (*NodeUnschedulable) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.TolerationsSignKey, Value: framework.TolerationsSignature(pod)}}, nil
}

// Filter rejects, unresolvably, a cordoned node the pod does not tolerate.
func (*NodeUnschedulable) Filter(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if nodeInfo.Node() == nil {
		return framework.AsStatus(errNoNode)
	}
	// The NodeInfo's copy of spec.unschedulable shares its cache line with
	// what the other Filter plugins read; the Node's lies far from it.
	if !nodeInfo.Unschedulable() || toleratesUnschedulable(klog.FromContext(ctx), pod) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
}

func toleratesUnschedulable(logger logr.Logger, pod *v1.Pod) bool {
	return corev1helpers.TolerationsTolerateTaint(logger, pod.Spec.Tolerations, &unschedulableTaint, false)
}

// EventsToRegister retries a rejected pod when a node becomes schedulable
// (an uncordon is reported as a taint update) or the pod gains a toleration.
func (pl *NodeUnschedulable) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint},
			QueueingHintFn: pl.isSchedulableAfterNodeChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodToleration},
			QueueingHintFn: pl.isSchedulableAfterTolerationChange,
		},
	}, nil
}

func (*NodeUnschedulable) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil || after.Spec.Unschedulable {
		return framework.QueueSkip, nil
	}
	if before == nil || before.Spec.Unschedulable {
		logger.V(5).Info("node became schedulable", "pod", klog.KObj(pod), "node", klog.KObj(after))
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func (*NodeUnschedulable) isSchedulableAfterTolerationChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, updated, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil || updated.UID != pod.UID || !toleratesUnschedulable(logger, updated) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("pod now tolerates unschedulable nodes", "pod", klog.KObj(updated))
	return framework.Queue, nil
}
