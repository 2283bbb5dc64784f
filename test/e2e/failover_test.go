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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leaseName is the managers' leader-election Lease.
const leaseName = "berth.scheduling.berth.io"

// failoverBudget is how soon after the leader dies the standby must bind again.
const failoverBudget = 20 * time.Second

func spew(c podCounts) string {
	return fmt.Sprintf("%d total, %d bound, %d Running", c.total, c.bound, c.running)
}

func leaseHolder(ctx SpecContext) string {
	lease, err := cluster.Clientset.CoordinationV1().Leases(leaseNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

var _ = Describe("leader failover", func() {
	It("keeps scheduling within 20 s after the leader is killed, and binds no pod twice", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		// The first replica is the leader: it starts alone and binds pods.
		leader := startManager("berth-manager-a")
		leader.waitReady(ctx)
		Eventually(ctx, leaseHolder).ShouldNot(BeEmpty())
		firstHolder := leaseHolder(ctx)

		d := makeDeployment(ns, "failover").replicas(20).scheduler(sampleScheduler).req("100m", "128Mi").obj()
		_, err := cluster.Clientset.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func() int { c, _ := countPods(ctx, ns); return c.bound }).
			WithTimeout(time.Minute).Should(Equal(20), "the leader binds the first 20 pods")

		standby := startManager("berth-manager-b")
		standby.waitReady(ctx)
		Consistently(ctx, leaseHolder).WithTimeout(3*time.Second).Should(Equal(firstHolder), "the standby must not take a held lease")

		// Kill the leader as a crash would: it cannot release the lease.
		leader.Kill()
		killed := time.Now()
		scale, err := cluster.Clientset.AppsV1().Deployments(ns).GetScale(ctx, "failover", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		scale.Spec.Replicas = 40
		_, err = cluster.Clientset.AppsV1().Deployments(ns).UpdateScale(ctx, "failover", scale, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Eventually(ctx, func() int { c, _ := countPods(ctx, ns); return c.bound }).
			WithTimeout(failoverBudget).WithPolling(200*time.Millisecond).Should(BeNumerically(">", 20),
			"the standby binds a new pod within %v of the leader's death", failoverBudget)
		GinkgoWriter.Printf("the standby bound its first pod %v after the leader was killed\n", time.Since(killed).Round(time.Millisecond))
		Expect(standby.Exited()).To(BeFalse())
		Expect(leaseHolder(ctx)).NotTo(Equal(firstHolder))

		var counts podCounts
		Eventually(ctx, func() int { counts, _ = countPods(ctx, ns); return counts.running }).
			WithTimeout(time.Minute).Should(Equal(40), func() string { return spew(counts) })
		_, pods := countPods(ctx, ns)
		expectEachPodBoundOnce(ctx, ns, pods)
	}, SpecTimeout(4*time.Minute))
})
