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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
)

var _ = Describe("A load-aware profile", func() {
	// This apiserver serves no metrics.k8s.io: the source cannot be read,
	// as on a cluster without metrics-server.
	It("says on its status which plugin's usage source it cannot read, and stays Ready", func(ctx SpecContext) {
		createProfile(ctx, newProfile("usage-unread").Weight("score", "TargetLoadPacking", 1).Obj())
		waitActive(ctx, "usage-unread")
		Eventually(ctx, func(g Gomega) {
			var p v1alpha1.SchedulingProfile
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Name: "usage-unread"}, &p)).To(Succeed())
			c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ConditionUsageAvailable)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(v1alpha1.ReasonUsageSourceFailing))
			g.Expect(c.Message).To(ContainSubstring("TargetLoadPacking cannot read KubernetesMetricsServer"))
			g.Expect(meta.IsStatusConditionTrue(p.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(30 * time.Second).Should(Succeed())
	})
})
