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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

var _ = Describe("live profiles", func() {
	It("parks pods no profile serves, binds them when a profile appears, and parks new ones after it goes", func(ctx SpecContext) {
		ns := createNamespace(ctx, "parked")
		createNode(ctx, newNode("parked-node").Obj())
		s := startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		for i := range 3 {
			createPod(ctx, newPod(ns, fmt.Sprintf("early-%d", i)).SchedulerName("late").Obj())
		}
		Eventually(s.ParkedPods).WithContext(ctx).WithTimeout(10 * time.Second).Should(Equal(3))
		expectUnbound(ctx, ns, "early-0", "early-1", "early-2")

		Expect(s.SetProfile(ctx, "late", "late", 1, defaultProfile())).To(Succeed())
		expectBound(ctx, ns, "early-0", "early-1", "early-2")
		Expect(s.ParkedPods()).To(BeZero())

		s.RemoveProfile(ctx, "late")
		createPod(ctx, newPod(ns, "after-0").SchedulerName("late").Obj())
		createPod(ctx, newPod(ns, "after-1").SchedulerName("late").Obj())
		Eventually(s.ParkedPods).WithContext(ctx).WithTimeout(10 * time.Second).Should(Equal(2))
		expectUnbound(ctx, ns, "after-0", "after-1")
	}, SpecTimeout(time.Minute))

	It("keeps pending pods across a profile swap and binds them with the new generation", func(ctx SpecContext) {
		ns := createNamespace(ctx, "swap")
		createNode(ctx, newNode("swap-small").Alloc("cpu", "1", "memory", "4Gi", "pods", "110").Obj())
		s := startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		pods := []string{"wait-0", "wait-1", "wait-2"}
		for _, name := range pods {
			createPod(ctx, newPod(ns, name).Requests("cpu", "2").Obj())
		}
		Eventually(func(g Gomega) {
			for _, name := range pods {
				got, err := getPod(ctx, ns, name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(podScheduledCondition(got)).NotTo(BeNil(), "pod %s has not been tried yet", name)
			}
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())

		Expect(s.SetProfile(ctx, corev1.DefaultSchedulerName, corev1.DefaultSchedulerName, 2, binPackingProfile())).To(Succeed())
		createNode(ctx, newNode("swap-big").Alloc("cpu", "8", "memory", "16Gi", "pods", "110").Obj())
		expectBound(ctx, ns, pods...)
		for _, name := range pods {
			pod, err := getPod(ctx, ns, name)
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() ([]string, error) { return eventsFor(ctx, pod, "Scheduled") }).WithContext(ctx).WithTimeout(10*time.Second).
				Should(ConsistOf(ContainSubstring("generation 2")), "pod %s was bound more than once or by the old generation", name)
		}
	}, SpecTimeout(time.Minute))

	It("retries a profile's unschedulable pods when a new generation goes live, without any cluster event", func(ctx SpecContext) {
		ns := createNamespace(ctx, "edit")
		// The only node carries a taint the pod does not tolerate; nothing
		// else changes in the cluster after the pod is found unschedulable.
		createNode(ctx, newNode("edit-tainted").Taint("dedicated", "infra", corev1.TaintEffectNoSchedule).Obj())
		s := startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{"edit": defaultProfile()})
		createPod(ctx, newPod(ns, "waits").SchedulerName("edit").Obj())
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, "waits")
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Reason).To(Equal(corev1.PodReasonUnschedulable))
			g.Expect(cond.Message).To(ContainSubstring("untolerated taint"))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())

		withoutTaints := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Filter: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "TaintToleration"}}},
		}}
		edited := time.Now()
		Expect(s.SetProfile(ctx, "edit", "edit", 2, withoutTaints)).To(Succeed())
		// Within the pod's backoff (at most the default 10 s), far from the
		// 5-minute flush of unschedulable pods.
		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, "waits")
			if err != nil {
				return "", err
			}
			return got.Spec.NodeName, nil
		}).WithContext(ctx).WithTimeout(12 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal("edit-tainted"))
		GinkgoWriter.Printf("bound %v after the profile edit\n", time.Since(edited).Round(time.Millisecond))
	}, SpecTimeout(time.Minute))
})

// expectBound waits until each named pod has a node.
func expectBound(ctx SpecContext, ns string, names ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		for _, name := range names {
			got, err := getPod(ctx, ns, name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Spec.NodeName).NotTo(BeEmpty(), "pod %s is not bound", name)
		}
	}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
}

// expectUnbound checks for a second that no named pod gets a node.
func expectUnbound(ctx SpecContext, ns string, names ...string) {
	GinkgoHelper()
	Consistently(func(g Gomega) {
		for _, name := range names {
			got, err := clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Spec.NodeName).To(BeEmpty(), "pod %s was bound", name)
		}
	}).WithContext(ctx).WithTimeout(time.Second).Should(Succeed())
}
