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

package rebalance_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func everything() labels.Selector { return labels.Everything() }

// tainted creates a node with taint and a clean node, named after prefix,
// and returns their names.
func tainted(ctx SpecContext, prefix, taint string) (string, string) {
	GinkgoHelper()
	createNode(ctx, st.Node(prefix+"-tainted").Hostname().Taint(taint, "", corev1.TaintEffectNoSchedule).Obj())
	createNode(ctx, st.Node(prefix+"-clean").Hostname().Obj())
	return prefix + "-tainted", prefix + "-clean"
}

var _ = Describe("RebalancePolicy", func() {
	It("lists the expected evictions in a dry run and makes no eviction call", func(ctx SpecContext) {
		ns := createNamespace(ctx, "dry")
		bad, good := tainted(ctx, "dry", "rebalance.test/dry")
		createPod(ctx, replicaPod(ns, "p1", bad).Obj())
		createPod(ctx, replicaPod(ns, "p2", bad).Obj())
		createPod(ctx, replicaPod(ns, "stays-clean", good).Obj())
		createPod(ctx, boundPod(ns, "stays-bare", bad).Obj())
		createPod(ctx, boundPod(ns, "stays-daemon", bad).Owner("apps/v1", "DaemonSet", "rs").Obj())
		waitForPods(ns, 5)
		before := evictionCalls.Load()

		createPolicy(ctx, taintPolicy("dry", ns, "rebalance.test/dry", true))
		status := lastRun(ctx, "dry")
		Expect(status.LastRun.DryRun).To(BeTrue())
		Expect(status.LastRun.Result).To(Equal(v1alpha1.RunSucceeded))
		Expect(status.LastRun.Planned).To(BeEquivalentTo(2))
		Expect(status.LastRun.Evicted).To(BeZero())
		Expect(plan(status)).To(Equal(map[string]v1alpha1.EvictionResult{"p1": v1alpha1.EvictionPlanned, "p2": v1alpha1.EvictionPlanned}))
		Expect(status.Plan[0].Strategy).To(BeEquivalentTo("RemovePodsViolatingNodeTaints"))
		Expect(status.Plan[0].Node).To(Equal(bad))
		Expect(meta.IsStatusConditionTrue(status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		Expect(status.NextRunTime).NotTo(BeNil())
		Expect(evictionCalls.Load()).To(Equal(before), "a dry run calls no Eviction API")
		Expect(terminating(ctx, ns, "p1", "p2")).To(BeEmpty())
	})

	It("keeps a gang at minMember whole: a member the strategy picks goes with the rest of its gang", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang")
		bad, good := tainted(ctx, "gang", "rebalance.test/gang")
		Expect(k8sClient.Create(ctx, &v1alpha1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "crew"},
			Spec:       v1alpha1.PodGroupSpec{MinMember: 2},
		})).To(Succeed())
		createPod(ctx, replicaPod(ns, "crew-1", bad).Group("crew").Obj())
		createPod(ctx, replicaPod(ns, "crew-2", good).Group("crew").Obj())
		createPod(ctx, replicaPod(ns, "loner", good).Obj())
		waitForPods(ns, 3)
		Eventually(func() bool {
			pod, err := podLister.Pods(ns).Get("crew-1")
			if err != nil {
				return false
			}
			gang, ok := gangs.GangOf(pod)
			return ok && len(gang.Bound) == 2
		}).WithTimeout(10*time.Second).Should(BeTrue(), "the scheduler sees the gang and its two bound members")

		createPolicy(ctx, taintPolicy("gang", ns, "rebalance.test/gang", true))
		status := lastRun(ctx, "gang")
		Expect(plan(status)).To(Equal(map[string]v1alpha1.EvictionResult{
			"crew-1": v1alpha1.EvictionPlanned, "crew-2": v1alpha1.EvictionPlanned,
		}), "crew-1 violates the taint; crew-2 goes with it rather than leave the gang below minMember")
		for _, e := range status.Plan {
			Expect(e.Reason).To(ContainSubstring("with all 2 members of gang podgroup.scheduling.berth.io/%s/crew", ns))
		}
	})

	It("evicts exactly the planned pods in live mode", func(ctx SpecContext) {
		ns := createNamespace(ctx, "live")
		bad, good := tainted(ctx, "live", "rebalance.test/live")
		createPod(ctx, replicaPod(ns, "p1", bad).Obj())
		createPod(ctx, replicaPod(ns, "p2", bad).Obj())
		createPod(ctx, replicaPod(ns, "stays-clean", good).Obj())
		createPod(ctx, boundPod(ns, "stays-bare", bad).Obj())
		createPod(ctx, boundPod(ns, "stays-daemon", bad).Owner("apps/v1", "DaemonSet", "rs").Obj())
		waitForPods(ns, 5)

		createPolicy(ctx, taintPolicy("live", ns, "rebalance.test/live", false))
		status := lastRun(ctx, "live")
		Expect(status.LastRun.DryRun).To(BeFalse())
		Expect(status.LastRun.Evicted).To(BeEquivalentTo(2))
		Expect(plan(status)).To(Equal(map[string]v1alpha1.EvictionResult{"p1": v1alpha1.EvictionEvicted, "p2": v1alpha1.EvictionEvicted}))
		Expect(terminating(ctx, ns, "p1", "p2", "stays-clean", "stays-bare", "stays-daemon")).To(ConsistOf("p1", "p2"))
	})

	It("records an eviction a PodDisruptionBudget refuses as blocked", func(ctx SpecContext) {
		ns := createNamespace(ctx, "pdb")
		bad, _ := tainted(ctx, "pdb", "rebalance.test/pdb")
		blockingPDB(ctx, ns, "guarded")
		createPod(ctx, replicaPod(ns, "guarded", bad).Label("app", "guarded").Obj())
		createPod(ctx, replicaPod(ns, "free", bad).Obj())
		waitForPods(ns, 2)

		createPolicy(ctx, taintPolicy("pdb", ns, "rebalance.test/pdb", false))
		status := lastRun(ctx, "pdb")
		Expect(status.LastRun.Blocked).To(BeEquivalentTo(1))
		Expect(status.LastRun.Evicted).To(BeEquivalentTo(1))
		Expect(status.LastRun.Result).To(Equal(v1alpha1.RunIncomplete))
		Expect(plan(status)).To(Equal(map[string]v1alpha1.EvictionResult{"guarded": v1alpha1.EvictionBlocked, "free": v1alpha1.EvictionEvicted}))
		Expect(terminating(ctx, ns, "guarded", "free")).To(ConsistOf("free"))
	})

	It("holds the limits of a run", func(ctx SpecContext) {
		ns := createNamespace(ctx, "limits")
		bad, _ := tainted(ctx, "limits", "rebalance.test/limits")
		names := []string{"p1", "p2", "p3", "p4", "p5"}
		for _, n := range names {
			createPod(ctx, replicaPod(ns, n, bad).Obj())
		}
		waitForPods(ns, len(names))

		p := taintPolicy("limits", ns, "rebalance.test/limits", false)
		p.Spec.Limits = &v1alpha1.EvictionLimits{MaxPodsToEvictPerNode: ptr.To[int32](3), MaxPodsToEvictTotal: ptr.To[int32](2)}
		createPolicy(ctx, p)
		status := lastRun(ctx, "limits")
		Expect(status.LastRun.Evicted).To(BeEquivalentTo(2))
		Expect(terminating(ctx, ns, names...)).To(HaveLen(2))
		results := map[v1alpha1.EvictionResult]int{}
		for _, e := range status.Plan {
			results[e.Result]++
		}
		Expect(results).To(Equal(map[v1alpha1.EvictionResult]int{v1alpha1.EvictionEvicted: 2, v1alpha1.EvictionSkipped: 3}))
	})

	It("keeps a pod whose only other node the profile's filters exclude, with nodeFit on", func(ctx SpecContext) {
		ns := createNamespace(ctx, "fit")
		createNode(ctx, st.Node("fit-tainted").Hostname().Label("rebalance.test/pool", "fit").Taint("rebalance.test/fit", "", corev1.TaintEffectNoSchedule).Obj())
		createNode(ctx, st.Node("fit-other").Hostname().Label("rebalance.test/pool", "fit").Taint("rebalance.test/other", "", corev1.TaintEffectNoSchedule).Obj())
		profile := &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: "fit-profile"}}
		Expect(k8sClient.Create(ctx, profile)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, profile)).To(Succeed()) })
		// Both pods may only run in the pool; only "moves" tolerates the other node's taint.
		createPod(ctx, replicaPod(ns, "stays", "fit-tainted").NodeSelector("rebalance.test/pool", "fit").Obj())
		createPod(ctx, replicaPod(ns, "moves", "fit-tainted").NodeSelector("rebalance.test/pool", "fit").Tolerate("rebalance.test/other").Obj())
		waitForPods(ns, 2)

		p := taintPolicy("fit", ns, "rebalance.test/fit", true)
		p.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: "fit-profile"}
		p.Spec.Evictor = &v1alpha1.EvictorOptions{NodeFit: true}
		createPolicy(ctx, p)
		status := lastRun(ctx, "fit")
		Expect(plan(status)).To(Equal(map[string]v1alpha1.EvictionResult{"moves": v1alpha1.EvictionPlanned}))
	})

	// The schema admits only the descheduler's strategy names; what it cannot
	// check, the args, the controller reports.
	It("reports a strategy with invalid args as Stalled/Invalid", func(ctx SpecContext) {
		p := &v1alpha1.RebalancePolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "unknown"},
			Spec: v1alpha1.RebalancePolicySpec{
				Schedule:   v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}},
				Strategies: []v1alpha1.Strategy{{Name: "PodLifeTime", Args: k8sruntime.RawExtension{Raw: []byte(`{"states":["Running"]}`)}}},
			},
		}
		createPolicy(ctx, p)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ConditionStalled)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(v1alpha1.ReasonInvalid))
			// The strategy named once; its args' problem at its field.
			g.Expect(c.Message).To(Equal("generation 1 is invalid: invalid args of strategy PodLifeTime: maxPodLifeTimeSeconds: Required value"))
			g.Expect(meta.IsStatusConditionFalse(p.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(10 * time.Second).Should(Succeed())
		Expect(p.Status.LastRun).To(BeNil())
	})
})
