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

// Package removeduplicates spreads the pods of one owner that share a node,
// as the descheduler's RemoveDuplicates plugin: a node keeps at most the
// owner's balanced share of its pods over the nodes that could run them.
package removeduplicates

import (
	"context"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemoveDuplicates"

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
	// ExcludeOwnerKinds leaves the pods of owners of these kinds alone.
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
}

// Default leaves the arguments as written: none has a default.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.PodScope.Validate(path)
	for i, k := range a.ExcludeOwnerKinds {
		if k == "" {
			errs = append(errs, field.Invalid(path.Child("excludeOwnerKinds").Index(i), k, "is empty"))
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

// group is the pods of one owner with the same images.
type group struct {
	total int
	// sample is a pod of the group, to find the nodes that could run it.
	sample *v1.Pod
	// extra holds, per node in snapshot order, the group's pods beyond the first.
	extra     map[string][]*v1.Pod
	nodeOrder []string
}

// Run evicts, from every node, the pods of a group beyond the group's
// balanced share ceil(pods / nodes that could run them).
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	groups := map[string]*group{}
	var order []string
	nodes := h.Nodes()
	for _, ni := range nodes {
		name := ni.Node().Name
		onNode := map[string]bool{}
		for _, pod := range strategies.PodsOf(ni) {
			if strategies.IsTerminal(pod) || len(pod.OwnerReferences) == 0 || !s.args.Matches(pod) ||
				strategies.OwnedByKind(pod, s.args.ExcludeOwnerKinds) || !h.Evictable(pod) {
				continue
			}
			key := groupKey(pod)
			g := groups[key]
			if g == nil {
				g = &group{sample: pod, extra: map[string][]*v1.Pod{}}
				groups[key] = g
				order = append(order, key)
			}
			g.total++
			if onNode[key] {
				if len(g.extra[name]) == 0 {
					g.nodeOrder = append(g.nodeOrder, name)
				}
				g.extra[name] = append(g.extra[name], pod)
			}
			onNode[key] = true
		}
	}
	for _, key := range order {
		g := groups[key]
		if len(g.nodeOrder) == 0 {
			continue
		}
		targets := 0
		for _, ni := range nodes {
			if strategies.CouldRunOn(g.sample, ni.Node()) {
				targets++
			}
		}
		if targets < 2 {
			continue
		}
		share := (g.total + targets - 1) / targets
		for _, name := range g.nodeOrder {
			pods := g.extra[name]
			excess := len(pods) + 1 - share
			for _, pod := range pods[:max(0, min(excess, len(pods)))] {
				h.Evict(ctx, pod, fmt.Sprintf("%d pods of %s on this node, above the balanced share %d over %d nodes",
					len(pods)+1, ownerName(pod), share, targets))
			}
		}
	}
	return nil
}

// groupKey identifies the pods of one owner running the same images.
func groupKey(pod *v1.Pod) string {
	images := make([]string, 0, len(pod.Spec.Containers))
	for _, c := range pod.Spec.Containers {
		images = append(images, c.Image)
	}
	slices.Sort(images)
	owners := make([]string, 0, len(pod.OwnerReferences))
	for _, o := range pod.OwnerReferences {
		owners = append(owners, o.Kind+"/"+o.Name)
	}
	slices.Sort(owners)
	return pod.Namespace + "|" + strings.Join(owners, ",") + "|" + strings.Join(images, ",")
}

func ownerName(pod *v1.Pod) string {
	o := pod.OwnerReferences[0]
	return o.Kind + " " + pod.Namespace + "/" + o.Name
}
