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
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/workload"
)

// These specs run Berth's own PodGroups (scheduling.berth.io) through the
// group cycle that serves Kubernetes' own; the workloads suite compares
// both with kube-scheduler scenario by scenario.
var _ = Describe("Gang scheduling with Berth's PodGroups", func() {
	It("binds nobody of a gang of 8 with room for 7, says so on the group, and binds all 8 once a node is added", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang")
		createPodGroup(ctx, newPodGroup(ns, "train", 8).Obj())
		createNode(ctx, newNode("gang-1").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("gang-2").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		startGangScheduler(ctx)

		for i := range 8 {
			createPod(ctx, newPod(ns, fmt.Sprintf("worker-%d", i)).Requests("cpu", "1", "memory", "128Mi").Group("train").Obj())
		}
		Eventually(func(g Gomega) {
			g.Expect(schedulingMessages(ctx, g, ns)).To(HaveLen(8))
			cond := berthGroupCondition(ctx, g, ns, "train")
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(cond.Reason).To(Equal(schedulingv1beta1.PodGroupReasonUnschedulable))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(100 * time.Millisecond).Should(BeEmpty())

		createNode(ctx, newNode("gang-3").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(60 * time.Second).Should(HaveLen(8))
		Eventually(func(g Gomega) {
			cond := berthGroupCondition(ctx, g, ns, "train")
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
	})

	It("keeps the whole gang in one rack of its topology key", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-rack")
		createPodGroup(ctx, newPodGroup(ns, "ring", 4).Topology("test.berth.io/rack").Obj())
		// Rack a has room for three, rack b for four: only rack b holds the gang.
		createNode(ctx, newNode("gang-rack-a1").Label("test.berth.io/rack", "a").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("gang-rack-a2").Label("test.berth.io/rack", "a").Alloc("cpu", "1", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("gang-rack-b1").Label("test.berth.io/rack", "b").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("gang-rack-b2").Label("test.berth.io/rack", "b").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		startGangScheduler(ctx)

		for i := range 4 {
			createPod(ctx, newPod(ns, fmt.Sprintf("r-%d", i)).Requests("cpu", "1", "memory", "128Mi").Group("ring").Obj())
		}
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(4))
		pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		for _, p := range pods.Items {
			Expect(p.Spec.NodeName).To(HavePrefix("gang-rack-b"), "pod %s", p.Name)
		}
	})

	It("binds one of two gangs that compete for room, and none of the other", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-race")
		createPodGroup(ctx, newPodGroup(ns, "blue", 4).Obj())
		createPodGroup(ctx, newPodGroup(ns, "green", 4).Obj())
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
			WithContext(ctx).WithTimeout(3 * time.Second).Should(And(HaveLen(4), HaveEach(HavePrefix(winner+"-"))))
	})

	It("reads the deprecated minMember as minCount: members wait until the gang has its pods", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-few")
		createPodGroup(ctx, newPodGroup(ns, "trio", 0).MinMember(3).Obj())
		createNode(ctx, newNode("gang-few-1").Obj())
		startGangScheduler(ctx)

		for i := range 2 {
			createPod(ctx, newPod(ns, fmt.Sprintf("m-%d", i)).Group("trio").Obj())
		}
		// As kube-scheduler, nothing is written to a member held back
		// before its group's cycle (berth explain says why it waits).
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(3 * time.Second).Should(BeEmpty())

		createPod(ctx, newPod(ns, "m-2").Group("trio").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(3))
	})

	It("holds a member whose PodGroup does not exist yet, and binds it once the group is created", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-missing")
		createNode(ctx, newNode("gang-missing-1").Obj())
		startGangScheduler(ctx)

		createPod(ctx, newPod(ns, "orphan").Group("nowhere").Obj())
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(3 * time.Second).Should(BeEmpty())
		createPodGroup(ctx, newPodGroup(ns, "nowhere", 1).Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(1))
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

// startGangScheduler runs a scheduler with the default profile that watches Berth's PodGroups.
func startGangScheduler(ctx context.Context, opts ...scheduler.Option) {
	GinkgoHelper()
	c, err := workload.NewBerthClient(cfg)
	Expect(err).NotTo(HaveOccurred())
	startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()},
		append([]scheduler.Option{scheduler.WithPodGroupClient(c)}, opts...)...)
}

// berthGroupCondition reads the PodGroupInitiallyScheduled condition of
// one of Berth's PodGroups, nil while it has none.
func berthGroupCondition(ctx context.Context, g Gomega, ns, name string) *metav1.Condition {
	c, err := berthClient()
	g.Expect(err).NotTo(HaveOccurred())
	var pg v1alpha1.PodGroup
	g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &pg)).To(Succeed())
	return apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
}

// berthClient is a client for Berth's kinds.
func berthClient() (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// newPodGroup is a PodGroup without the UID and generation the apiserver assigns.
func newPodGroup(namespace, name string, minCount int32) *st.PodGroupBuilder {
	return st.PodGroup(name, minCount).UID("").Generation(0).Namespace(namespace)
}

// createPodGroup creates a copy of the PodGroup; its namespace's deletion removes it.
func createPodGroup(ctx context.Context, pg *v1alpha1.PodGroup) {
	GinkgoHelper()
	c, err := berthClient()
	Expect(err).NotTo(HaveOccurred())
	pg = pg.DeepCopy()
	Expect(c.Create(ctx, pg)).To(Succeed(), "creating PodGroup %s/%s", pg.Namespace, pg.Name)
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
