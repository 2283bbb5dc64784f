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

package controllers_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var _ = Describe("PodGroup", func() {
	It("reports Pending, Scheduling, Scheduled and Running as members appear, are bound and run", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang")
		nodes := createNodes(ctx, "gang", 2, "cpu", "4", "memory", "16Gi")
		createPodGroup(ctx, newPodGroup(ns, "trainers", 3).Obj())
		// No profile serves this schedulerName: the spec binds the members itself.
		member := func(name string) *st.PodBuilder { return newPod(ns, name, "gang-unserved").Group("trainers") }
		createPod(ctx, newPod(ns, "bystander", "gang-unserved").Obj())

		a, b := createPod(ctx, member("a").Obj()), createPod(ctx, member("b").Obj())
		pg := waitPodGroup(ctx, ns, "trainers", v1alpha1.PodGroupPending, 0, 0)
		expectPodGroupCondition(pg, v1alpha1.ConditionReady, metav1.ConditionFalse, controllers.ReasonAwaitingMembers)
		expectPodGroupCondition(pg, v1alpha1.ConditionReconciling, metav1.ConditionTrue, controllers.ReasonAwaitingMembers)

		c := createPod(ctx, member("c").Obj())
		waitPodGroup(ctx, ns, "trainers", v1alpha1.PodGroupScheduling, 0, 0)

		bind(ctx, a, nodes[0])
		bind(ctx, b, nodes[1])
		waitPodGroup(ctx, ns, "trainers", v1alpha1.PodGroupScheduling, 2, 0)
		bind(ctx, c, nodes[0])
		pg = waitPodGroup(ctx, ns, "trainers", v1alpha1.PodGroupScheduled, 3, 0)
		expectPodGroupCondition(pg, v1alpha1.ConditionReady, metav1.ConditionTrue, controllers.ReasonGangScheduled)
		expectPodGroupCondition(pg, v1alpha1.ConditionStalled, metav1.ConditionFalse, controllers.ReasonGangScheduled)

		for _, p := range []*corev1.Pod{a, b, c} {
			setPhase(ctx, ns, p.Name, corev1.PodRunning)
		}
		pg = waitPodGroup(ctx, ns, "trainers", v1alpha1.PodGroupRunning, 3, 3)
		expectPodGroupCondition(pg, v1alpha1.ConditionReady, metav1.ConditionTrue, controllers.ReasonGangRunning)

		// A larger gang is short of a member again: the new generation is observed.
		pg.Spec.SchedulingPolicy.Gang.MinCount = 4
		Expect(k8sClient.Update(ctx, pg)).To(Succeed())
		Expect(pg.Generation).To(BeEquivalentTo(2))
		pg = waitPodGroup(ctx, ns, "trainers", v1alpha1.PodGroupPending, 3, 3)
		expectPodGroupCondition(pg, v1alpha1.ConditionReady, metav1.ConditionFalse, controllers.ReasonAwaitingMembers)
	})

	It("reports Failed when a member fails and too few others remain", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gangfail")
		nodes := createNodes(ctx, "gangfail", 1, "cpu", "4", "memory", "16Gi")
		createPodGroup(ctx, newPodGroup(ns, "pair", 2).Obj())
		a := createPod(ctx, newPod(ns, "a", "gang-unserved").Group("pair").Obj())
		b := createPod(ctx, newPod(ns, "b", "gang-unserved").Group("pair").Obj())
		bind(ctx, a, nodes[0])
		bind(ctx, b, nodes[0])
		waitPodGroup(ctx, ns, "pair", v1alpha1.PodGroupScheduled, 2, 0)

		setPhase(ctx, ns, "b", corev1.PodFailed)
		pg := waitPodGroup(ctx, ns, "pair", v1alpha1.PodGroupFailed, 1, 0)
		expectPodGroupCondition(pg, v1alpha1.ConditionStalled, metav1.ConditionTrue, controllers.ReasonMemberFailed)

		// A replacement brings the gang back.
		createPod(ctx, newPod(ns, "b2", "gang-unserved").Group("pair").Obj())
		waitPodGroup(ctx, ns, "pair", v1alpha1.PodGroupScheduling, 1, 0)
	})

	It("keeps a PodGroup being deleted until none of its pods is left that has not finished", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gangprotect")
		nodes := createNodes(ctx, "gangprotect", 1, "cpu", "4", "memory", "16Gi")
		createPodGroup(ctx, newPodGroup(ns, "pair", 2).Obj())
		key := client.ObjectKey{Namespace: ns, Name: "pair"}
		var pg v1alpha1.PodGroup
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, &pg)).To(Succeed())
			g.Expect(pg.Finalizers).To(ContainElement(v1alpha1.PodGroupProtectionFinalizer))
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())

		a := createPod(ctx, newPod(ns, "a", "gang-unserved").Group("pair").Obj())
		b := createPod(ctx, newPod(ns, "b", "gang-unserved").Group("pair").Obj())
		bind(ctx, a, nodes[0])
		setPhase(ctx, ns, "a", corev1.PodSucceeded)
		Expect(k8sClient.Delete(ctx, &pg)).To(Succeed())
		// b is pending: the group stays, being deleted, with its status.
		Consistently(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, &pg)).To(Succeed())
			g.Expect(pg.DeletionTimestamp).NotTo(BeNil())
			g.Expect(pg.Finalizers).To(ContainElement(v1alpha1.PodGroupProtectionFinalizer))
		}).WithContext(ctx).WithTimeout(2 * time.Second).Should(Succeed())

		setPhase(ctx, ns, b.Name, corev1.PodFailed)
		Eventually(func() error { return k8sClient.Get(ctx, key, &pg) }).WithContext(ctx).WithTimeout(15*time.Second).
			Should(WithTransform(apierrors.IsNotFound, BeTrue()), "the group must go once its last pod has finished")
	})
})
