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

package scheduler_test

import (
	"context"
	"fmt"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const rackKey = "topology.example.com/rack"

var _ = Describe("Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1)", func() {
	It("binds a gang together once it fits, and reports it on the PodGroup", func(ctx SpecContext) {
		ns := createNamespace(ctx, "native-gang")
		createNode(ctx, newNode("native-gang-1").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("native-gang-2").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		startNativeScheduler(ctx)

		createWorkloadGroup(ctx, st.WorkloadGroup("crew").Namespace(ns).Gang(4).Obj())
		for i := range 4 {
			createPod(ctx, newPod(ns, fmt.Sprintf("crew-%d", i)).Requests("cpu", "1", "memory", "128Mi").SchedulingGroup("crew").Obj())
		}
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(4))
		Eventually(func(g Gomega) {
			cond := groupCondition(ctx, g, ns, "crew")
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(cond.Reason).To(Equal("Scheduled"))
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
	})

	It("binds nobody of a gang with room for all but one, says why on each member and on the PodGroup, and binds all once room appears", func(ctx SpecContext) {
		ns := createNamespace(ctx, "native-short")
		createNode(ctx, newNode("native-short-1").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		startNativeScheduler(ctx)

		createWorkloadGroup(ctx, st.WorkloadGroup("crew").Namespace(ns).Gang(4).Obj())
		for i := range 4 {
			createPod(ctx, newPod(ns, fmt.Sprintf("crew-%d", i)).Requests("cpu", "1", "memory", "128Mi").SchedulingGroup("crew").Obj())
		}
		// kube-scheduler v1.37.1 writes these very messages (test/workloads' gang-short golden).
		groupMsg := "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (4) cannot be satisfied: 3 scheduled, 0 remaining, " +
			"pod group preemption: No preemption victims found for incoming preemptor"
		Eventually(func(g Gomega) {
			msgs := schedulingMessages(ctx, g, ns)
			sort.Strings(msgs)
			g.Expect(msgs).To(Equal([]string{
				"crew-0: pod group is unschedulable, " + groupMsg,
				"crew-1: pod group is unschedulable, " + groupMsg,
				"crew-2: pod group is unschedulable, " + groupMsg,
				"crew-3: 0/1 nodes are available: 1 Insufficient cpu.",
			}))
			cond := groupCondition(ctx, g, ns, "crew")
			g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(cond.Reason).To(Equal(schedulingv1beta1.PodGroupReasonUnschedulable))
			g.Expect(cond.Message).To(Equal(groupMsg))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(100 * time.Millisecond).Should(BeEmpty())

		createNode(ctx, newNode("native-short-2").Alloc("cpu", "1", "memory", "16Gi", "pods", "110").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(60 * time.Second).Should(HaveLen(4))
	})

	It("holds members back, without a word on them, until their PodGroup exists with minCount pods", func(ctx SpecContext) {
		ns := createNamespace(ctx, "native-wait")
		createNode(ctx, newNode("native-wait-1").Obj())
		startNativeScheduler(ctx)

		for i := range 2 {
			createPod(ctx, newPod(ns, fmt.Sprintf("m-%d", i)).SchedulingGroup("trio").Obj())
		}
		createWorkloadGroup(ctx, st.WorkloadGroup("trio").Namespace(ns).Gang(3).Obj())
		Consistently(func(g Gomega) {
			pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			for _, p := range pods.Items {
				g.Expect(p.Spec.NodeName).To(BeEmpty())
				g.Expect(podScheduledCondition(&p)).To(BeNil(), "pod %s", p.Name)
			}
		}).WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())

		createPod(ctx, newPod(ns, "m-2").SchedulingGroup("trio").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(3))
	})

	It("keeps a gang with a topology constraint in the one rack where it fits", func(ctx SpecContext) {
		ns := createNamespace(ctx, "native-rack")
		for _, n := range []struct {
			name, rack, cpu string
		}{{"native-rack-a1", "a", "1"}, {"native-rack-a2", "a", "2"}, {"native-rack-b1", "b", "2"}, {"native-rack-b2", "b", "2"}, {"native-rack-c1", "c", "3"}} {
			createNode(ctx, newNode(n.name).Label(rackKey, n.rack).Alloc("cpu", n.cpu, "memory", "16Gi", "pods", "110").Obj())
		}
		startNativeScheduler(ctx)

		createWorkloadGroup(ctx, st.WorkloadGroup("crew").Namespace(ns).Gang(4).Topology(rackKey).Obj())
		for i := range 4 {
			createPod(ctx, newPod(ns, fmt.Sprintf("crew-%d", i)).Requests("cpu", "1", "memory", "128Mi").SchedulingGroup("crew").Obj())
		}
		// Rack a has room for 3, rack c for 3: only rack b holds all four.
		Eventually(func(g Gomega) {
			pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods.Items).To(HaveLen(4))
			for _, p := range pods.Items {
				g.Expect(p.Spec.NodeName).To(HavePrefix("native-rack-b"), "pod %s", p.Name)
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("binds what fits of a basic group and tells the rest why", func(ctx SpecContext) {
		ns := createNamespace(ctx, "native-basic")
		createNode(ctx, newNode("native-basic-1").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		startNativeScheduler(ctx)

		createWorkloadGroup(ctx, st.WorkloadGroup("loose").Namespace(ns).Obj())
		for i := range 3 {
			createPod(ctx, newPod(ns, fmt.Sprintf("m-%d", i)).Requests("cpu", "1", "memory", "128Mi").SchedulingGroup("loose").Obj())
		}
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(2))
		Eventually(func(g Gomega) {
			g.Expect(schedulingMessages(ctx, g, ns)).To(ConsistOf(HaveSuffix(": 0/1 nodes are available: 1 Insufficient cpu.")))
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
	})
})

// startNativeScheduler starts a scheduler with the default profile; it
// finds the scheduling.k8s.io PodGroups through discovery.
func startNativeScheduler(ctx context.Context) {
	GinkgoHelper()
	startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})
}

// createWorkloadGroup creates a scheduling.k8s.io PodGroup; its namespace's deletion removes it.
func createWorkloadGroup(ctx context.Context, pg *schedulingv1beta1.PodGroup) {
	GinkgoHelper()
	pg = pg.DeepCopy()
	pg.UID, pg.Generation = "", 0
	_, err := clientset.SchedulingV1beta1().PodGroups(pg.Namespace).Create(ctx, pg, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating PodGroup %s/%s", pg.Namespace, pg.Name)
}

// groupCondition returns the PodGroup's PodGroupInitiallyScheduled condition.
func groupCondition(ctx context.Context, g Gomega, ns, name string) *metav1.Condition {
	pg, err := clientset.SchedulingV1beta1().PodGroups(ns).Get(ctx, name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	cond := apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	g.Expect(cond).NotTo(BeNil(), "PodGroup %s/%s has no %s condition", ns, name, schedulingv1beta1.PodGroupInitiallyScheduled)
	return cond
}
