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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/internal/registries"
)

var _ = Describe("SchedulingProfile recordDecisions", func() {
	// waitDecisions waits until the profile's status lists n decisions, the
	// newest for pod newest, and returns them. The status is flushed
	// periodically, so a list of n can still lag the last placements.
	waitDecisions := func(ctx SpecContext, name string, n int, newest string) []v1alpha1.SchedulingDecision {
		GinkgoHelper()
		var recent []v1alpha1.SchedulingDecision
		Eventually(func(g Gomega) {
			recent = getProfile(ctx, name).Status.RecentDecisions
			g.Expect(recent).To(HaveLen(n))
			g.Expect(recent[0].Pod).To(Equal(newest))
		}).WithContext(ctx).WithTimeout(20 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		return recent
	}

	It("keeps the last placements with their scores, and berth explain shows the one that placed a bound pod", func(ctx SpecContext) {
		ns := createNamespace(ctx, "record")
		createNodes(ctx, "record-small", 2, "cpu", "4", "memory", "16Gi")
		createNodes(ctx, "record-big", 2, "cpu", "16", "memory", "64Gi")
		p := createProfile(ctx, newProfile("record").RecordDecisions(3).PluginArgs("NodeResourcesFit", fitArgs("LeastAllocated")).
			Disable("score", "*").Weight("score", "NodeResourcesFit", 2).Weight("score", "NodeResourcesBalancedAllocation", 1).Obj())
		gen := waitActive(ctx, p.Name).Generation

		placed := map[string]string{}
		var names []string
		for i := range 5 {
			name := fmt.Sprintf("pod-%d", i)
			createPod(ctx, newPod(ns, name, "record").Req("cpu", "500m").Obj())
			for pod, node := range waitBound(ctx, ns, []string{name}) {
				placed[pod] = node
			}
			names = append(names, name)
		}

		recent := waitDecisions(ctx, p.Name, 3, ns+"/"+names[len(names)-1])
		for i, d := range recent {
			name := names[len(names)-1-i]
			Expect(d.Pod).To(Equal(ns+"/"+name), "newest first")
			pod, err := clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(d.PodUID).To(Equal(pod.UID))
			Expect(d.Node).To(Equal(placed[name]))
			Expect(d.Generation).To(Equal(gen))
			Expect(d.FeasibleNodes).To(BeEquivalentTo(4))
			Expect(d.Nodes).To(HaveLen(3), "the chosen node and two runners-up")
			Expect(d.Nodes[0].Node).To(Equal(d.Node))
			for _, n := range d.Nodes[1:] {
				Expect(n.Total).To(BeNumerically("<=", d.Nodes[0].Total), "a runner-up scores no more than the chosen node")
			}
			var plugins []string
			for _, s := range d.Nodes[0].Scores {
				plugins = append(plugins, s.Plugin)
			}
			Expect(plugins).To(ConsistOf("NodeResourcesFit", "NodeResourcesBalancedAllocation"))
		}

		By("explaining the newest pod, which is bound")
		last := names[len(names)-1]
		report, err := explain.New(clientset, k8sClient, registries.InTree().Plugins).Explain(ctx, explain.Request{Namespace: ns, Name: last})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.BoundTo).To(Equal(placed[last]))
		Expect(report.Recorded).NotTo(BeNil(), "note: %s", report.RecordedNote)
		Expect(report.Recorded.Profile).To(Equal(p.Name))
		Expect(report.Recorded.SchedulingDecision).To(Equal(recent[0]))
		Expect(report.WriteTable(GinkgoWriter)).To(Succeed())

		By("turning recording off, which clears the list")
		updateProfile(ctx, p.Name, func(p *v1alpha1.SchedulingProfile) { p.Spec.RecordDecisions = nil })
		waitActive(ctx, p.Name)
		Expect(getProfile(ctx, p.Name).Status.RecentDecisions).To(BeEmpty())
		report, err = explain.New(clientset, k8sClient, registries.InTree().Plugins).Explain(ctx, explain.Request{Namespace: ns, Name: last})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Recorded).To(BeNil())
		Expect(report.RecordedNote).To(ContainSubstring("records no decisions"))
	})
})
