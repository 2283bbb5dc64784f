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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/internal/registries"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// These specs run gangs of Berth's own PodGroups (scheduling.berth.io)
// through the group cycle, with a recording profile and with shadows.
var _ = Describe("PodGroup cycles, recorded and shadowed", func() {
	const rack = "test.berth.io/rack"
	// createRack creates n nodes of 2 CPUs in rack, tainted when taint is set.
	createRack := func(ctx SpecContext, prefix, value string, n int, taint bool) []string {
		return createNodesLike(ctx, prefix, n, func(b *st.NodeBuilder) *st.NodeBuilder {
			b.Label(rack, value)
			if taint {
				b.Taint("test.berth.io/dedicated", "x", corev1.TaintEffectNoSchedule)
			}
			return b
		}, "cpu", "2", "memory", "16Gi")
	}
	// createGang creates n members of group for schedulerName, 1 CPU each,
	// then the group: its cycle then places all n at once.
	createGang := func(ctx SpecContext, ns, group, schedulerName string, n int, pg *v1alpha1.PodGroup) []string {
		var names []string
		for i := range n {
			name := fmt.Sprintf("%s-%d", group, i)
			createPod(ctx, newPod(ns, name, schedulerName).Req("cpu", "1").Group(group).Obj())
			names = append(names, name)
		}
		createPodGroup(ctx, pg)
		return names
	}

	It("records each member's decision with its group's placement, and berth explain shows it", func(ctx SpecContext) {
		ns := createNamespace(ctx, "grec")
		// Rack a holds four 1-CPU members, rack b two: only a holds the gang.
		rackA := createRack(ctx, "grec-a", "a", 2, false)
		createRack(ctx, "grec-b", "b", 1, false)
		p := createProfile(ctx, newProfile("grec").RecordDecisions(10).Obj())
		gen := waitActive(ctx, p.Name).Generation

		names := createGang(ctx, ns, "crew", "grec", 4, newPodGroup(ns, "crew", 4).Topology(rack).Obj())
		placed := waitBound(ctx, ns, names)
		for pod, node := range placed {
			Expect(rackA).To(ContainElement(node), "member %s is in rack a", pod)
		}

		var recent []v1alpha1.SchedulingDecision
		Eventually(func(g Gomega) {
			recent = getProfile(ctx, p.Name).Status.RecentDecisions
			g.Expect(recent).To(HaveLen(4))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		for _, d := range recent {
			name := strings.TrimPrefix(d.Pod, ns+"/")
			Expect(d.Node).To(Equal(placed[name]), "the decision of %s", d.Pod)
			Expect(d.Generation).To(Equal(gen))
			Expect(d.PodGroup).NotTo(BeNil(), "the decision of %s names its group", d.Pod)
			g := *d.PodGroup
			Expect(g.Name).To(Equal(ns + "/crew"))
			Expect(g.TopologyKey).To(Equal(rack))
			Expect(g.Placement).To(Equal("a"))
			Expect(g.PlacementsTried).To(BeEquivalentTo(2))
			Expect(g.PlacementsFeasible).To(BeEquivalentTo(1))
			Expect(g.Placements).To(BeEmpty(), "only rack a was feasible, and a single placement is not scored")
		}

		By("explaining a member")
		report, err := explain.New(clientset, k8sClient, registries.InTree().Plugins).Explain(ctx, explain.Request{Namespace: ns, Name: names[0]})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Recorded).NotTo(BeNil(), "note: %s", report.RecordedNote)
		Expect(report.Recorded.PodGroup).NotTo(BeNil())
		var table strings.Builder
		Expect(report.WriteTable(&table)).To(Succeed())
		GinkgoWriter.Print(table.String())
		Expect(table.String()).To(ContainSubstring(fmt.Sprintf("Its PodGroup %s/crew was placed as a group in %s=a: the whole group fitted in 1 of the 2 placements tried.", ns, rack)))
	})

	It("counts a twin shadow's agreement and a disagreement on the rack of a shadow whose filter rejects it", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gshadow")
		// Rack a, tainted, holds four members, rack b two. The live profile
		// ignores taints and puts the gang of four (minCount 2) in rack a,
		// where PodGroupPodsCount counts the most members; a shadow that
		// filters taints can only use rack b.
		rackA := createRack(ctx, "gshadow-a", "a", 2, true)
		createRack(ctx, "gshadow-b", "b", 1, false)
		ignoreTaints := func(b *st.ProfileBuilder) *st.ProfileBuilder {
			return b.Disable("filter", "TaintToleration").Disable("score", "TaintToleration")
		}
		createProfile(ctx, ignoreTaints(newProfile("gshadow-live")).Obj())
		waitActive(ctx, "gshadow-live")
		createProfile(ctx, ignoreTaints(newProfile("gshadow-twin")).ShadowOf("gshadow-live").Obj())
		createProfile(ctx, newProfile("gshadow-taints").ShadowOf("gshadow-live").Obj())
		for _, name := range []string{"gshadow-twin", "gshadow-taints"} {
			waitCondition(ctx, name, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonShadowing)
		}

		names := createGang(ctx, ns, "ring", "gshadow-live", 4, newPodGroup(ns, "ring", 2).Topology(rack).Obj())
		for pod, node := range waitBound(ctx, ns, names) {
			Expect(rackA).To(ContainElement(node), "member %s is in rack a", pod)
		}

		shadowOf := func(name string) *v1alpha1.ShadowStatus {
			GinkgoHelper()
			var st *v1alpha1.ShadowStatus
			Eventually(func(g Gomega) {
				st = getProfile(ctx, name).Status.Shadow
				g.Expect(st).NotTo(BeNil())
				g.Expect(st.Evaluated+st.Dropped).To(BeEquivalentTo(1), "one group cycle: %+v", st)
			}).WithContext(ctx).WithTimeout(20 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
			Expect(st.Evaluated).To(BeEquivalentTo(1), "the worker was free for the cycle: %+v", st)
			return st
		}
		twin := shadowOf("gshadow-twin")
		Expect(twin.Agreed).To(BeEquivalentTo(1), "%+v", twin)
		Expect(twin.AgreementPercent).To(Equal("100.0"))
		Expect(twin.RecentDisagreements).To(BeEmpty())

		taints := shadowOf("gshadow-taints")
		Expect(taints.Disagreed).To(BeEquivalentTo(1), "%+v", taints)
		Expect(taints.AgreementPercent).To(Equal("0.0"))
		Expect(taints.DecidingPlugins).To(Equal([]v1alpha1.ShadowPluginCount{{Plugin: "TaintToleration", Disagreements: 1}}))
		Expect(taints.RecentDisagreements).To(HaveLen(1))
		d := taints.RecentDisagreements[0]
		Expect(d.PodGroup).To(Equal(ns + "/ring"))
		Expect(d.LivePlacement).To(Equal("a"))
		Expect(d.ShadowPlacement).To(Equal("b"))
		Expect(d.DecidingPlugins).To(Equal([]string{"TaintToleration"}))
		Expect(d.Pod).To(HavePrefix(ns + "/ring-"))
	})
})
