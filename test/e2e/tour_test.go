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
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/localcluster"
)

// The README's tour and `make run` show the gang sample: these are its files.
var tourGangFiles = []string{
	filepath.Join(repoRoot, "config", "samples", "namespace.yaml"),
	filepath.Join(repoRoot, "config", "samples", "scheduling_v1alpha1_podgroup.yaml"),
	filepath.Join(repoRoot, "internal", "localcluster", "samples", "gang-statefulset.yaml"),
}

var _ = Describe("the tour's gang", func() {
	It("places the sample PodGroup's eight workers whole, in one zone", func(ctx SpecContext) {
		m := startManager("berth-manager-tour")
		m.waitReady(ctx)
		const ns = "ml-training"
		c := berthClient()
		DeferCleanup(func(ctx SpecContext) {
			// Cleanups run last registered first: the manager still runs
			// here, to lift the PodGroup's finalizer.
			Expect(cluster.Clientset.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})).To(Succeed())
			Eventually(ctx, func() bool {
				_, err := cluster.Clientset.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(BeTrue(), "namespace %s is not gone", ns)
		}, NodeTimeout(3*time.Minute))

		applier, err := localcluster.NewApplier(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(applier.ApplyFiles(ctx, tourGangFiles...)).To(Succeed())

		var pods []corev1.Pod
		Eventually(ctx, func(g Gomega) {
			var counts podCounts
			counts, pods = countPods(ctx, ns)
			g.Expect(counts.total).To(Equal(8))
			g.Expect(counts.running).To(Equal(8))
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())

		zones := map[string][]string{}
		for _, p := range pods {
			Expect(p.Spec.SchedulerName).To(Equal(sampleScheduler))
			node, err := cluster.Clientset.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			zone := node.Labels[corev1.LabelTopologyZone]
			zones[zone] = append(zones[zone], p.Name)
		}
		Expect(zones).To(HaveLen(1), "the gang is split across zones: %v", zones)
		expectEachPodBoundOnce(ctx, ns, pods)

		Eventually(ctx, func(g Gomega) {
			var pg v1alpha1.PodGroup
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "training-workers"}, &pg)).To(Succeed())
			g.Expect(pg.Status.Scheduled).To(BeEquivalentTo(8))
			g.Expect(pg.Status.Phase).To(Equal(v1alpha1.PodGroupRunning))
		}).WithTimeout(time.Minute).Should(Succeed())
	}, SpecTimeout(4*time.Minute))
})
