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

// Package tainttoleration implements TaintToleration, which keeps pods off
// nodes whose NoSchedule and NoExecute taints they do not tolerate and
// prefers nodes with fewer untolerated PreferNoSchedule taints.
package tainttoleration

import (
	"context"
	"fmt"

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
const Name = names.TaintToleration

// ErrReasonUntolerated is the Filter reason for a node with a taint the pod
// does not tolerate, worded as upstream v1.37 words it.
const ErrReasonUntolerated = "node(s) had untolerated taint(s)"

const preScoreKey framework.StateKey = "PreScore" + Name

// comparisonOperators mirrors upstream's TaintTolerationComparisonOperators
// feature gate, which is alpha and off by default in v1.37.
const comparisonOperators = false

// TaintToleration filters nodes by their hard taints and scores them by their
// soft (PreferNoSchedule) taints.
type TaintToleration struct{}

var (
	_ framework.FilterPlugin      = &TaintToleration{}
	_ framework.PreScorePlugin    = &TaintToleration{}
	_ framework.CycleScorePlugin  = &TaintToleration{}
	_ framework.ScoreExtensions   = &TaintToleration{}
	_ framework.EnqueueExtensions = &TaintToleration{}
	_ framework.SignPlugin        = &TaintToleration{}
)

// New is the plugin's factory; TaintToleration takes no args.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &TaintToleration{}, nil
}

// Name returns the plugin's name.
func (*TaintToleration) Name() string { return Name }

// SignPod signs the pod by its tolerations, whatever their order: they are
// all of the pod the plugin matches against node taints.
func (*TaintToleration) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.TolerationsSignKey, Value: framework.TolerationsSignature(pod)}}, nil
}

// isHardTaint reports whether a taint keeps intolerant pods off the node.
func isHardTaint(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// firstUntolerated returns the index of the first hard taint the tolerations
// do not tolerate, or -1. It does not allocate.
func firstUntolerated(logger logr.Logger, taints []v1.Taint, tolerations []v1.Toleration) int {
	for i := range taints {
		if isHardTaint(&taints[i]) && !corev1helpers.TolerationsTolerateTaint(logger, tolerations, &taints[i], comparisonOperators) {
			return i
		}
	}
	return -1
}

// Filter rejects, unresolvably, a node with a NoSchedule or NoExecute taint
// the pod does not tolerate.
func (*TaintToleration) Filter(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if nodeInfo.Node() == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	// The NodeInfo's copy of the taints is read rather than the Node's,
	// which lies cache lines away from what the other plugins read.
	taints := nodeInfo.Taints()
	if len(taints) == 0 {
		return nil
	}
	logger := klog.FromContext(ctx)
	i := firstUntolerated(logger, taints, pod.Spec.Tolerations)
	if i < 0 {
		return nil
	}
	if v := logger.V(4); v.Enabled() {
		v.Info("node has an untolerated taint", "pod", klog.KObj(pod), "node", klog.KObj(nodeInfo.Node()), "taint", taints[i].ToString())
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUntolerated)
}

// scoreState holds the pod's tolerations that can tolerate a
// PreferNoSchedule taint: those with that effect or with no effect.
type scoreState struct {
	tolerations []v1.Toleration
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *scoreState) Clone() framework.StateData { return s }

func softTolerations(tolerations []v1.Toleration) []v1.Toleration {
	var out []v1.Toleration
	for i := range tolerations {
		if e := tolerations[i].Effect; e == "" || e == v1.TaintEffectPreferNoSchedule {
			out = append(out, tolerations[i])
		}
	}
	return out
}

// PreScore keeps the pod's tolerations that matter for scoring.
func (*TaintToleration) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreKey, &scoreState{tolerations: softTolerations(pod.Spec.Tolerations)})
	return nil
}

// Score counts the node's PreferNoSchedule taints the pod does not tolerate;
// NormalizeScore turns fewer into better.
func (*TaintToleration) Score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, status := readScoreState(state)
	if !status.IsSuccess() {
		return 0, status
	}
	return scoreNode(ctx, pod, s, nodeInfo)
}

// NodeScorer scores like Score with the pod's tolerations read once.
func (*TaintToleration) NodeScorer(ctx context.Context, state *framework.CycleState, pod *v1.Pod) (framework.NodeScorer, *framework.Status) {
	s, status := readScoreState(state)
	if !status.IsSuccess() {
		return nil, status
	}
	return func(nodeInfo *framework.NodeInfo) (int64, *framework.Status) { return scoreNode(ctx, pod, s, nodeInfo) }, nil
}

// readScoreState returns what PreScore stored, or an Error status.
func readScoreState(state *framework.CycleState) (*scoreState, *framework.Status) {
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	return s, nil
}

// scoreNode is one node's raw score: its PreferNoSchedule taints the pod
// does not tolerate.
func scoreNode(ctx context.Context, pod *v1.Pod, s *scoreState, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	if nodeInfo.Node() == nil {
		return 0, framework.AsStatus(fmt.Errorf("scoring pod %s: node not found", framework.PodKey(pod)))
	}
	return intolerableTaints(ctx, s, nodeInfo), nil
}

// intolerableTaints counts the node's PreferNoSchedule taints that the
// tolerations in s do not tolerate.
func intolerableTaints(ctx context.Context, s *scoreState, nodeInfo *framework.NodeInfo) int64 {
	taints := nodeInfo.Taints()
	if len(taints) == 0 {
		return 0
	}
	logger := klog.FromContext(ctx)
	var count int64
	for i := range taints {
		if taints[i].Effect == v1.TaintEffectPreferNoSchedule &&
			!corev1helpers.TolerationsTolerateTaint(logger, s.tolerations, &taints[i], comparisonOperators) {
			count++
		}
	}
	return count
}

// ScoreExtensions returns the plugin itself, which normalizes scores.
func (pl *TaintToleration) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the counts onto [0, MaxNodeScore], reversed: the node
// with the most untolerated soft taints scores 0, nodes with none score
// MaxNodeScore.
func (*TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	framework.NormalizeScores(scores, true)
	return nil
}

// EventsToRegister retries a rejected pod when a node is added or its taints
// change so that the pod tolerates it, or when the pod's tolerations change.
func (pl *TaintToleration) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
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

// isSchedulableAfterNodeChange queues the pod when the node goes from having
// an untolerated hard taint (or not existing) to having none.
func (*TaintToleration) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil || firstUntolerated(logger, after.Spec.Taints, pod.Spec.Tolerations) >= 0 {
		return framework.QueueSkip, nil
	}
	if before != nil && firstUntolerated(logger, before.Spec.Taints, pod.Spec.Tolerations) < 0 {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("node now has only taints the pod tolerates", "pod", klog.KObj(pod), "node", klog.KObj(after))
	return framework.Queue, nil
}

// isSchedulableAfterTolerationChange queues the pod when its own tolerations
// changed; the update can only add tolerations, which may help.
func (*TaintToleration) isSchedulableAfterTolerationChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, updated, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil || updated.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("pod's tolerations changed", "pod", klog.KObj(updated))
	return framework.Queue, nil
}
