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

// Package podlifetime evicts pods older than a maximum age, as the
// descheduler's PodLifeTime plugin.
package podlifetime

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "PodLifeTime"

// allowedStates are the pod phases, pod reasons and container waiting
// reasons a pod may be required to be in.
var allowedStates = []string{
	string(v1.PodRunning), string(v1.PodPending), string(v1.PodSucceeded), string(v1.PodFailed), string(v1.PodUnknown),
	"PodInitializing", "ContainerCreating", "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError",
	"ErrImagePull", "ImagePullBackOff", "InvalidImageName",
	"NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError",
}

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
	// MaxPodLifeTimeSeconds is the age in seconds beyond which pods are evicted.
	MaxPodLifeTimeSeconds *uint `json:"maxPodLifeTimeSeconds"`
	// States, when set, limits evictions to pods in one of these states.
	States []string `json:"states,omitempty"`
	// IncludingInitContainers also matches States against init containers.
	IncludingInitContainers bool `json:"includingInitContainers,omitempty"`
}

// Default leaves the arguments as written: maxPodLifeTimeSeconds is
// required, and the others mean nothing when unset.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.PodScope.Validate(path)
	if a.MaxPodLifeTimeSeconds == nil {
		errs = append(errs, field.Required(path.Child("maxPodLifeTimeSeconds"), ""))
	}
	for i, s := range a.States {
		if !slices.Contains(allowedStates, s) {
			errs = append(errs, field.Invalid(path.Child("states").Index(i), s, "is not a known pod phase or reason"))
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

// Run evicts the expired pods of every node, the oldest first.
func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	maxAge := time.Duration(*s.args.MaxPodLifeTimeSeconds) * time.Second
	var expired []*v1.Pod
	for _, ni := range h.Nodes() {
		for _, pod := range strategies.PodsOf(ni) {
			if h.Now().Sub(pod.CreationTimestamp.Time) <= maxAge || !s.args.Matches(pod) || !s.inState(pod) || !h.Evictable(pod) {
				continue
			}
			expired = append(expired, pod)
		}
	}
	sort.SliceStable(expired, func(i, j int) bool {
		return expired[i].CreationTimestamp.Before(&expired[j].CreationTimestamp)
	})
	for _, pod := range expired {
		age := h.Now().Sub(pod.CreationTimestamp.Time).Truncate(time.Second)
		h.Evict(ctx, pod, fmt.Sprintf("pod is %s old, beyond maxPodLifeTimeSeconds %d", age, *s.args.MaxPodLifeTimeSeconds))
	}
	return nil
}

func (s *strategy) inState(pod *v1.Pod) bool {
	states := s.args.States
	if len(states) == 0 || slices.Contains(states, string(pod.Status.Phase)) || (pod.Status.Reason != "" && slices.Contains(states, pod.Status.Reason)) {
		return true
	}
	for _, cs := range strategies.ContainerStatuses(pod, s.args.IncludingInitContainers) {
		if cs.State.Waiting != nil && slices.Contains(states, cs.State.Waiting.Reason) {
			return true
		}
	}
	return false
}
