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

// Package nodeaffinity implements NodeAffinity, which keeps pods on nodes
// that match their nodeSelector and required node affinity (and the
// scheduler-enforced added affinity), and prefers nodes matching their
// preferred node affinity terms.
package nodeaffinity

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.NodeAffinity

// Filter and PreFilter reasons, as upstream.
const (
	// ErrReasonPod is given when the node does not match the pod's nodeSelector or required affinity.
	ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonEnforced is given when the node does not match the args' added affinity.
	ErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ErrReasonConflict is given when the pod's metadata.name terms can match no node.
	ErrReasonConflict = "pod affinity terms conflict"
)

const (
	preFilterKey framework.StateKey = "PreFilter" + Name
	preScoreKey  framework.StateKey = "PreScore" + Name
)

// NodeAffinity filters and scores nodes by node selectors and node affinity.
type NodeAffinity struct {
	addedRequired  *nodeSelector  // nil without added required affinity
	addedPreferred preferredTerms // empty without added preferred terms
}

var (
	_ framework.PreFilterPlugin   = &NodeAffinity{}
	_ framework.FilterPlugin      = &NodeAffinity{}
	_ framework.PreScorePlugin    = &NodeAffinity{}
	_ framework.ScorePlugin       = &NodeAffinity{}
	_ framework.ScoreExtensions   = &NodeAffinity{}
	_ framework.EnqueueExtensions = &NodeAffinity{}
	_ framework.SignPlugin        = &NodeAffinity{}
)

// New is the plugin's factory: it loads NodeAffinityArgs with args.Load
// and builds the plugin from them.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[NodeAffinityArgs]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(a), nil
}

// NewWithArgs builds the plugin from args that args.Load returned.
func NewWithArgs(args *NodeAffinityArgs) *NodeAffinity {
	pl := &NodeAffinity{}
	if a := args.AddedAffinity; a != nil {
		if ns := a.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
			pl.addedRequired, _ = parseNodeSelector(ns, nil)
		}
		pl.addedPreferred, _ = parsePreferredTerms(a.PreferredDuringSchedulingIgnoredDuringExecution, nil)
	}
	return pl
}

// Name returns the plugin's name.
func (*NodeAffinity) Name() string { return Name }

// SignPod signs the pod by its node affinity, terms and values in a
// canonical order, and its nodeSelector. The args' added affinity is left
// out: it is the same for every pod of the profile.
func (*NodeAffinity) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	affinity, err := framework.NodeAffinitySignature(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{
		{Key: framework.NodeAffinitySignKey, Value: affinity},
		{Key: framework.NodeSelectorSignKey, Value: pod.Spec.NodeSelector},
	}, nil
}

// Clone returns the state itself: it is never changed after PreFilter.
func (r *requiredAffinity) Clone() framework.StateData { return r }

func requiredNodeSelector(pod *v1.Pod) *v1.NodeSelector {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// PreFilter parses the pod's hard node constraints once. It skips Filter for
// a pod without any, and narrows the nodes to those named by metadata.name
// matchFields when every required term names nodes.
func (pl *NodeAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	required := requiredNodeSelector(pod)
	if required == nil && pl.addedRequired == nil && pod.Spec.NodeSelector == nil {
		return nil, framework.Skipped()
	}
	state.Write(preFilterKey, newRequiredAffinity(pod))
	if required == nil || len(required.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	named, ok := namedNodes(required.NodeSelectorTerms)
	switch {
	case !ok:
		return nil, nil
	case len(named) == 0:
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	}
	return &framework.PreFilterResult{NodeNames: named}, nil
}

// namedNodes returns the union over the terms of the nodes each term pins by
// metadata.name In requirements (intersected within a term). ok is false when
// some term pins no names, so any node may match.
func namedNodes(terms []v1.NodeSelectorTerm) (names sets.Set[string], ok bool) {
	names = sets.New[string]()
	for i := range terms {
		var inTerm sets.Set[string]
		for _, r := range terms[i].MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != v1.NodeSelectorOpIn {
				continue
			}
			if inTerm == nil {
				inTerm = sets.New(r.Values...)
			} else {
				inTerm = inTerm.Intersection(sets.New(r.Values...))
			}
		}
		if inTerm == nil {
			return nil, false
		}
		names = names.Union(inTerm)
	}
	return names, true
}

// PreFilterExtensions returns nil: the state depends on the pod alone.
func (*NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects, unresolvably, a node that misses the added affinity or the
// pod's nodeSelector and required node affinity.
func (pl *NodeAffinity) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	if pl.addedRequired != nil && !pl.addedRequired.matches(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonEnforced)
	}
	required, err := framework.ReadState[*requiredAffinity](state, preFilterKey)
	if err != nil {
		// PreFilter is disabled in this profile: parse here.
		required = newRequiredAffinity(pod)
	}
	if !required.matches(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	}
	return nil
}

// scoreState holds the pod's parsed preferred terms.
type scoreState struct {
	preferred preferredTerms
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *scoreState) Clone() framework.StateData { return s }

func podPreferredTerms(pod *v1.Pod) (preferredTerms, error) {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return nil, nil
	}
	terms, errs := parsePreferredTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, nil)
	if len(errs) > 0 {
		return nil, fmt.Errorf("pod %s: preferred node affinity: %w", framework.PodKey(pod), utilerrors.NewAggregate(errs))
	}
	return terms, nil
}

// PreScore parses the pod's preferred terms once; with none, and no added
// preferred terms, Score is skipped.
func (pl *NodeAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	preferred, err := podPreferredTerms(pod)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(preferred) == 0 && len(pl.addedPreferred) == 0 {
		return framework.Skipped()
	}
	state.Write(preScoreKey, &scoreState{preferred: preferred})
	return nil
}

// Score sums the weights of the pod's and the added preferred terms the
// node matches.
func (pl *NodeAffinity) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, framework.AsStatus(fmt.Errorf("scoring pod %s: node not found", framework.PodKey(pod)))
	}
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		// PreScore is disabled in this profile: parse here.
		preferred, err := podPreferredTerms(pod)
		if err != nil {
			return 0, framework.AsStatus(err)
		}
		s = &scoreState{preferred: preferred}
	}
	return pl.addedPreferred.score(node) + s.preferred.score(node), nil
}

// ScoreExtensions returns the plugin itself, which normalizes scores.
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the sums so the best node scores MaxNodeScore; when
// no node matches any term, every score stays 0.
func (*NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	framework.NormalizeScores(scores, false)
	return nil
}

// EventsToRegister retries a rejected pod when a node is added or its labels
// change so that it now matches the pod.
func (pl *NodeAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{
		Event:          framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel},
		QueueingHintFn: pl.isSchedulableAfterNodeChange,
	}}, nil
}

// isSchedulableAfterNodeChange queues the pod when a new node matches its
// constraints, or an updated node went from not matching to matching.
func (pl *NodeAffinity) isSchedulableAfterNodeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	if pl.addedRequired != nil && !pl.addedRequired.matches(after) {
		return framework.QueueSkip, nil
	}
	required := newRequiredAffinity(pod)
	if !required.matches(after) {
		return framework.QueueSkip, nil
	}
	if before != nil && required.matches(before) && (pl.addedRequired == nil || pl.addedRequired.matches(before)) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("node now matches the pod's node affinity", "pod", klog.KObj(pod), "node", klog.KObj(after))
	return framework.Queue, nil
}
