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

package schedtest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
)

// PodGroupBuilder builds a PodGroup step by step.
type PodGroupBuilder struct{ pg *v1alpha1.PodGroup }

// PodGroup starts one of Berth's PodGroups of generation 1 in namespace
// "default": a gang of minCount, with a UID derived from its name.
func PodGroup(name string, minCount int32) *PodGroupBuilder {
	return &PodGroupBuilder{pg: &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), Generation: 1},
		Spec: v1alpha1.PodGroupSpec{SchedulingPolicy: &v1alpha1.PodGroupSchedulingPolicy{
			Gang: &v1alpha1.GangSchedulingPolicy{MinCount: minCount},
		}},
	}}
}

// Basic gives the group the basic policy: members are scheduled one by one.
func (b *PodGroupBuilder) Basic() *PodGroupBuilder {
	b.pg.Spec.SchedulingPolicy = &v1alpha1.PodGroupSchedulingPolicy{Basic: &v1alpha1.BasicSchedulingPolicy{}}
	return b
}

// MinMember replaces the policy with the deprecated spec.minMember, as
// PodGroups written for Berth v0.1 have it.
func (b *PodGroupBuilder) MinMember(n int32) *PodGroupBuilder {
	b.pg.Spec.SchedulingPolicy = nil
	b.pg.Spec.MinMember = n
	return b
}

// Topology keeps the group in one domain of the node label key.
func (b *PodGroupBuilder) Topology(key string) *PodGroupBuilder {
	b.pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{{Key: key}}}
	return b
}

// DisruptAll sets the disruption mode All: the group is preempted whole or not at all.
func (b *PodGroupBuilder) DisruptAll() *PodGroupBuilder {
	b.pg.Spec.DisruptionMode = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	return b
}

// Namespace sets the namespace.
func (b *PodGroupBuilder) Namespace(ns string) *PodGroupBuilder { b.pg.Namespace = ns; return b }

// UID sets the UID.
func (b *PodGroupBuilder) UID(uid string) *PodGroupBuilder { b.pg.UID = types.UID(uid); return b }

// Generation sets metadata.generation.
func (b *PodGroupBuilder) Generation(g int64) *PodGroupBuilder { b.pg.Generation = g; return b }

// Created sets the creation timestamp.
func (b *PodGroupBuilder) Created(t time.Time) *PodGroupBuilder {
	b.pg.CreationTimestamp = metav1.NewTime(t)
	return b
}

// ScheduleTimeout sets spec.scheduleTimeoutSeconds.
func (b *PodGroupBuilder) ScheduleTimeout(seconds int32) *PodGroupBuilder {
	b.pg.Spec.ScheduleTimeoutSeconds = &seconds
	return b
}

// Status sets the status, as an earlier reconcile left it.
func (b *PodGroupBuilder) Status(s v1alpha1.PodGroupStatus) *PodGroupBuilder {
	b.pg.Status = s
	return b
}

// Terminating sets the deletion timestamp: the PodGroup is being deleted.
func (b *PodGroupBuilder) Terminating(at time.Time) *PodGroupBuilder {
	t := metav1.NewTime(at)
	b.pg.DeletionTimestamp = &t
	return b
}

// Finalizers adds finalizers.
func (b *PodGroupBuilder) Finalizers(names ...string) *PodGroupBuilder {
	b.pg.Finalizers = append(b.pg.Finalizers, names...)
	return b
}

// Obj returns the PodGroup; later calls on the builder change it.
func (b *PodGroupBuilder) Obj() *v1alpha1.PodGroup { return b.pg }
