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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// WorkloadGroupBuilder builds a scheduling.k8s.io/v1beta1 PodGroup step by step.
type WorkloadGroupBuilder struct{ pg *schedulingv1beta1.PodGroup }

// WorkloadGroup starts a scheduling.k8s.io PodGroup of generation 1 in
// namespace "default" with the basic policy and a UID derived from its name.
func WorkloadGroup(name string) *WorkloadGroupBuilder {
	return &WorkloadGroupBuilder{pg: &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), Generation: 1},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Basic: &schedulingv1beta1.BasicSchedulingPolicy{},
		}},
	}}
}

// Namespace sets the namespace.
func (b *WorkloadGroupBuilder) Namespace(ns string) *WorkloadGroupBuilder {
	b.pg.Namespace = ns
	return b
}

// UID sets the UID.
func (b *WorkloadGroupBuilder) UID(uid string) *WorkloadGroupBuilder {
	b.pg.UID = types.UID(uid)
	return b
}

// Generation sets metadata.generation.
func (b *WorkloadGroupBuilder) Generation(g int64) *WorkloadGroupBuilder {
	b.pg.Generation = g
	return b
}

// Created sets the creation timestamp.
func (b *WorkloadGroupBuilder) Created(t time.Time) *WorkloadGroupBuilder {
	b.pg.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Gang gives the group the gang policy with minCount.
func (b *WorkloadGroupBuilder) Gang(minCount int32) *WorkloadGroupBuilder {
	b.pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}}
	return b
}

// Topology keeps the group in one domain of the node label key.
func (b *WorkloadGroupBuilder) Topology(key string) *WorkloadGroupBuilder {
	b.pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
		Topology: []schedulingv1beta1.TopologyConstraint{{Key: key}},
	}
	return b
}

// Priority sets spec.priority.
func (b *WorkloadGroupBuilder) Priority(p int32) *WorkloadGroupBuilder {
	b.pg.Spec.Priority = &p
	return b
}

// DisruptAll sets the disruption mode All: the group is preempted whole or not at all.
func (b *WorkloadGroupBuilder) DisruptAll() *WorkloadGroupBuilder {
	b.pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	return b
}

// Berth makes the group stand for one of Berth's own PodGroups, as the
// scheduler reads those: members join it through the pod-group label.
func (b *WorkloadGroupBuilder) Berth() *WorkloadGroupBuilder {
	b.pg.TypeMeta = metav1.TypeMeta{APIVersion: framework.BerthPodGroupAPIVersion, Kind: "PodGroup"}
	return b
}

// Obj returns the PodGroup; later calls on the builder change it.
func (b *WorkloadGroupBuilder) Obj() *schedulingv1beta1.PodGroup { return b.pg }

// Workloads is a framework.WorkloadLister over fixed groups and pods for
// plugin tests; a member is placed when bound or named in Assumed.
type Workloads struct {
	// Groups are the PodGroups.
	Groups []*schedulingv1beta1.PodGroup
	// Pods are every pod; members are those that join a group (framework.GroupRefOf).
	Pods []*v1.Pod
	// Assumed maps the names of assumed pods to their nodes.
	Assumed map[string]string
}

// Serves reports true: both kinds of PodGroup are served.
func (w *Workloads) Serves(framework.GroupRef) bool { return true }

// PodGroup returns the group ref names.
func (w *Workloads) PodGroup(ref framework.GroupRef) (*schedulingv1beta1.PodGroup, error) {
	for _, pg := range w.Groups {
		if framework.RefOf(pg) == ref {
			return pg, nil
		}
	}
	return nil, fmt.Errorf("podgroup %s not found", ref)
}

// Members returns the group's pods.
func (w *Workloads) Members(ref framework.GroupRef) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range w.Pods {
		if framework.InGroup(p, ref) {
			out = append(out, p)
		}
	}
	return out
}

// IsPlaced reports whether the pod is bound or assumed.
func (w *Workloads) IsPlaced(pod *v1.Pod) bool { return w.NodeOf(pod) != "" }

// NodeOf returns the pod's node, bound or assumed.
func (w *Workloads) NodeOf(pod *v1.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	return w.Assumed[pod.Name]
}

// Parent makes the group a child of the CompositePodGroup name.
func (b *WorkloadGroupBuilder) Parent(name string) *WorkloadGroupBuilder {
	b.pg.Spec.ParentCompositePodGroupName = &name
	return b
}

// CompositeGroupBuilder builds a scheduling.k8s.io/v1alpha3 CompositePodGroup step by step.
type CompositeGroupBuilder struct {
	cpg *schedulingv1alpha3.CompositePodGroup
}

// CompositeGroup starts a CompositePodGroup of generation 1 in namespace
// "default" with the basic policy and a UID derived from its name.
func CompositeGroup(name string) *CompositeGroupBuilder {
	return &CompositeGroupBuilder{cpg: &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), Generation: 1},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef: &schedulingv1alpha3.WorkloadReference{WorkloadName: "workload", TemplateName: name},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{
				Basic: &schedulingv1alpha3.CompositeBasicSchedulingPolicy{},
			},
		},
	}}
}

// Parent makes the group a child of the CompositePodGroup name.
func (b *CompositeGroupBuilder) Parent(name string) *CompositeGroupBuilder {
	b.cpg.Spec.ParentCompositePodGroupName = &name
	return b
}

// Gang gives the group the gang policy with minGroupCount.
func (b *CompositeGroupBuilder) Gang(minGroupCount int32) *CompositeGroupBuilder {
	b.cpg.Spec.SchedulingPolicy = schedulingv1alpha3.CompositePodGroupSchedulingPolicy{
		Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount},
	}
	return b
}

// DisruptAll sets the disruption mode All: the group's children are
// disrupted together or not at all.
func (b *CompositeGroupBuilder) DisruptAll() *CompositeGroupBuilder {
	b.cpg.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}}
	return b
}

// Topology keeps the group's members in one domain of the node label key.
func (b *CompositeGroupBuilder) Topology(key string) *CompositeGroupBuilder {
	b.cpg.Spec.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{
		Topology: []schedulingv1alpha3.TopologyConstraint{{Key: key}},
	}
	return b
}

// Priority sets spec.priority.
func (b *CompositeGroupBuilder) Priority(p int32) *CompositeGroupBuilder {
	b.cpg.Spec.Priority = &p
	return b
}

// Created sets the creation timestamp.
func (b *CompositeGroupBuilder) Created(t time.Time) *CompositeGroupBuilder {
	b.cpg.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Obj returns the CompositePodGroup; later calls on the builder change it.
func (b *CompositeGroupBuilder) Obj() *schedulingv1alpha3.CompositePodGroup { return b.cpg }
