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

// Package removefailedpods evicts failed pods, as the descheduler's
// RemoveFailedPods plugin.
package removefailedpods

import (
	"context"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemoveFailedPods"

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
	// ExcludeOwnerKinds keeps the failed pods of owners of these kinds.
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
	// MinPodLifetimeSeconds keeps failed pods younger than this.
	MinPodLifetimeSeconds *uint `json:"minPodLifetimeSeconds,omitempty"`
	// Reasons, when set, limits evictions to pods that failed for one of them.
	Reasons []string `json:"reasons,omitempty"`
	// ExitCodes, when set, limits evictions to pods with a container that exited with one of them.
	ExitCodes []int32 `json:"exitCodes,omitempty"`
	// IncludingInitContainers also matches Reasons and ExitCodes against init containers.
	IncludingInitContainers bool `json:"includingInitContainers,omitempty"`
}

// Default leaves the arguments as written: none has a default, and an
// explicit minPodLifetimeSeconds of 0 keeps no failed pod, as unset.
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

func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	for _, ni := range h.Nodes() {
		for _, pod := range strategies.PodsOf(ni) {
			if pod.Status.Phase != v1.PodFailed || !s.args.Matches(pod) || strategies.OwnedByKind(pod, s.args.ExcludeOwnerKinds) {
				continue
			}
			if m := s.args.MinPodLifetimeSeconds; m != nil && h.Now().Sub(pod.CreationTimestamp.Time) < time.Duration(*m)*time.Second {
				continue
			}
			if !s.matchesReasons(pod) || !s.matchesExitCodes(pod) || !h.Evictable(pod) {
				continue
			}
			reason := "pod failed"
			if pod.Status.Reason != "" {
				reason += ": " + pod.Status.Reason
			}
			h.Evict(ctx, pod, reason)
		}
	}
	return nil
}

func (s *strategy) matchesReasons(pod *v1.Pod) bool {
	if len(s.args.Reasons) == 0 || slices.Contains(s.args.Reasons, pod.Status.Reason) {
		return true
	}
	for _, cs := range strategies.ContainerStatuses(pod, s.args.IncludingInitContainers) {
		if t := cs.State.Terminated; t != nil && slices.Contains(s.args.Reasons, t.Reason) {
			return true
		}
		if w := cs.State.Waiting; w != nil && slices.Contains(s.args.Reasons, w.Reason) {
			return true
		}
	}
	return false
}

func (s *strategy) matchesExitCodes(pod *v1.Pod) bool {
	if len(s.args.ExitCodes) == 0 {
		return true
	}
	for _, cs := range strategies.ContainerStatuses(pod, s.args.IncludingInitContainers) {
		if t := cs.State.Terminated; t != nil && slices.Contains(s.args.ExitCodes, t.ExitCode) {
			return true
		}
	}
	return false
}
