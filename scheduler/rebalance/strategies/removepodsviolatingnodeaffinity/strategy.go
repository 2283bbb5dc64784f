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

// Package removepodsviolatingnodeaffinity evicts pods whose node affinity
// their node no longer satisfies, as the descheduler's plugin of the same name.
package removepodsviolatingnodeaffinity

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemovePodsViolatingNodeAffinity"

// The affinity types the strategy enforces.
const (
	// Required enforces nodeSelector and requiredDuringSchedulingIgnoredDuringExecution.
	Required = "requiredDuringSchedulingIgnoredDuringExecution"
	// Preferred moves pods to a node that better satisfies preferredDuringSchedulingIgnoredDuringExecution.
	Preferred = "preferredDuringSchedulingIgnoredDuringExecution"
)

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
	// NodeAffinityType lists the affinity types to enforce.
	NodeAffinityType []string `json:"nodeAffinityType"`
}

// Default leaves the arguments as written: nodeAffinityType has no default.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.PodScope.Validate(path)
	types := path.Child("nodeAffinityType")
	if len(a.NodeAffinityType) == 0 {
		errs = append(errs, field.Required(types, "must name at least one type"))
	}
	for i, t := range a.NodeAffinityType {
		if t != Required && t != Preferred {
			errs = append(errs, field.Invalid(types.Index(i), t, fmt.Sprintf("is not %s or %s", Required, Preferred)))
		}
	}
	return errs
}

type strategy struct{ args Args }

// New builds the strategy from its JSON arguments.
func New(raw []byte) (strategies.Strategy, error) {
	a, err := args.Load[Args]("strategy "+string(Name), raw)
	if err != nil {
		return nil, err
	}
	return &strategy{args: *a}, nil
}

func (s *strategy) Name() v1alpha1.StrategyName { return Name }

func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	required := slices.Contains(s.args.NodeAffinityType, Required)
	preferred := slices.Contains(s.args.NodeAffinityType, Preferred)
	nodes := h.Nodes()
	for _, ni := range nodes {
		node := ni.Node()
		for _, pod := range strategies.PodsOf(ni) {
			if !s.args.Matches(pod) || !h.Evictable(pod) {
				continue
			}
			if required && hasRequired(pod) && !strategies.MatchesNodeSelection(pod, node) && fitsOther(pod, node, nodes) {
				h.Evict(ctx, pod, "node no longer satisfies the pod's required node affinity")
				continue
			}
			if preferred {
				if here, best := preferenceScores(pod, node, nodes); best > here {
					h.Evict(ctx, pod, fmt.Sprintf("another node scores %d on the pod's preferred node affinity, this one %d", best, here))
				}
			}
		}
	}
	return nil
}

func hasRequired(pod *v1.Pod) bool {
	if len(pod.Spec.NodeSelector) > 0 {
		return true
	}
	a := pod.Spec.Affinity
	return a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

// fitsOther reports whether a node other than current could run pod.
func fitsOther(pod *v1.Pod, current *v1.Node, nodes []*framework.NodeInfo) bool {
	for _, ni := range nodes {
		if n := ni.Node(); n.Name != current.Name && strategies.CouldRunOn(pod, n) {
			return true
		}
	}
	return false
}

// preferenceScores returns pod's preferred-affinity score on current and
// the best score among the other nodes that could run it.
func preferenceScores(pod *v1.Pod, current *v1.Node, nodes []*framework.NodeInfo) (here, best int64) {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return 0, 0
	}
	terms, err := nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	if err != nil {
		return 0, 0
	}
	here = terms.Score(current)
	for _, ni := range nodes {
		if n := ni.Node(); n.Name != current.Name && strategies.CouldRunOn(pod, n) {
			best = max(best, terms.Score(n))
		}
	}
	return here, best
}
