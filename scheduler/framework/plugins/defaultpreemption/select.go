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

package defaultpreemption

import (
	"math"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// pickCandidate chooses the node to preempt on by upstream's criteria, each
// breaking the ties of the one before: fewest PodDisruptionBudget
// violations, lowest priority of the most important victim, smallest sum of
// victim priorities, fewest victims, and latest start of the earliest-started
// victim among those of the highest priority. Remaining ties go to the
// candidate found first.
func (p *DefaultPreemption) pickCandidate(candidates []*candidate) *candidate {
	if len(candidates) == 1 {
		return candidates[0]
	}
	now := metav1.NewTime(p.clock.Now())
	criteria := []func(c *candidate) int64{
		func(c *candidate) int64 { return -int64(c.pdbViolations) },
		func(c *candidate) int64 { return -int64(corev1helpers.PodPriority(c.victims[0])) },
		func(c *candidate) int64 {
			// Shifting each priority up keeps negative priorities from
			// making more victims look cheaper.
			var sum int64
			for _, v := range c.victims {
				sum += int64(corev1helpers.PodPriority(v)) + int64(math.MaxInt32) + 1
			}
			return -sum
		},
		func(c *candidate) int64 { return -int64(len(c.victims)) },
		func(c *candidate) int64 { return earliestStartOfTopVictims(c, now).UnixNano() },
	}
	remaining := candidates
	for _, score := range criteria {
		best := int64(math.MinInt64)
		var kept []*candidate
		for _, c := range remaining {
			switch s := score(c); {
			case s > best:
				best = s
				kept = append(kept[:0], c)
			case s == best:
				kept = append(kept, c)
			}
		}
		if len(kept) == 1 {
			return kept[0]
		}
		remaining = kept
	}
	return remaining[0]
}

// earliestStartOfTopVictims is the earliest start time among the candidate's
// victims of the highest priority.
func earliestStartOfTopVictims(c *candidate, now metav1.Time) metav1.Time {
	top := corev1helpers.PodPriority(c.victims[0])
	earliest := startTime(c.victims[0], now)
	for _, v := range c.victims[1:] {
		switch pr := corev1helpers.PodPriority(v); {
		case pr > top:
			top, earliest = pr, startTime(v, now)
		case pr == top:
			if s := startTime(v, now); s.Before(&earliest) {
				earliest = s
			}
		}
	}
	return earliest
}
