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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var _ = Describe("SchedulingProfile", func() {
	It("switches from packing to spreading when the profile is edited, without a restart", func(ctx SpecContext) {
		ns := createNamespace(ctx, "edit")
		createNodes(ctx, "edit", 4, "cpu", "4", "memory", "16Gi")
		createProfile(ctx, newProfile("edit-switch").PluginArgs("NodeResourcesFit", fitArgs("MostAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 1).Obj())
		waitActive(ctx, "edit-switch")

		packed := createPods(ctx, 6, "pack", func(n string) *st.PodBuilder { return newPod(ns, n, "edit-switch") })
		placed := waitBound(ctx, ns, packed)
		Expect(distinct(placed, packed)).To(HaveLen(1), "MostAllocated packs 6 half-CPU pods on one node: %v", placed)

		gen := updateProfile(ctx, "edit-switch", func(p *v1alpha1.SchedulingProfile) { setFitStrategy(&p.Spec, "LeastAllocated") })
		Expect(waitActive(ctx, "edit-switch").Status.ActiveGeneration).To(Equal(gen))

		spread := createPods(ctx, 3, "spread", func(n string) *st.PodBuilder { return newPod(ns, n, "edit-switch") })
		placed2 := waitBound(ctx, ns, spread)
		nodes := distinct(placed2, spread)
		Expect(nodes).To(HaveLen(3), "LeastAllocated spreads: %v", placed2)
		Expect(nodes).NotTo(HaveKey(placed[packed[0]]), "the packed node is the most allocated")
	})

	It("switches from packing to spreading when a PluginWeight raises a scorer", func(ctx SpecContext) {
		ns := createNamespace(ctx, "weight")
		createNodes(ctx, "weight", 4, "cpu", "4", "memory", "16Gi")
		// Fit (MostAllocated) pulls pods together, InterPodAffinity (a
		// preferred anti-affinity to their own label) pushes them apart; Fit
		// weighs more until the PluginWeight lifts InterPodAffinity.
		createProfile(ctx, newProfile("weight-switch").PluginArgs("NodeResourcesFit", fitArgs("MostAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 20).Weight("score", "InterPodAffinity", 1).Obj())
		waitActive(ctx, "weight-switch")
		mk := func(n string) *st.PodBuilder {
			return newPod(ns, n, "weight-switch").Label("app", "web").PreferPodAntiAffinity(100, st.Term(corev1.LabelHostname, "app", "web"))
		}

		packed := createPods(ctx, 4, "pack", mk)
		placed := waitBound(ctx, ns, packed)
		Expect(distinct(placed, packed)).To(HaveLen(1), "Fit dominates: %v", placed)

		createWeight(ctx, "weight-switch-spread", "weight-switch", "InterPodAffinity", 100)
		waitApplied(ctx, "weight-switch-spread", metav1.ConditionTrue, "Applied")
		p := waitActive(ctx, "weight-switch")
		ipa := effective(p, "InterPodAffinity")
		Expect(ipa).NotTo(BeNil())
		Expect(ipa.Weight).To(BeEquivalentTo(100))
		Expect(ipa.WeightSource).To(Equal(v1alpha1.WeightSourcePluginWeight))
		Expect(ipa.PluginWeight).To(Equal("weight-switch-spread"))
		Expect(effective(p, "NodeResourcesFit").WeightSource).To(Equal(v1alpha1.WeightSourceProfile))
		Expect(p.Status.ActiveGeneration).To(BeEquivalentTo(1), "a PluginWeight does not change the profile's generation")

		spread := createPods(ctx, 3, "spread", mk)
		placed2 := waitBound(ctx, ns, spread)
		nodes := distinct(placed2, spread)
		Expect(nodes).To(HaveLen(3), "InterPodAffinity dominates: %v", placed2)
		Expect(nodes).NotTo(HaveKey(placed[packed[0]]))
	})

	It("binds 500 pending pods exactly once across 20 profile swaps", func(ctx SpecContext) {
		ns := createNamespace(ctx, "swaps")
		nodeNames := createNodes(ctx, "swaps", 10, "cpu", "4", "memory", "16Gi")
		createProfile(ctx, newProfile("swaps").PluginArgs("NodeResourcesFit", fitArgs("MostAllocated")).Obj())
		waitActive(ctx, "swaps")

		const pods = 500
		var wg sync.WaitGroup
		names := make([]string, pods)
		for w := range 5 {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				for i := w; i < pods; i += 5 {
					names[i] = fmt.Sprintf("p-%03d", i)
					createPod(ctx, newPod(ns, names[i], "swaps").Req("cpu", "70m").Obj())
				}
			}()
		}
		strategies := []string{"LeastAllocated", "MostAllocated"}
		for i := range 20 {
			updateProfile(ctx, "swaps", func(p *v1alpha1.SchedulingProfile) { setFitStrategy(&p.Spec, strategies[i%2]) })
			time.Sleep(50 * time.Millisecond)
		}
		wg.Wait()
		Expect(waitActive(ctx, "swaps").Status.ActiveGeneration).To(BeEquivalentTo(21))
		placed := waitBound(ctx, ns, names)

		// No node holds more than it can.
		used := map[string]int64{}
		for _, node := range placed {
			used[node] += 70
		}
		for _, n := range nodeNames {
			Expect(used[n]).To(BeNumerically("<=", 4000), "node %s holds %dm CPU", n, used[n])
		}
		// One Scheduled event per pod, never more.
		Eventually(func(g Gomega) {
			evs, err := clientset.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=Scheduled"})
			g.Expect(err).NotTo(HaveOccurred())
			perPod := map[types.UID]int{}
			for _, e := range evs.Items {
				n := 1
				if e.Series != nil {
					n = int(e.Series.Count)
				}
				perPod[e.Regarding.UID] += n
			}
			g.Expect(perPod).To(HaveLen(pods))
			for uid, n := range perPod {
				g.Expect(n).To(Equal(1), "pod %s was scheduled %d times", uid, n)
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("keeps the last good generation live when an update is invalid", func(ctx SpecContext) {
		ns := createNamespace(ctx, "invalid")
		createNodes(ctx, "invalid", 2, "cpu", "4", "memory", "16Gi")
		createProfile(ctx, newProfile("invalid").Obj())
		waitActive(ctx, "invalid")

		edits := []struct {
			what string
			edit func(*v1alpha1.SchedulingProfile)
			want string
		}{
			{"an unknown plugin", func(p *v1alpha1.SchedulingProfile) {
				p.Spec.Plugins = &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}
			}, `unknown plugin "NoSuchPlugin"`},
			{"bad args", func(p *v1alpha1.SchedulingProfile) {
				p.Spec.Plugins = nil
				setFitStrategy(&p.Spec, "NoSuchStrategy")
			}, "NoSuchStrategy"},
		}
		for i, e := range edits {
			By("an update with " + e.what)
			gen := updateProfile(ctx, "invalid", e.edit)
			p := waitCondition(ctx, "invalid", v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonInvalid)
			Expect(p.Status.ActiveGeneration).To(BeEquivalentTo(1))
			ready := findCondition(p, v1alpha1.ConditionReady)
			Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			Expect(ready.Message).To(ContainSubstring(fmt.Sprintf("generation %d is invalid: ", gen)))
			Expect(ready.Message).To(ContainSubstring(e.want))
			Expect(ready.Message).To(HaveSuffix("generation 1 stays live"))

			name := fmt.Sprintf("still-served-%d", i)
			waitBound(ctx, ns, []string{createPod(ctx, newPod(ns, name, "invalid").Obj()).Name})
			Expect(sched.Profile("invalid").Generation).To(BeEquivalentTo(1))
		}
		Eventually(func(g Gomega) {
			evs, err := clientset.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "reason=InvalidProfile"})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(evs.Items).NotTo(BeEmpty())
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())

		By("a fixed update goes live")
		gen := updateProfile(ctx, "invalid", func(p *v1alpha1.SchedulingProfile) { setFitStrategy(&p.Spec, "LeastAllocated") })
		Expect(waitActive(ctx, "invalid").Status.ActiveGeneration).To(Equal(gen))
	})

	It("reports a conflicting schedulerName and hands it over when the older profile goes", func(ctx SpecContext) {
		ns := createNamespace(ctx, "conflict")
		createNodes(ctx, "conflict", 1, "cpu", "4", "memory", "16Gi")
		// Names order like ages, in case both land in one second.
		createProfile(ctx, newProfile("conflict-a").SchedulerName("shared").Obj())
		waitActive(ctx, "conflict-a")
		createProfile(ctx, newProfile("conflict-b").SchedulerName("shared").PluginArgs("NodeResourcesFit", fitArgs("MostAllocated")).Obj())
		p := waitCondition(ctx, "conflict-b", v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonConflict)
		Expect(findCondition(p, v1alpha1.ConditionStalled).Message).To(Equal("schedulerName shared is already served by SchedulingProfile conflict-a"))
		Expect(p.Status.ActiveGeneration).To(BeZero())
		Expect(sched.Profile("shared").Source).To(Equal("conflict-a"))

		Expect(k8sClient.Delete(ctx, &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: "conflict-a"}})).To(Succeed())
		waitActive(ctx, "conflict-b")
		Expect(sched.Profile("shared").Source).To(Equal("conflict-b"))
		waitBound(ctx, ns, []string{createPod(ctx, newPod(ns, "served", "shared").Obj()).Name})
	})

	It("reports conflicting PluginWeights and weights on plugins that do not score", func(ctx SpecContext) {
		createProfile(ctx, newProfile("weights").Label("team", "platform").Obj())
		waitActive(ctx, "weights")
		createWeight(ctx, "weights-a", "weights", "TaintToleration", 7)
		waitApplied(ctx, "weights-a", metav1.ConditionTrue, "Applied")
		createWeight(ctx, "weights-b", "weights", "TaintToleration", 9)
		createWeight(ctx, "weights-c", "weights", "NodeName", 5)

		b := waitApplied(ctx, "weights-b", metav1.ConditionFalse, v1alpha1.ReasonConflict)
		Expect(findApplied(b).Message).To(ContainSubstring("PluginWeight weights-a, which is older, already sets TaintToleration in SchedulingProfile weights"))
		c := waitApplied(ctx, "weights-c", metav1.ConditionFalse, "PluginNotScoring")
		Expect(findApplied(c).Message).To(Equal("plugin NodeName does not score in SchedulingProfile weights"))
		a := waitApplied(ctx, "weights-a", metav1.ConditionTrue, "Applied")
		Expect(a.Status.AppliedTo).To(Equal([]string{"weights"}))
		Expect(effective(getProfile(ctx, "weights"), "TaintToleration").Weight).To(BeEquivalentTo(7))

		By("the older weight goes: the newer one applies")
		Expect(k8sClient.Delete(ctx, &v1alpha1.PluginWeight{ObjectMeta: metav1.ObjectMeta{Name: "weights-a"}})).To(Succeed())
		waitApplied(ctx, "weights-b", metav1.ConditionTrue, "Applied")
		Eventually(func() int32 { return effective(getProfile(ctx, "weights"), "TaintToleration").Weight }).
			WithContext(ctx).WithTimeout(10 * time.Second).Should(BeEquivalentTo(9))
	})

	It("parks the pending pods of a deleted profile with a reason and binds them when it returns", func(ctx SpecContext) {
		ns := createNamespace(ctx, "delete")
		createProfile(ctx, newProfile("delete-me").Obj())
		waitActive(ctx, "delete-me")
		// No node fits yet: the pods wait in the queue.
		pending := createPods(ctx, 3, "waiting", func(n string) *st.PodBuilder { return newPod(ns, n, "delete-me").Req("cpu", "8") })
		Eventually(func(g Gomega) {
			for _, name := range pending {
				pod, err := clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(podScheduled(pod)).NotTo(BeNil())
			}
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())

		Expect(k8sClient.Delete(ctx, &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: "delete-me"}})).To(Succeed())
		Eventually(func(g Gomega) {
			for _, name := range pending {
				pod, err := clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				c := podScheduled(pod)
				g.Expect(c).NotTo(BeNil())
				g.Expect(c.Status).To(Equal(corev1.ConditionFalse))
				g.Expect(c.Reason).To(Equal(corev1.PodReasonUnschedulable))
				g.Expect(c.Message).To(Equal(`no SchedulingProfile serves schedulerName "delete-me"`))
			}
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())

		createNodes(ctx, "delete", 3, "cpu", "10", "memory", "16Gi")
		createProfile(ctx, newProfile("delete-me").Obj())
		waitActive(ctx, "delete-me")
		waitBound(ctx, ns, pending)
	})
})

func findCondition(p *v1alpha1.SchedulingProfile, typ string) metav1.Condition {
	GinkgoHelper()
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	Fail("no condition " + typ)
	return metav1.Condition{}
}

func findApplied(pw *v1alpha1.PluginWeight) metav1.Condition {
	GinkgoHelper()
	for _, c := range pw.Status.Conditions {
		if c.Type == v1alpha1.ConditionApplied {
			return c
		}
	}
	Fail("no Applied condition")
	return metav1.Condition{}
}

func podScheduled(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodScheduled {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}
