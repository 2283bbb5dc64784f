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

package throughput

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

const (
	// RackKey is the node label the Gangs workload keeps each gang in one value of.
	RackKey = "topology.example.com/rack"
	// RackSize is how many nodes share a rack in the Gangs workload.
	RackSize = 50
	// DefaultGangSize is how many pods a gang of the Gangs workload has
	// unless told otherwise.
	DefaultGangSize = 8
	// WorkloadFeatureGates are the gates the control plane and kube-scheduler
	// run with for the Gangs workload, as kube-scheduler v1.37 needs them to
	// schedule PodGroups.
	WorkloadFeatureGates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
	// workloadRuntimeConfig serves the PodGroup API.
	workloadRuntimeConfig = "scheduling.k8s.io/v1beta1=true"
)

// Gangs returns a workload of gangs: SchedulingBasic's pods in
// scheduling.k8s.io PodGroups of gangSize pods each (the last one takes
// what is left), each a gang of all its pods (minCount its size) kept in
// one rack (RackKey, RackSize nodes a rack); when bigGang is positive, the
// first bigGang pods form one more gang. The control plane serves the
// PodGroup API and kube-scheduler runs with WorkloadFeatureGates.
func Gangs(nodes, pods, gangSize, bigGang int) Workload {
	return Workload{Name: "Gangs", Nodes: nodes, Pods: pods, GangSize: gangSize, BigGang: bigGang}
}

// gangs reports whether the workload's pods are in PodGroups.
func (w Workload) gangs() bool { return w.GangSize > 0 }

// gangOf returns the name of the i-th pod's PodGroup.
func (w Workload) gangOf(i int) string {
	if i < w.BigGang {
		return "big"
	}
	return fmt.Sprintf("gang-%d", (i-w.BigGang)/w.GangSize)
}

// groups returns the workload's PodGroups, each with its size.
func (w Workload) groups() map[string]int32 {
	out := map[string]int32{}
	for i := range w.Pods {
		out[w.gangOf(i)]++
	}
	return out
}

// createGroups creates the workload's PodGroups, with workers calls at once.
func (w Workload) createGroups(ctx context.Context, client kubernetes.Interface, workers int) error {
	if !w.gangs() {
		return nil
	}
	var names []string
	sizes := w.groups()
	for name := range sizes {
		names = append(names, name)
	}
	if err := parallel(ctx, len(names), workers, func(ctx context.Context, i int) error {
		pg := &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: names[i]},
			Spec: schedulingv1beta1.PodGroupSpec{
				SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: sizes[names[i]]},
				},
				SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{
					Topology: []schedulingv1beta1.TopologyConstraint{{Key: RackKey}},
				},
			},
		}
		_, err := client.SchedulingV1beta1().PodGroups(Namespace).Create(ctx, pg, metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating PodGroups: %w", err)
	}
	return nil
}

// joinGang makes the i-th pod a member of its PodGroup.
func (w Workload) joinGang(p *corev1.Pod, i int) {
	p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(w.gangOf(i))}
}

// rackOf returns the rack of the i-th node.
func rackOf(i int) string { return fmt.Sprintf("rack-%d", i/RackSize) }

// GangTiming is when a gang's members were bound.
type GangTiming struct {
	// Bound is the time from starting the scheduler process, when every
	// member exists, to the bind of the last member.
	Bound time.Duration `json:"boundNs"`
	// Span is the time from the first member's bind to the last's.
	Span time.Duration `json:"spanNs"`
}

// gangTiming returns when the gang of the first n pods was bound, from
// their bind times, or nil when one of them was not bound.
func gangTiming(bound map[string]time.Time, n int, started time.Time) *GangTiming {
	if n == 0 {
		return nil
	}
	var first, last time.Time
	for i := range n {
		t, ok := bound[podName(i)]
		if !ok {
			return nil
		}
		if i == 0 || t.Before(first) {
			first = t
		}
		if i == 0 || t.After(last) {
			last = t
		}
	}
	return &GangTiming{Bound: last.Sub(started), Span: last.Sub(first)}
}
