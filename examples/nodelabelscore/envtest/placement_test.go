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

package envtest

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/examples/nodelabelscore/nodelabelscore"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/test/berthtest"
)

const tier = "example.com/tier"

var _ = Describe("NodeLabelScore", Ordered, func() {
	BeforeAll(func(ctx SpecContext) {
		for name, value := range map[string]string{"tier-1": "1", "tier-3": "3", "tier-5": "5"} {
			_, err := env.CreateNode(ctx, berthtest.NewNode(name).Label(tier, value).Obj())
			Expect(err).NotTo(HaveOccurred())
		}
		_, err := env.CreateNode(ctx, berthtest.NewNode("no-tier").Obj())
		Expect(err).NotTo(HaveOccurred())
	})

	// profile scores nodes by NodeLabelScore alone, so that the plugin's
	// preference decides where pods go.
	profile := func(name, args string) *st.ProfileBuilder {
		return st.Profile(name).UID("").Generation(0).Disable("score", "*").Enable("score", nodelabelscore.Name).PluginArgs(nodelabelscore.Name, args)
	}

	DescribeTable("places pods on the node the label ranks first",
		func(ctx SpecContext, profileName, args, wantNode string) {
			p := profile(profileName, args).Obj()
			Expect(env.Client.Create(ctx, p)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(env.Client.Delete(ctx, p)).To(Succeed()) })
			_, err := env.WaitForProfileReady(ctx, profileName)
			Expect(err).NotTo(HaveOccurred())

			ns := createNamespace(ctx)
			for _, name := range []string{"web-0", "web-1"} {
				pod := berthtest.NewPod(ns, name).SchedulerName(profileName).Obj()
				_, err := env.Clientset.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
				Expect(err).NotTo(HaveOccurred())
				bound, err := env.WaitForPodBound(ctx, ns, name)
				Expect(err).NotTo(HaveOccurred())
				Expect(bound.Spec.NodeName).To(Equal(wantNode))
			}
		},
		Entry("higher values first (the default)", "prefer-high", `{"label":"example.com/tier"}`, "tier-5"),
		Entry("lower values first", "prefer-low", `{"label":"example.com/tier","preferHigher":false}`, "tier-1"),
	)

	It("is refused by the webhook with bad args, at their field path", func(ctx SpecContext) {
		err := env.Client.Create(ctx, profile("bad-args", `{"preferHigher":true}`).Obj())
		Expect(err).To(MatchError(ContainSubstring("spec.pluginConfig[0].args.label: Required value")))
		err = env.Client.Create(ctx, profile("bad-label", `{"label":"a/b/c"}`).Obj())
		Expect(err).To(MatchError(ContainSubstring(`spec.pluginConfig[0].args.label: Invalid value: "a/b/c"`)))
	})
})
