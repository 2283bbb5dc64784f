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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/gang"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var _ = Describe("Gang scheduling with PodGroups", func() {
	It("binds nobody of a gang of 8 with room for 7, and all 8 once a node is added", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang")
		createPodGroup(ctx, newPodGroup(ns, "train", 8).ScheduleTimeout(3).Obj())
		createNode(ctx, newNode("gang-1").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("gang-2").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		startGangScheduler(ctx)

		for i := range 8 {
			createPod(ctx, newPod(ns, fmt.Sprintf("worker-%d", i)).Requests("cpu", "1", "memory", "128Mi").Group("train").Obj())
		}
		// Seven members fit; the eighth fits nowhere and releases them, again
		// each time they are retried, so nobody binds.
		Eventually(func(g Gomega) {
			msgs := schedulingMessages(ctx, g, ns)
			g.Expect(msgs).To(ContainElement(ContainSubstring("Insufficient cpu")))
			g.Expect(msgs).To(ContainElement(ContainSubstring("pod group " + ns + "/train")))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(8 * time.Second).WithPolling(100 * time.Millisecond).Should(BeEmpty())

		createNode(ctx, newNode("gang-3").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(60 * time.Second).Should(HaveLen(8))
	})

	It("releases waiting members at the timeout, and binds the gang once its last member can be scheduled", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-timeout")
		createPodGroup(ctx, newPodGroup(ns, "trio", 3).ScheduleTimeout(2).Obj())
		createNode(ctx, newNode("gang-timeout-1").Obj())
		startGangScheduler(ctx)

		// The third member exists, so the gang passes PreFilter, but its
		// scheduling gate keeps it from ever reaching Permit: the two placed
		// members wait there until the first to time out releases the other
		// (or both time out together).
		createPod(ctx, newPod(ns, "m-0").Group("trio").Obj())
		createPod(ctx, newPod(ns, "m-1").Group("trio").Obj())
		gated := createPod(ctx, newPod(ns, "m-2").Group("trio").Gates("test.berth.io/hold").Obj())
		Eventually(func(g Gomega) {
			const timedOut = "rejected due to timeout after waiting 2s at plugin GangScheduling"
			released := "pod group " + ns + "/trio was released: member m-"
			msgs := schedulingMessages(ctx, g, ns)
			g.Expect(msgs).To(ContainElement(ContainSubstring(timedOut)))
			for _, m := range []string{"m-0: ", "m-1: "} {
				g.Expect(msgs).To(ContainElement(And(HavePrefix(m+"0/1 nodes are available: 1 "),
					Or(ContainSubstring(timedOut), ContainSubstring(released)))))
			}
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Expect(boundMembers(ctx, ns)).To(BeEmpty())

		gated.Spec.SchedulingGates = nil
		_, err := clientset.CoreV1().Pods(ns).Update(ctx, gated, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(3))
	})

	It("binds one of two gangs that compete for room, and none of the other", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-race")
		createPodGroup(ctx, newPodGroup(ns, "blue", 4).ScheduleTimeout(2).Obj())
		createPodGroup(ctx, newPodGroup(ns, "green", 4).ScheduleTimeout(2).Obj())
		createNode(ctx, newNode("gang-race-1").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("gang-race-2").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		for i := range 4 {
			for _, group := range []string{"blue", "green"} {
				createPod(ctx, newPod(ns, fmt.Sprintf("%s-%d", group, i)).Requests("cpu", "1", "memory", "128Mi").Group(group).Obj())
			}
		}
		startGangScheduler(ctx)

		// Room for six: one whole gang of four binds; the other, which would
		// need two more CPUs, binds nobody.
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(4))
		bound, err := boundMembers(ctx, ns)
		Expect(err).NotTo(HaveOccurred())
		winner := strings.Split(bound[0], "-")[0]
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(5 * time.Second).Should(And(HaveLen(4), HaveEach(HavePrefix(winner+"-"))))
	})

	It("keeps members pending while the gang has fewer than minMember pods", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-few")
		createPodGroup(ctx, newPodGroup(ns, "trio", 3).Obj())
		createNode(ctx, newNode("gang-few-1").Obj())
		startGangScheduler(ctx)

		for i := range 2 {
			createPod(ctx, newPod(ns, fmt.Sprintf("m-%d", i)).Group("trio").Obj())
		}
		Eventually(func(g Gomega) {
			g.Expect(schedulingMessages(ctx, g, ns)).To(HaveEach(ContainSubstring("pod group " + ns + "/trio has 2 of the 3 pods it needs")))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Expect(boundMembers(ctx, ns)).To(BeEmpty())

		createPod(ctx, newPod(ns, "m-2").Group("trio").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(3))
	})

	It("binds a gang larger than the binding concurrency", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-wide")
		createPodGroup(ctx, newPodGroup(ns, "wide", 6).Obj())
		createNode(ctx, newNode("gang-wide-1").Obj())
		// Members waiting at Permit must not hold the two binding slots.
		startGangScheduler(ctx, scheduler.WithBindingConcurrency(2))

		for i := range 6 {
			createPod(ctx, newPod(ns, fmt.Sprintf("w-%d", i)).Group("wide").Obj())
		}
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(6))
	})
})

// startGangScheduler runs a scheduler with the default profile that watches PodGroups.
func startGangScheduler(ctx context.Context, opts ...scheduler.Option) {
	GinkgoHelper()
	lw, err := gang.NewListWatch(cfg)
	Expect(err).NotTo(HaveOccurred())
	startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()},
		append([]scheduler.Option{scheduler.WithPodGroupSource(lw)}, opts...)...)
}

// newPodGroup is a PodGroup without the UID and generation the apiserver assigns.
func newPodGroup(namespace, name string, minMember int32) *st.PodGroupBuilder {
	return st.PodGroup(name, minMember).UID("").Generation(0).Namespace(namespace)
}

// createPodGroup creates a copy of the PodGroup; its namespace's deletion removes it.
func createPodGroup(ctx context.Context, pg *v1alpha1.PodGroup) *v1alpha1.PodGroup {
	GinkgoHelper()
	scheme := runtime.NewScheme()
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	pg = pg.DeepCopy()
	Expect(c.Create(ctx, pg)).To(Succeed(), "creating PodGroup %s/%s", pg.Namespace, pg.Name)
	return pg
}

// boundMembers lists the names of the namespace's pods that have a node.
func boundMembers(ctx context.Context, ns string) ([]string, error) {
	pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var bound []string
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			bound = append(bound, p.Name)
		}
	}
	return bound, nil
}

// schedulingMessages returns the PodScheduled=False messages of the
// namespace's pods; every pod must have one.
func schedulingMessages(ctx context.Context, g Gomega, ns string) []string {
	pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var msgs []string
	for _, p := range pods.Items {
		cond := podScheduledCondition(&p)
		g.Expect(cond).NotTo(BeNil(), "pod %s has no PodScheduled condition", p.Name)
		if cond.Status == corev1.ConditionFalse {
			msgs = append(msgs, p.Name+": "+cond.Message)
		}
	}
	GinkgoWriter.Println(strings.Join(msgs, "\n"))
	return msgs
}
