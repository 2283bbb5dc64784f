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

package install_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What config/default installs: namespace berth-system, names prefixed berth-.
const (
	kustomizeNamespace  = "berth-system"
	kustomizeDeployment = "berth-controller-manager"
	// sampleScheduler is config/samples' SchedulingProfile.
	sampleScheduler = "bin-packing"
)

func kustomizeSpecs() {
	var managers *deploymentPods

	BeforeAll(func(ctx SpecContext) {
		run(ctx, "k8s/kubectl", "apply", "-k", "config/default")
		// cert-manager (here its stand-in) issues the webhook's certificate.
		certs.expectSecretIssued(ctx, kustomizeNamespace, "webhook-server-cert")
		managers = runDeployment(ctx, kustomizeNamespace, kustomizeDeployment)
		DeferCleanup(func() { managers.stop() })
		managers.expectReady(ctx)
	}, NodeTimeout(4*time.Minute))

	It("runs the Deployment's two pods: ready, one leading, the other standing by", func(ctx SpecContext) {
		managers.expectLeaderAndStandby(ctx)
	}, SpecTimeout(3*time.Minute))

	It("takes config/samples on a fresh cluster, through the webhook, and binds a pod with the sample profile", func(ctx SpecContext) {
		run(ctx, "k8s/kubectl", "apply", "-k", "config/samples")
		_, err := dyn.Resource(profiles).Create(ctx, profile("e2e-bad", `{"plugins": {"filter": {"enabled": [{"name": "NoSuchPlugin"}]}}}`), metav1.CreateOptions{})
		Expect(err).To(MatchError(ContainSubstring("NoSuchPlugin")), "the webhook refuses an unknown plugin")
		expectBound(ctx, sampleScheduler)
	}, SpecTimeout(2*time.Minute))

	It("classifies the manager's requests under API Priority and Fairness as kube-scheduler's", func(ctx SpecContext) {
		expectClassified(ctx, sampleScheduler, "berth-leader-election", "berth-manager")
	}, SpecTimeout(2*time.Minute))

	It("serves metrics to callers bound to berth-metrics-reader", func(ctx SpecContext) {
		p := managers.pods[0]
		code, _ := get(p, "https", metricsPort, "/metrics", "")
		Expect(code).To(Equal(http.StatusUnauthorized))
		token := scraperToken(ctx, kustomizeNamespace, "berth-metrics-reader")
		Eventually(func() int { code, _ := get(p, "https", metricsPort, "/metrics", token); return code }).
			WithTimeout(30 * time.Second).Should(Equal(http.StatusOK))
	}, SpecTimeout(time.Minute))

	It("fails over: the standby takes the Lease when the leader is killed and binds pods", func(ctx SpecContext) {
		leader := managers.leader(ctx)
		leader.Kill()
		Eventually(ctx, func() string { return leaseHolder(ctx, kustomizeNamespace) }).WithTimeout(time.Minute).
			ShouldNot(HavePrefix(leader.Pod.Name+"_"), "the standby takes over within the lease duration")
		expectBound(ctx, sampleScheduler)
		for _, p := range managers.pods {
			if p != leader {
				Expect(p.Exited()).To(BeFalse())
			}
		}
	}, SpecTimeout(2*time.Minute))
}
