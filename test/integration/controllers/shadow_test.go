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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

var _ = Describe("Shadow SchedulingProfile", func() {
	// placeOneByOne creates n pods for schedulerName, each once the one
	// before is bound, so the shadow's worker is free for every one.
	placeOneByOne := func(ctx SpecContext, ns, prefix, schedulerName string, n int) map[string]string {
		placed := map[string]string{}
		for i := range n {
			name := fmt.Sprintf("%s-%d", prefix, i)
			createPod(ctx, newPod(ns, name, schedulerName).Req("cpu", "500m").Obj())
			for pod, node := range waitBound(ctx, ns, []string{name}) {
				placed[pod] = node
			}
		}
		return placed
	}
	// waitShadow waits until the shadow's status has counted n attempts.
	waitShadow := func(ctx SpecContext, name string, n int64) *v1alpha1.ShadowStatus {
		GinkgoHelper()
		var st *v1alpha1.ShadowStatus
		Eventually(func(g Gomega) {
			st = getProfile(ctx, name).Status.Shadow
			g.Expect(st).NotTo(BeNil())
			g.Expect(st.Evaluated+st.Dropped).To(BeEquivalentTo(n), "%+v", st)
		}).WithContext(ctx).WithTimeout(20 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		return st
	}

	It("agrees on every pod when it is identical to the live profile", func(ctx SpecContext) {
		ns := createNamespace(ctx, "twin")
		createNodes(ctx, "twin-small", 2, "cpu", "4", "memory", "16Gi")
		createNodes(ctx, "twin-big", 2, "cpu", "16", "memory", "64Gi")
		createProfile(ctx, newProfile("twin-live").PluginArgs("NodeResourcesFit", fitArgs("LeastAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 2).Weight("score", "NodeResourcesBalancedAllocation", 1).Obj())
		waitActive(ctx, "twin-live")
		createProfile(ctx, newProfile("twin-shadow").ShadowOf("twin-live").PluginArgs("NodeResourcesFit", fitArgs("LeastAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 2).Weight("score", "NodeResourcesBalancedAllocation", 1).Obj())
		p := waitCondition(ctx, "twin-shadow", v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonShadowing)
		Expect(p.Status.SchedulerName).To(BeEmpty(), "a shadow serves no schedulerName")
		Expect(p.Status.ActiveGeneration).To(Equal(p.Generation))

		placeOneByOne(ctx, ns, "twin", "twin-live", 10)
		st := waitShadow(ctx, "twin-shadow", 10)
		Expect(st.Of).To(Equal("twin-live"))
		Expect(st.LiveProfile).To(Equal("twin-live"))
		Expect(st.Evaluated).To(BeEquivalentTo(10), "each pod was placed with the worker free: %+v", st)
		Expect(st.Agreed).To(Equal(st.Evaluated))
		Expect(st.AgreementPercent).To(Equal("100.0"))
		Expect(st.Disagreed + st.ShadowUnschedulable + st.LiveUnschedulable + st.Errors).To(BeZero())
		Expect(st.RecentDisagreements).To(BeEmpty())
	})

	It("disagrees with MostAllocated against LeastAllocated on a mixed cluster and names NodeResourcesFit", func(ctx SpecContext) {
		ns := createNamespace(ctx, "pack")
		small := createNodes(ctx, "pack-small", 2, "cpu", "4", "memory", "16Gi")
		big := createNodes(ctx, "pack-big", 2, "cpu", "16", "memory", "64Gi")
		// Half of each small node is taken: MostAllocated prefers them,
		// LeastAllocated the empty big ones.
		for i, node := range small {
			createPod(ctx, newPod(ns, fmt.Sprintf("load-%d", i), "spread-live").Req("cpu", "2").NodeName(node).Obj())
		}
		createProfile(ctx, newProfile("spread-live").PluginArgs("NodeResourcesFit", fitArgs("LeastAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 2).Weight("score", "NodeResourcesBalancedAllocation", 1).Obj())
		waitActive(ctx, "spread-live")
		createProfile(ctx, newProfile("pack-shadow").ShadowOf("spread-live").PluginArgs("NodeResourcesFit", fitArgs("MostAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 2).Weight("score", "NodeResourcesBalancedAllocation", 1).Obj())
		waitCondition(ctx, "pack-shadow", v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonShadowing)

		placed := placeOneByOne(ctx, ns, "pack", "spread-live", 6)
		for pod, node := range placed {
			Expect(big).To(ContainElement(node), "LeastAllocated places %s on a big node", pod)
		}
		st := waitShadow(ctx, "pack-shadow", 6)
		Expect(st.Evaluated).To(BeEquivalentTo(6), "%+v", st)
		Expect(st.Disagreed).To(BeEquivalentTo(6), "MostAllocated would fill a small node every time: %+v", st)
		Expect(st.AgreementPercent).To(Equal("0.0"))
		Expect(st.DecidingPlugins).NotTo(BeEmpty())
		Expect(st.DecidingPlugins[0]).To(Equal(v1alpha1.ShadowPluginCount{Plugin: "NodeResourcesFit", Disagreements: 6}))
		Expect(st.RecentDisagreements).To(HaveLen(6))
		for _, d := range st.RecentDisagreements {
			Expect(d.LiveNode).To(Equal(placed[d.Pod[len(ns)+1:]]), "the live node of %s", d.Pod)
			Expect(small).To(ContainElement(d.ShadowNode), "the shadow packs %s on a small node", d.Pod)
			Expect(d.DecidingPlugins).To(ContainElement("NodeResourcesFit"))
		}
	})

	It("never binds a pod, not even one addressed to its own name", func(ctx SpecContext) {
		ns := createNamespace(ctx, "nobind")
		createNodes(ctx, "nobind", 2, "cpu", "4", "memory", "16Gi")
		createProfile(ctx, newProfile("nobind-live").Obj())
		waitActive(ctx, "nobind-live")
		createProfile(ctx, newProfile("nobind-shadow").ShadowOf("nobind-live").Obj())
		waitCondition(ctx, "nobind-shadow", v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonShadowing)

		createPod(ctx, newPod(ns, "to-shadow", "nobind-shadow").Req("cpu", "100m").Obj())
		placeOneByOne(ctx, ns, "live", "nobind-live", 3)
		waitShadow(ctx, "nobind-shadow", 3)
		Consistently(func(g Gomega) {
			pod, err := clientset.CoreV1().Pods(ns).Get(ctx, "to-shadow", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pod.Spec.NodeName).To(BeEmpty(), "a shadow binds no pod")
		}).WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(300 * time.Millisecond).Should(Succeed())
		// Evaluating the live profile's pods bound none of them twice or elsewhere.
		p := getProfile(ctx, "nobind-shadow")
		Expect(p.Status.Shadow.Evaluated).To(BeEquivalentTo(3))
		Expect(p.Status.Shadow.Agreed).To(BeEquivalentTo(3))
		Expect(sched.ParkedPods()).To(BeNumerically(">=", 1), "the pod for the shadow's name waits for a profile of that name")
	})
})
