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

// Package removepodshavingtoomanyrestarts evicts pods whose containers
// restarted too often, as the descheduler's plugin of the same name.
package removepodshavingtoomanyrestarts

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemovePodsHavingTooManyRestarts"

// allowedStates are the states a pod may be required to be in.
var allowedStates = []string{string(v1.PodRunning), "CrashLoopBackOff"}

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
	// PodRestartThreshold is the restart count at which a pod is evicted.
	PodRestartThreshold int32 `json:"podRestartThreshold"`
	// IncludingInitContainers counts the init containers' restarts too.
	IncludingInitContainers bool `json:"includingInitContainers,omitempty"`
	// States, when set, limits evictions to pods in one of these states.
	States []string `json:"states,omitempty"`
}

// Default leaves the arguments as written: podRestartThreshold has no
// default, so unset or 0 is an error.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.PodScope.Validate(path)
	if a.PodRestartThreshold < 1 {
		errs = append(errs, field.Invalid(path.Child("podRestartThreshold"), a.PodRestartThreshold, "must be at least 1"))
	}
	for i, s := range a.States {
		if !slices.Contains(allowedStates, s) {
			errs = append(errs, field.Invalid(path.Child("states").Index(i), s, fmt.Sprintf("is not one of %v", allowedStates)))
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
			if !s.args.Matches(pod) || !h.Evictable(pod) {
				continue
			}
			restarts := s.restarts(pod)
			if restarts < s.args.PodRestartThreshold || !s.inState(pod) {
				continue
			}
			h.Evict(ctx, pod, fmt.Sprintf("containers restarted %d times, at or above the threshold %d", restarts, s.args.PodRestartThreshold))
		}
	}
	return nil
}

func (s *strategy) restarts(pod *v1.Pod) int32 {
	var n int32
	for _, cs := range strategies.ContainerStatuses(pod, s.args.IncludingInitContainers) {
		n += cs.RestartCount
	}
	return n
}

// inState reports whether pod is in one of the required states.
func (s *strategy) inState(pod *v1.Pod) bool {
	if len(s.args.States) == 0 || slices.Contains(s.args.States, string(pod.Status.Phase)) {
		return true
	}
	for _, cs := range strategies.ContainerStatuses(pod, s.args.IncludingInitContainers) {
		if cs.State.Waiting != nil && slices.Contains(s.args.States, cs.State.Waiting.Reason) {
			return true
		}
	}
	return false
}
