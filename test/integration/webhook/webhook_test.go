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

package webhook_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
)

// create creates obj and deletes it when the spec ends.
func create(ctx context.Context, obj client.Object) error {
	err := k8s.Create(ctx, obj)
	if err == nil {
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(k8s.Delete(ctx, obj))).To(Succeed())
		})
	}
	return err
}

// expectRejected asserts that err is the apiserver's rejection of an invalid
// object, naming the webhook and carrying every message fragment.
func expectRejected(err error, fragments ...string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
	Expect(err.Error()).To(ContainSubstring("admission webhook"))
	for _, f := range fragments {
		Expect(err.Error()).To(ContainSubstring(f))
	}
}

var _ = Describe("SchedulingProfile admission", func() {
	It("accepts a valid profile", func(ctx SpecContext) {
		p := makeProfile("bin-packing").scoreWeight("NodeResourcesFit", 3).
			args("NodeResourcesFit", `{"scoringStrategy":{"type":"MostAllocated"}}`).obj()
		Expect(create(ctx, p)).To(Succeed())
	})

	DescribeTable("rejects on create what the scheduler cannot compile",
		func(ctx SpecContext, p *v1alpha1.SchedulingProfile, fragments ...string) {
			expectRejected(create(ctx, p), fragments...)
		},
		Entry("an unknown plugin", makeProfile("typo").filter("NodeRsourcesFit").obj(),
			"spec.plugins.filter", `unknown plugin "NodeRsourcesFit"`),
		Entry("args that do not validate", makeProfile("bad-args").
			args("NodeResourcesFit", `{"scoringStrategy":{"type":"Bogus"}}`).obj(),
			"spec.pluginConfig[0].args.scoringStrategy.type", `Unsupported value: "Bogus"`),
		Entry("args that do not decode", makeProfile("bad-field").
			args("NodeResourcesFit", `{"scoringStrategyy":{}}`).obj(),
			`unknown field "scoringStrategyy"`),
		Entry("a QueueSort other than PrioritySort", makeProfile("fifo").queueSort("NodeName").obj(),
			"spec.plugins.queueSort.enabled[0].name", "all profiles share one scheduling queue"),
		Entry("a plugin at an extension point it does not implement", makeProfile("misplaced").filter("ImageLocality").obj(),
			`plugin "ImageLocality" does not implement the Filter extension point`),
	)

	It("rejects an invalid update and keeps the stored generation", func(ctx SpecContext) {
		p := makeProfile("edited").obj()
		Expect(create(ctx, p)).To(Succeed())
		generation := p.Generation

		p.Spec = makeProfile("edited").filter("Nope").args("InterPodAffinity", `{"hardPodAffinityWeight":200}`).obj().Spec
		expectRejected(k8s.Update(ctx, p), `unknown plugin "Nope"`)

		var stored v1alpha1.SchedulingProfile
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(p), &stored)).To(Succeed())
		Expect(stored.Generation).To(Equal(generation))
		Expect(stored.Spec.Plugins).To(BeNil())
	})

	It("accepts a valid update", func(ctx SpecContext) {
		p := makeProfile("tuned").obj()
		Expect(create(ctx, p)).To(Succeed())
		p.Spec = makeProfile("tuned").args("NodeResourcesFit", `{"scoringStrategy":{"type":"LeastAllocated"}}`).obj().Spec
		Expect(k8s.Update(ctx, p)).To(Succeed())
	})
})

var _ = Describe("PluginWeight admission", func() {
	It("accepts a weight on a score plugin", func(ctx SpecContext) {
		Expect(create(ctx, makeWeight("spread", "bin-packing", "PodTopologySpread", 5))).To(Succeed())
	})

	DescribeTable("rejects a weight that can never apply",
		func(ctx SpecContext, w *v1alpha1.PluginWeight, fragments ...string) {
			expectRejected(create(ctx, w), fragments...)
		},
		Entry("an unknown plugin", makeWeight("typo", "bin-packing", "NodeResourcesFitt", 5),
			"spec.plugin", `Not found: "NodeResourcesFitt"`),
		Entry("a plugin that does not score", makeWeight("filter-only", "bin-packing", "NodeName", 5),
			"spec.plugin", "implements no Score extension point"),
	)

	It("rejects an update to a plugin that does not score", func(ctx SpecContext) {
		w := makeWeight("retargeted", "bin-packing", "ImageLocality", 2)
		Expect(create(ctx, w)).To(Succeed())
		w.Spec.Plugin = "NodeUnschedulable"
		expectRejected(k8s.Update(ctx, w), "implements no Score extension point")
	})
})
