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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/shadow"
	"github.com/berth-io/berth/scheduler/usage"
)

// loadNode is one node of the load-aware spec: the CPU its pods request
// and the share of its CPU metrics-server says is in use.
type loadNode struct {
	suffix    string
	requested string
	usage     float64
}

// The six nodes of docs/load-aware.md's example (4 CPUs each): by requests
// the two busiest by usage look emptiest.
var loadNodes = []loadNode{
	{"busy-1", "1", 0.85}, {"busy-2", "1", 0.92},
	{"mid-1", "2500m", 0.50}, {"mid-2", "2500m", 0.45},
	{"calm-1", "2500m", 0.12}, {"calm-2", "2500m", 0.18},
}

var _ = Describe("Load-aware scheduling", func() {
	It("keeps pods off the nodes usage says are busy, where requests alone put them", func(ctx SpecContext) {
		ns := createNamespace(ctx, "load")
		var metrics []runtime.Object
		for _, n := range loadNodes {
			name := ns + "-" + n.suffix
			createNode(ctx, newNode(name).Labels("load-test", ns, corev1.LabelHostname, name).Obj())
			// An earlier pod, started long ago, so the node's sample shows it.
			pod := createPod(ctx, newPod(ns, "existing-"+n.suffix).NodeName(name).Req("cpu", n.requested).Obj())
			pod.Status.StartTime = &metav1.Time{Time: time.Now().Add(-time.Hour)}
			_, err := clientset.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
			metrics = append(metrics, &metricsv1beta1.NodeMetrics{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Timestamp:  metav1.Now(),
				Window:     metav1.Duration{Duration: 30 * time.Second},
				Usage: corev1.ResourceList{
					corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(n.usage*4000), resource.DecimalSI),
					corev1.ResourceMemory: resource.MustParse("4Gi"),
				},
			})
		}
		loadAware := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{
			Enabled:  []v1alpha1.Plugin{{Name: "TargetLoadPacking"}},
			Disabled: []v1alpha1.Plugin{{Name: "*"}},
		}}}
		// The fake's tracker files NodeMetrics under the resource the
		// metrics API lists ("nodes"), not the one it would guess from the kind.
		metricsClient := metricsfake.NewSimpleClientset()
		for _, m := range metrics {
			Expect(metricsClient.Tracker().Create(metricsv1beta1.SchemeGroupVersion.WithResource("nodes"), m, "")).To(Succeed())
		}
		s := startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{
			"load-aware": loadAware,
			"requests":   defaultProfile(),
		}, scheduler.WithNodeUsageOptions(usage.WithMetricsClient(metricsClient), usage.WithPollInterval(time.Second)))

		// A load-aware shadow of the requests profile says, on the live
		// traffic, how often the two would disagree before anyone switches.
		shadowSpec := loadAware.DeepCopy()
		shadowSpec.ShadowOf = "requests"
		shadowFwk, err := s.CompileShadow(ctx, "load-aware-shadow", shadowSpec)
		Expect(err).NotTo(HaveOccurred())
		s.InstallShadow(ctx, &scheduler.ShadowProfile{Framework: shadowFwk, Source: "load-aware-shadow", Generation: 1, Of: "requests", SampleRatePercent: 100})

		By("waiting until the profile's store has read every node")
		store := s.NodeUsage().Store(usage.Source{Type: usage.MetricsServer})
		Eventually(func(g Gomega) {
			for _, n := range loadNodes {
				u, fresh := store.Node(ns + "-" + n.suffix)
				g.Expect(fresh).To(Equal(usage.Fresh), "node %s", n.suffix)
				g.Expect(u.Usage[usage.CPU].Average).To(BeNumerically("~", n.usage, 0.001))
			}
		}).WithTimeout(30 * time.Second).Should(Succeed())

		// placed creates six pods of schedulerName, calling afterEach (when
		// set) with the number created so far after each, and returns how
		// many were bound to each node.
		placed := func(schedulerName string, afterEach func(created int)) map[string]int {
			GinkgoHelper()
			for i := range 6 {
				createPod(ctx, newPod(ns, fmt.Sprintf("%s-%d", schedulerName, i)).SchedulerName(schedulerName).
					NodeSelector("load-test", ns).Req("cpu", "250m").Limit("cpu", "250m").Obj())
				if afterEach != nil {
					afterEach(i + 1)
				}
			}
			perNode := map[string]int{}
			Eventually(func(g Gomega) {
				clear(perNode)
				for i := range 6 {
					pod, err := getPod(ctx, ns, fmt.Sprintf("%s-%d", schedulerName, i))
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(pod.Spec.NodeName).NotTo(BeEmpty(), "pod %s is not bound", pod.Name)
					perNode[pod.Spec.NodeName[len(ns)+1:]]++
				}
			}).WithTimeout(30 * time.Second).Should(Succeed())
			return perNode
		}
		// The shadow has one worker, which drops a cycle's attempt while it
		// is still judging the one before: each pod comes once the shadow
		// judged the pod before it, so that it judges all six.
		shadowJudged := func(n int) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				stats, ok := s.ShadowStats("load-aware-shadow")
				g.Expect(ok).To(BeTrue())
				var judged int64
				for _, c := range stats.Outcomes {
					judged += c
				}
				g.Expect(judged).To(BeNumerically(">=", n), "outcomes %v", stats.Outcomes)
			}).WithTimeout(30 * time.Second).Should(Succeed())
		}
		By("placing six pods by requests: onto the two nodes that request least, the busiest")
		byRequests := placed("requests", shadowJudged)
		Expect(byRequests["busy-1"]+byRequests["busy-2"]).To(Equal(6), "placed by requests: %v", byRequests)
		By("the load-aware shadow disagreeing on every one of them, for TargetLoadPacking")
		Eventually(func(g Gomega) {
			stats, ok := s.ShadowStats("load-aware-shadow")
			g.Expect(ok).To(BeTrue())
			g.Expect(stats.Outcomes).To(HaveKeyWithValue(shadow.OutcomeDisagreed, int64(6)), "outcomes %v", stats.Outcomes)
			g.Expect(stats.Deciding).NotTo(BeEmpty())
			g.Expect(stats.Deciding[0].Plugin).To(Equal("TargetLoadPacking"))
		}).WithTimeout(30 * time.Second).Should(Succeed())

		By("placing six pods with TargetLoadPacking: none on a busy node")
		byUsage := placed("load-aware", nil)
		Expect(byUsage).NotTo(HaveKey("busy-1"), "placed by usage: %v", byUsage)
		Expect(byUsage).NotTo(HaveKey("busy-2"), "placed by usage: %v", byUsage)
	}, SpecTimeout(2*time.Minute))
})
