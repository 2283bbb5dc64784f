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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sampleScheduler is the schedulerName of config/samples' SchedulingProfile.
const sampleScheduler = "bin-packing"

var _ = Describe("placement", func() {
	It("runs all 50 replicas of a Deployment that a Berth profile places", func(ctx SpecContext) {
		m := startManager("berth-manager-placement")
		m.waitReady(ctx)
		ns := newNamespace(ctx)

		start := time.Now()
		d := makeDeployment(ns, "web").replicas(50).scheduler(sampleScheduler).req("500m", "512Mi").obj()
		_, err := cluster.Clientset.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		var counts podCounts
		Eventually(ctx, func() int {
			counts, _ = countPods(ctx, ns)
			return counts.running
		}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(Equal(50), func() string {
			return "pods: " + spew(counts)
		})
		GinkgoWriter.Printf("50 pods Running %v after the Deployment was created\n", time.Since(start).Round(time.Millisecond))

		_, pods := countPods(ctx, ns)
		Expect(pods).To(HaveLen(50))
		for _, p := range pods {
			Expect(p.Spec.SchedulerName).To(Equal(sampleScheduler))
		}
		expectEachPodBoundOnce(ctx, ns, pods)
	}, SpecTimeout(4*time.Minute))
})
