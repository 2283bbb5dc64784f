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

package e2e_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
)

var _ = Describe("rebalancing", func() {
	It("evicts through the Eviction API and stops where a real PodDisruptionBudget says so", func(ctx SpecContext) {
		m := startManager("berth-manager-rebalance")
		m.waitReady(ctx)
		ns := newNamespace(ctx)
		c := berthClient()
		// The replicas must all land on one node: nothing of earlier specs
		// may sway the bin-packing scores meanwhile.
		waitOtherSpecsGone(ctx, ns)

		// The bin-packing sample profile puts all four replicas on one node,
		// which RemoveDuplicates wants to spread out.
		d := makeDeployment(ns, "dup").replicas(4).scheduler(sampleScheduler).req("500m", "512Mi").obj()
		_, err := cluster.Clientset.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func(g Gomega) {
			counts, pods := countPods(ctx, ns)
			g.Expect(counts.running).To(Equal(4))
			nodes := map[string]bool{}
			for _, p := range pods {
				nodes[p.Spec.NodeName] = true
			}
			g.Expect(nodes).To(HaveLen(1), "the replicas are not on one node")
		}).WithTimeout(time.Minute).Should(Succeed())

		// The disruption controller, not the test, works out that no pod may go.
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dup"},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: ptr.To(intstr.FromInt32(4)),
				Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "dup"}},
			},
		}
		pdbs := cluster.Clientset.PolicyV1().PodDisruptionBudgets(ns)
		_, err = pdbs.Create(ctx, pdb, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func(g Gomega) {
			got, err := pdbs.Get(ctx, "dup", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Status.CurrentHealthy).To(BeEquivalentTo(4))
			g.Expect(got.Status.DisruptionsAllowed).To(BeEquivalentTo(0))
		}).WithTimeout(time.Minute).Should(Succeed())

		// Three duplicates are planned; the budget refuses every eviction.
		blocked := livePolicy(ns)
		Expect(c.Create(ctx, blocked)).To(Succeed())
		DeferCleanup(func() { _ = c.Delete(background(), blocked) })
		expectLastRun(ctx, c, blocked, map[v1alpha1.EvictionResult]int{v1alpha1.EvictionBlocked: 3})
		counts, _ := countPods(ctx, ns)
		Expect(counts.running).To(Equal(4), "a pod went although the budget allowed no disruption")

		// Without the budget, a new policy evicts the three, and the
		// ReplicaSet replaces them.
		Expect(pdbs.Delete(ctx, "dup", metav1.DeleteOptions{})).To(Succeed())
		free := livePolicy(ns)
		Expect(c.Create(ctx, free)).To(Succeed())
		DeferCleanup(func() { _ = c.Delete(background(), free) })
		expectLastRun(ctx, c, free, map[v1alpha1.EvictionResult]int{v1alpha1.EvictionEvicted: 3})
		Eventually(ctx, func() int {
			counts, _ := countPods(ctx, ns)
			return counts.running
		}).WithTimeout(time.Minute).Should(Equal(4))
	}, SpecTimeout(4*time.Minute))
})

// livePolicy is a RebalancePolicy that runs RemoveDuplicates on ns now and
// then hourly, evicting for real.
func livePolicy(ns string) *v1alpha1.RebalancePolicy {
	return &v1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-spread-"},
		Spec: v1alpha1.RebalancePolicySpec{
			Schedule:   v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}},
			DryRun:     ptr.To(false),
			Namespaces: &v1alpha1.NamespaceFilter{Include: []string{ns}},
			Strategies: []v1alpha1.Strategy{{Name: "RemoveDuplicates"}},
		},
	}
}

// expectLastRun waits for the policy's first run and checks its plan's results.
func expectLastRun(ctx SpecContext, c client.Client, policy *v1alpha1.RebalancePolicy, want map[v1alpha1.EvictionResult]int) {
	GinkgoHelper()
	Eventually(ctx, func(g Gomega) {
		var got v1alpha1.RebalancePolicy
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(policy), &got)).To(Succeed())
		g.Expect(got.Status.LastRun).NotTo(BeNil())
		g.Expect(got.Status.LastRun.CompletionTime).NotTo(BeNil())
		results := map[v1alpha1.EvictionResult]int{}
		for _, e := range got.Status.Plan {
			results[e.Result]++
		}
		g.Expect(results).To(Equal(want), "last run: %+v", got.Status.LastRun)
		g.Expect(got.Status.LastRun.Evicted).To(BeEquivalentTo(want[v1alpha1.EvictionEvicted]))
		g.Expect(got.Status.LastRun.Blocked).To(BeEquivalentTo(want[v1alpha1.EvictionBlocked]))
	}).WithTimeout(time.Minute).Should(Succeed())
}

// berthClient is a controller-runtime client that knows Berth's kinds.
func berthClient() client.Client {
	GinkgoHelper()
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	c, err := client.New(cluster.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}
