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

// Package nodedeclaredfeatures implements NodeDeclaredFeatures, which keeps
// a pod off nodes that do not declare the node features its spec relies on.
package nodedeclaredfeatures

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndftypes "k8s.io/component-helpers/nodedeclaredfeatures/types"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.NodeDeclaredFeatures

// ErrReason is the filter reason for a node that lacks a required feature.
const ErrReason = "node(s) didn't match Pod's required features"

// TargetVersion is the Kubernetes version whose feature requirements Berth
// infers, that of the kube-scheduler it follows.
const TargetVersion = "1.37.1"

const stateKey framework.StateKey = "PreFilter" + Name

// NodeDeclaredFeatures filters nodes by status.declaredFeatures.
type NodeDeclaredFeatures struct {
	features *ndf.Framework
	target   *version.Version
}

var (
	_ framework.PreFilterPlugin   = &NodeDeclaredFeatures{}
	_ framework.FilterPlugin      = &NodeDeclaredFeatures{}
	_ framework.EnqueueExtensions = &NodeDeclaredFeatures{}
	_ framework.SignPlugin        = &NodeDeclaredFeatures{}
)

// required is the pod's feature requirements, computed once per cycle.
type required struct{ set ndf.FeatureSet }

// Clone returns the state itself: it is never changed after PreFilter.
func (r *required) Clone() framework.StateData { return r }

// New is the plugin's factory; NodeDeclaredFeatures takes no args.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &NodeDeclaredFeatures{features: ndf.DefaultFramework, target: version.MustParse(TargetVersion)}, nil
}

// Name returns the plugin's name.
func (*NodeDeclaredFeatures) Name() string { return Name }

// SignPod signs the pod by the node features it needs, as the plugin
// infers them, in the feature set's string form.
func (pl *NodeDeclaredFeatures) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	set, err := pl.requirements(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{{Key: framework.FeaturesSignKey, Value: set.String()}}, nil
}

// PreFilter infers the features the pod needs and skips pods that need none.
func (pl *NodeDeclaredFeatures) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	set, err := pl.requirements(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if set.IsEmpty() {
		return nil, framework.Skipped()
	}
	state.Write(stateKey, &required{set: set})
	return nil, nil
}

// PreFilterExtensions returns nil: other pods do not change the result.
func (*NodeDeclaredFeatures) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects, unresolvably, a node that does not declare every required feature.
func (pl *NodeDeclaredFeatures) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	data, err := state.Read(stateKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	req, ok := data.(*required)
	if !ok {
		return framework.AsStatus(fmt.Errorf("%s state has type %T", Name, data))
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("node not found"))
	}
	ok, err = req.set.IsSubset(pl.features.TryMap(node.Status.DeclaredFeatures))
	if err != nil {
		return framework.AsStatus(fmt.Errorf("matching declared features of node %s: %w", node.Name, err))
	}
	if !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
	}
	return nil
}

// requirements infers the pod's feature requirements at TargetVersion.
func (pl *NodeDeclaredFeatures) requirements(pod *v1.Pod) (ndf.FeatureSet, error) {
	set, err := pl.features.InferForPodScheduling(&ndftypes.PodInfo{Spec: &pod.Spec}, pl.target)
	if err != nil {
		return ndf.FeatureSet{}, fmt.Errorf("inferring the node features pod %s/%s needs: %w", pod.Namespace, pod.Name, err)
	}
	return set, nil
}

// EventsToRegister retries a rejected pod when a node's declared features
// change or the pod's own requirements do.
func (pl *NodeDeclaredFeatures) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeDeclaredFeature}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterPodUpdate},
	}, nil
}

func (*NodeDeclaredFeatures) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldNode != nil && slices.Equal(oldNode.Status.DeclaredFeatures, newNode.Status.DeclaredFeatures) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("node declares other features", "pod", klog.KObj(pod), "node", klog.KObj(newNode))
	return framework.Queue, nil
}

func (pl *NodeDeclaredFeatures) isSchedulableAfterPodUpdate(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPod, newPod, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldPod == nil || newPod.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	before, err := pl.requirements(oldPod)
	if err != nil {
		return framework.Queue, err
	}
	after, err := pl.requirements(newPod)
	if err != nil {
		return framework.Queue, err
	}
	if before.Equal(after) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("pod needs other node features", "pod", klog.KObj(pod))
	return framework.Queue, nil
}
