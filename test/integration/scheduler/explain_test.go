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

package scheduler_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/internal/registries"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// explainSchedulerName is the scheduler name of the explain spec's profile,
// served by no other spec.
const explainSchedulerName = "explain-agreement"

var _ = Describe("berth explain", func() {
	// A cluster at rest: each pod is created gated, explained, ungated and
	// bound (or found unschedulable) before the next, so the scheduler and
	// explain see the same nodes and pods.
	It("picks, for hundreds of random pods on a random cluster, the node (or a set of tied nodes) holding where the scheduler put each", func(ctx SpecContext) {
		seed := uint64(GinkgoRandomSeed())
		rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
		ns := createNamespace(ctx, "explain")
		spec := &v1alpha1.SchedulingProfileSpec{SchedulerName: explainSchedulerName}
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{explainSchedulerName: spec})

		scheme := runtime.NewScheme()
		Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
		berth, err := client.New(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		profile := &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: explainSchedulerName}, Spec: *spec}
		Expect(berth.Create(ctx, profile)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(berth.Delete(ctx, profile))).To(Succeed()) })

		zones := []string{"zone-a", "zone-b", "zone-c"}
		images := []string{"registry.example/app:1", "registry.example/app:2", "registry.example/db:1"}
		for i := range 12 {
			n := newNode(fmt.Sprintf("explain-%s-%02d", ns, i)).
				Alloc("cpu", fmt.Sprint(4+rng.IntN(13)), "memory", fmt.Sprintf("%dGi", 16+rng.IntN(49)), "pods", "110").
				Zone(zones[rng.IntN(len(zones))]).Label("disk", []string{"ssd", "hdd"}[rng.IntN(2)])
			if rng.IntN(5) == 0 {
				n.Taint("dedicated", "batch", corev1.TaintEffectNoSchedule)
			}
			if rng.IntN(3) == 0 {
				n.Image(500<<20, images[rng.IntN(len(images))])
			}
			createNode(ctx, n.Obj())
		}

		explainer := explain.New(clientset, berth, registries.InTree().Plugins)
		const pods = 200
		placed, unschedulable, tied := 0, 0, 0
		for i := range pods {
			app := fmt.Sprintf("app-%d", rng.IntN(4))
			b := newPod(ns, fmt.Sprintf("p-%03d", i)).SchedulerName(explainSchedulerName).Gates("example.com/explain").Label("app", app).
				Requests("cpu", fmt.Sprintf("%dm", 50*(1+rng.IntN(20))), "memory", fmt.Sprintf("%dMi", 128*(1+rng.IntN(16)))).
				Image(images[rng.IntN(len(images))])
			switch rng.IntN(6) {
			case 0:
				b.NodeSelector("disk", "ssd")
			case 1:
				b.TolerateTaint("dedicated", "batch", corev1.TaintEffectNoSchedule)
			case 2:
				b.Spread(1, corev1.LabelTopologyZone, corev1.ScheduleAnyway, st.Selector("app", app))
			case 3:
				b.PreferPodAntiAffinity(80, st.Term(corev1.LabelHostname, "app", app))
			}
			pod := createPod(ctx, b.Obj())

			report, err := explainer.Explain(ctx, explain.Request{Namespace: ns, Name: pod.Name})
			Expect(err).NotTo(HaveOccurred(), "explaining %s", pod.Name)
			chosen := report.Results[0].Chosen

			ungated := pod.DeepCopy()
			ungated.Spec.SchedulingGates = nil
			Expect(clientset.CoreV1().Pods(ns).Update(ctx, ungated, metav1.UpdateOptions{})).Error().NotTo(HaveOccurred())
			if len(chosen) == 0 {
				Eventually(func(g Gomega) {
					current, err := getPod(ctx, ns, pod.Name)
					g.Expect(err).NotTo(HaveOccurred())
					c := podScheduledCondition(current)
					g.Expect(c).NotTo(BeNil())
					g.Expect(c.Reason).To(Equal(corev1.PodReasonUnschedulable))
				}).WithTimeout(10*time.Second).Should(Succeed(), "explain found no node for %s: %s", pod.Name, report.Results[0].Unschedulable)
				// An unschedulable pod would be retried on later events; it leaves.
				Expect(clientset.CoreV1().Pods(ns).Delete(ctx, pod.Name, *metav1.NewDeleteOptions(0))).To(Succeed())
				unschedulable++
				continue
			}
			var node string
			Eventually(func(g Gomega) {
				current, err := getPod(ctx, ns, pod.Name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(current.Spec.NodeName).NotTo(BeEmpty())
				node = current.Spec.NodeName
			}).WithTimeout(10*time.Second).Should(Succeed(), "pod %s was not bound; explain chose %v", pod.Name, chosen)
			Expect(chosen).To(ContainElement(node), "pod %s: the scheduler put it on %s, explain chose %v", pod.Name, node, chosen)
			if len(chosen) > 1 {
				tied++
			}
			placed++
		}
		GinkgoWriter.Printf("berth explain agreed on %d pods: %d placed (%d among tied nodes), %d unschedulable\n", pods, placed, tied, unschedulable)
		Expect(placed).To(BeNumerically(">=", pods/2))
	}, SpecTimeout(5*time.Minute))
})
