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

package evictor

import (
	"fmt"
	"maps"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Limits counts the evictions of one run against the policy's limits.
type Limits struct {
	perNode, perNamespace, total int
	byNode, byNamespace          map[string]int
	all                          int
}

// NewLimits returns a counter for l; unset limits never bind.
func NewLimits(l *v1alpha1.EvictionLimits) *Limits {
	out := &Limits{perNode: -1, perNamespace: -1, total: -1, byNode: map[string]int{}, byNamespace: map[string]int{}}
	if l == nil {
		return out
	}
	set := func(dst *int, v *int32) {
		if v != nil {
			*dst = int(*v)
		}
	}
	set(&out.perNode, l.MaxPodsToEvictPerNode)
	set(&out.perNamespace, l.MaxPodsToEvictPerNamespace)
	set(&out.total, l.MaxPodsToEvictTotal)
	return out
}

func reached(limit, count int) bool { return limit >= 0 && count >= limit }

// NodeReached reports whether nodeName or the run as a whole has used up its evictions.
func (l *Limits) NodeReached(nodeName string) bool {
	return reached(l.total, l.all) || reached(l.perNode, l.byNode[nodeName])
}

// Allow returns nil when one more eviction of pod stays within every limit,
// or an error naming the limit reached.
func (l *Limits) Allow(pod *v1.Pod) error {
	switch {
	case reached(l.total, l.all):
		return fmt.Errorf("maxPodsToEvictTotal %d reached", l.total)
	case reached(l.perNode, l.byNode[pod.Spec.NodeName]):
		return fmt.Errorf("maxPodsToEvictPerNode %d reached on node %s", l.perNode, pod.Spec.NodeName)
	case reached(l.perNamespace, l.byNamespace[pod.Namespace]):
		return fmt.Errorf("maxPodsToEvictPerNamespace %d reached in namespace %s", l.perNamespace, pod.Namespace)
	}
	return nil
}

// Count records one eviction of pod.
func (l *Limits) Count(pod *v1.Pod) {
	l.all++
	l.byNode[pod.Spec.NodeName]++
	l.byNamespace[pod.Namespace]++
}

// AllowAll returns nil when evicting every one of pods stays within every
// limit, or an error naming the first limit they would exceed.
func (l *Limits) AllowAll(pods []*v1.Pod) error {
	trial := &Limits{perNode: l.perNode, perNamespace: l.perNamespace, total: l.total, all: l.all,
		byNode: maps.Clone(l.byNode), byNamespace: maps.Clone(l.byNamespace)}
	for _, pod := range pods {
		if err := trial.Allow(pod); err != nil {
			return err
		}
		trial.Count(pod)
	}
	return nil
}
