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

package v1alpha1

import (
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// Native returns the spec of the scheduling.k8s.io/v1beta1 PodGroup with
// this spec's meaning: every field copied as it is, the deprecated
// minMember read as a gang's minCount. scheduleTimeoutSeconds has no
// native field and is left out.
func (s *PodGroupSpec) Native() schedulingv1beta1.PodGroupSpec {
	out := schedulingv1beta1.PodGroupSpec{PriorityClassName: s.PriorityClassName}
	if s.SchedulingPolicy != nil && s.SchedulingPolicy.Basic != nil {
		out.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	} else {
		out.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: s.MinCount()}
	}
	if c := s.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		out.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{}
		for _, t := range c.Topology {
			out.SchedulingConstraints.Topology = append(out.SchedulingConstraints.Topology, schedulingv1beta1.TopologyConstraint{Key: t.Key})
		}
	}
	switch d := s.DisruptionMode; {
	case d == nil:
	case d.All != nil:
		out.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	case d.Single != nil:
		out.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	}
	return out
}
