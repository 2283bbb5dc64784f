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

package crds_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	berthv1alpha1 "github.com/berth-io/berth/api/v1alpha1"
)

var _ = Describe("defaults of the CRDs", func() {
	It("SchedulingProfile: podInitialBackoffSeconds defaults to 1 and podMaxBackoffSeconds to 10", func(ctx SpecContext) {
		createAndCleanUp(ctx, newProfile("backoff-defaults").build())

		var got berthv1alpha1.SchedulingProfile
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "backoff-defaults"}, &got)).To(Succeed())
		Expect(got.Spec.PodInitialBackoffSeconds).To(HaveValue(BeEquivalentTo(1)))
		Expect(got.Spec.PodMaxBackoffSeconds).To(HaveValue(BeEquivalentTo(10)))
	})

	It("PodGroup: the deprecated minMember is kept as written, with no scheduleTimeoutSeconds defaulted", func(ctx SpecContext) {
		createAndCleanUp(ctx, newPodGroup("old-gang").withPolicy(nil).withMinMember(3).build())

		var got berthv1alpha1.PodGroup
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: testNamespace, Name: "old-gang"}, &got)).To(Succeed())
		Expect(got.Spec.ScheduleTimeoutSeconds).To(BeNil())
		Expect(got.Spec.MinMember).To(BeEquivalentTo(3))
		Expect(got.Spec.MinCount()).To(BeEquivalentTo(3))
	})

	It("RebalancePolicy: dryRun defaults to true", func(ctx SpecContext) {
		createAndCleanUp(ctx, newRebalancePolicy("dry-run-default").build())

		var got berthv1alpha1.RebalancePolicy
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "dry-run-default"}, &got)).To(Succeed())
		Expect(got.Spec.DryRun).To(HaveValue(BeTrue()))
	})
})

// createAndCleanUp creates the object and deletes it when the spec ends.
func createAndCleanUp(ctx context.Context, obj client.Object, opts ...client.CreateOption) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, obj, opts...)).To(Succeed(), "creating %T %q", obj, obj.GetName())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, obj))).To(Succeed())
	})
}
