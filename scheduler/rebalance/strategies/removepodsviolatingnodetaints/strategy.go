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

// Package removepodsviolatingnodetaints evicts pods that do not tolerate a
// NoSchedule taint of their node, as the descheduler's plugin of the same name.
package removepodsviolatingnodetaints

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Name is the strategy's descheduler name.
const Name v1alpha1.StrategyName = "RemovePodsViolatingNodeTaints"

// Args are the strategy's arguments.
type Args struct {
	strategies.PodScope `json:",inline"`
	// IncludePreferNoSchedule also evicts pods that do not tolerate PreferNoSchedule taints.
	IncludePreferNoSchedule bool `json:"includePreferNoSchedule,omitempty"`
	// ExcludedTaints ignores taints given as "key" or "key=value".
	ExcludedTaints []string `json:"excludedTaints,omitempty"`
	// IncludedTaints, when set, considers only taints given as "key" or "key=value".
	IncludedTaints []string `json:"includedTaints,omitempty"`
}

// Default leaves the arguments as written: none has a default.
func (a *Args) Default() {}

// Validate returns every problem of the arguments, each under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.PodScope.Validate(path)
	if len(a.ExcludedTaints) > 0 && len(a.IncludedTaints) > 0 {
		errs = append(errs, field.Forbidden(path.Child("includedTaints"), "only one of excludedTaints or includedTaints may be set"))
	}
	for _, list := range []struct {
		name   string
		taints []string
	}{{"excludedTaints", a.ExcludedTaints}, {"includedTaints", a.IncludedTaints}} {
		for i, t := range list.taints {
			if key, _, _ := strings.Cut(t, "="); key == "" {
				errs = append(errs, field.Invalid(path.Child(list.name).Index(i), t, "has no key"))
			}
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

// listed reports whether taint matches one of the "key" or "key=value" entries.
func listed(taint *v1.Taint, entries []string) bool {
	for _, e := range entries {
		key, value, hasValue := strings.Cut(e, "=")
		if key == taint.Key && (!hasValue || value == taint.Value) {
			return true
		}
	}
	return false
}

// considered reports whether the strategy enforces taint.
func (s *strategy) considered(taint *v1.Taint) bool {
	if taint.Effect != v1.TaintEffectNoSchedule && !(s.args.IncludePreferNoSchedule && taint.Effect == v1.TaintEffectPreferNoSchedule) {
		return false
	}
	if len(s.args.IncludedTaints) > 0 {
		return listed(taint, s.args.IncludedTaints)
	}
	return !listed(taint, s.args.ExcludedTaints)
}

func (s *strategy) Run(ctx context.Context, h strategies.Handle) error {
	logger := klog.FromContext(ctx)
	for _, ni := range h.Nodes() {
		node := ni.Node()
		if len(node.Spec.Taints) == 0 {
			continue
		}
		for _, pod := range strategies.PodsOf(ni) {
			if !s.args.Matches(pod) || !h.Evictable(pod) {
				continue
			}
			taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, s.considered, true)
			if !untolerated {
				continue
			}
			h.Evict(ctx, pod, fmt.Sprintf("pod does not tolerate taint %s=%s:%s of its node", taint.Key, taint.Value, taint.Effect))
		}
	}
	return nil
}
