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

// Package nodename implements NodeName, which confines a pod that sets
// spec.nodeName to that node.
package nodename

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.NodeName

// ErrReason is the filter reason for a node other than the requested one.
const ErrReason = "node(s) didn't match the requested node name"

// NodeName filters out every node but the one a pod names in spec.nodeName.
type NodeName struct{}

var (
	_ framework.PreFilterPlugin   = &NodeName{}
	_ framework.FilterPlugin      = &NodeName{}
	_ framework.EnqueueExtensions = &NodeName{}
	_ framework.SignPlugin        = &NodeName{}
)

var errNoNode = errors.New("node not found")

// New is the plugin's factory; NodeName takes no args.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &NodeName{}, nil
}

// Name returns the plugin's name.
func (*NodeName) Name() string { return Name }

// SignPod signs the pod by spec.nodeName, the one node it may be bound to
// when set.
func (*NodeName) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.NodeNameSignKey, Value: pod.Spec.NodeName}}, nil
}

// PreFilter narrows the candidate nodes to spec.nodeName when it is set,
// and otherwise skips Filter, which would pass every node.
func (*NodeName) PreFilter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if pod.Spec.NodeName == "" {
		return nil, framework.Skipped()
	}
	return &framework.PreFilterResult{NodeNames: sets.New(pod.Spec.NodeName)}, nil
}

// PreFilterExtensions returns nil: the plugin keeps no per-cycle state.
func (*NodeName) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects, unresolvably, a node other than the requested one.
func (*NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errNoNode)
	}
	if !Fits(pod, node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
	}
	return nil
}

// Fits reports whether the pod may run on the node as far as spec.nodeName goes.
func Fits(pod *v1.Pod, node *v1.Node) bool {
	return pod.Spec.NodeName == "" || pod.Spec.NodeName == node.Name
}

// EventsToRegister retries a rejected pod when its named node is added.
func (pl *NodeName) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{
		Event:          framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add},
		QueueingHintFn: pl.isSchedulableAfterNodeAdd,
	}}, nil
}

func (*NodeName) isSchedulableAfterNodeAdd(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, added, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if added == nil || !Fits(pod, added) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("the requested node was added", "pod", klog.KObj(pod), "node", klog.KObj(added))
	return framework.Queue, nil
}
