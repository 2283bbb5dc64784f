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

package workloads

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/test/berthtest"
)

// Object builds the PriorityClass.
func (pc PriorityClass) Object() *schedulingv1.PriorityClass {
	out := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: pc.Name}, Value: pc.Value}
	if pc.PreemptionPolicy != "" {
		out.PreemptionPolicy = ptr.To(pc.PreemptionPolicy)
	}
	return out
}

// Object builds the node, Ready, with its labels (and
// kubernetes.io/hostname), allocatable resources and taints.
func (n Node) Object() *corev1.Node {
	pods := n.Pods
	if pods == 0 {
		pods = 110
	}
	b := berthtest.NewNode(n.Name).Alloc("cpu", n.CPU, "memory", n.Memory, "pods", strconv.Itoa(pods))
	for k, v := range n.Labels {
		b.Label(k, v)
	}
	for _, t := range n.Taints {
		b.Taint(t.Key, t.Value, t.Effect)
	}
	return b.Obj()
}

// Object builds the CompositePodGroup in namespace ns, referring to
// Workload WorkloadName by a template of its own name.
func (g CompositePodGroup) Object(ns string) *schedulingv1alpha3.CompositePodGroup {
	cpg := &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: g.Name},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:       &schedulingv1alpha3.WorkloadReference{WorkloadName: WorkloadName, TemplateName: g.Name},
			PriorityClassName: g.PriorityClassName,
		},
	}
	if g.Parent != "" {
		cpg.Spec.ParentCompositePodGroupName = ptr.To(g.Parent)
	}
	if g.MinGroupCount > 0 {
		cpg.Spec.SchedulingPolicy.Gang = &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: g.MinGroupCount}
	} else {
		cpg.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
	}
	if g.TopologyKey != "" {
		cpg.Spec.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{
			Topology: []schedulingv1alpha3.TopologyConstraint{{Key: g.TopologyKey}},
		}
	}
	if g.DisruptionAll {
		cpg.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}}
	}
	return cpg
}

// Object builds the PodGroup in namespace ns. A PodGroup with a parent
// also refers to Workload WorkloadName by a template of its own name, as
// the apiserver requires.
func (g PodGroup) Object(ns string) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: g.Name},
		Spec:       schedulingv1beta1.PodGroupSpec{PriorityClassName: g.PriorityClassName},
	}
	if g.Parent != "" {
		pg.Spec.ParentCompositePodGroupName = ptr.To(g.Parent)
		pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: WorkloadName, TemplateName: g.Name}
	}
	if g.MinCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: g.MinCount}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	if g.TopologyKey != "" {
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
			Topology: []schedulingv1beta1.TopologyConstraint{{Key: g.TopologyKey}},
		}
	}
	if g.DisruptionAll {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	}
	return pg
}

// BerthObject builds the PodGroup as one of Berth's own (scheduling.berth.io)
// in namespace ns. Berth's PodGroups have no parent: Parent is left out
// (Play refuses composite scenarios through Berth's PodGroups).
func (g PodGroup) BerthObject(ns string) *v1alpha1.PodGroup {
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: g.Name},
		Spec:       v1alpha1.PodGroupSpec{PriorityClassName: g.PriorityClassName},
	}
	if g.MinCount > 0 {
		pg.Spec.SchedulingPolicy = &v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: g.MinCount}}
	} else {
		pg.Spec.SchedulingPolicy = &v1alpha1.PodGroupSchedulingPolicy{Basic: &v1alpha1.BasicSchedulingPolicy{}}
	}
	if g.TopologyKey != "" {
		pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{{Key: g.TopologyKey}}}
	}
	if g.DisruptionAll {
		pg.Spec.DisruptionMode = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	}
	return pg
}

// BerthObject builds the pod as Object does, joining its group through
// the scheduling.berth.io/pod-group label.
func (p Pod) BerthObject(ns string) *corev1.Pod {
	pod := p.Object(ns)
	if p.Group != "" {
		pod.Spec.SchedulingGroup = nil
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels[v1alpha1.PodGroupLabel] = p.Group
	}
	return pod
}

// Object builds the pod in namespace ns for the default-scheduler.
func (p Pod) Object(ns string) *corev1.Pod {
	b := berthtest.NewPod(ns, p.Name).Requests("cpu", p.CPU, "memory", p.Memory)
	p.constrain(b)
	pod := b.Obj()
	pod.Spec.PriorityClassName = p.PriorityClassName
	pod.Spec.NodeName = p.NodeName
	if p.Group != "" {
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(p.Group)}
	}
	for _, g := range p.Gates {
		pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
	}
	return pod
}

// constrain gives the pod b builds its labels and scheduling constraints.
func (p Pod) constrain(b *schedtest.PodBuilder) {
	for k, v := range p.Labels {
		b.Label(k, v)
	}
	for _, t := range p.Affinity {
		b.PodAffinity(t.builder())
	}
	for _, t := range p.AntiAffinity {
		b.PodAntiAffinity(t.builder())
	}
	for _, t := range p.PreferAntiAffinity {
		b.PreferPodAntiAffinity(100, t.builder())
	}
	for _, s := range p.Spread {
		when := corev1.ScheduleAnyway
		if s.Hard {
			when = corev1.DoNotSchedule
		}
		b.Spread(s.MaxSkew, s.TopologyKey, when, schedtest.Selector(labelPair(s.Label)...))
	}
	if len(p.NodeSelector) > 0 {
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(p.NodeSelector)) {
			pairs = append(pairs, k, p.NodeSelector[k])
		}
		b.NodeSelector(pairs...)
	}
	for _, t := range p.Tolerations {
		b.Toleration(t)
	}
	if p.HostPort != 0 {
		b.HostPort(p.HostPort)
	}
}

// builder returns the term's builder.
func (t Term) builder() *schedtest.TermBuilder {
	return schedtest.Term(t.TopologyKey, labelPair(t.Label)...)
}

// labelPair splits "key=value" into its key and value.
func labelPair(label string) []string {
	k, v, _ := strings.Cut(label, "=")
	return []string{k, v}
}
