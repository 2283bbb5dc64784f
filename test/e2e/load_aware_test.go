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
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/localcluster"
)

// metricsWait bounds the waits for metrics-server to show a new pod's use:
// a node's CPU is a rate between two scrapes, and a pod needs two scrapes
// of its own.
const metricsWait = 6 * localcluster.MetricsResolution

var _ = Describe("load-aware placement and eviction with a real metrics-server", func() {
	It("places pods on the nodes metrics-server says are idle, where requests alone pick the busy ones", func(ctx SpecContext) {
		// Before anything reads usage: the manager's stores start with the
		// first profile that names metrics-server, and take its first read as it is.
		m := startManager("berth-manager-load-aware")
		ns := newNamespace(ctx)
		waitOtherSpecsGone(ctx, ns)
		c := berthClient()
		busy, idle := []string{localcluster.NodeName(16), localcluster.NodeName(17)}, []string{localcluster.NodeName(18), localcluster.NodeName(19)}

		// By requests the busy nodes look the emptiest (2 of 32 CPUs
		// requested, against 8); by usage they are 88% busy, the others idle.
		for _, node := range busy {
			createPinnedPod(ctx, ns, "load-"+node, node, "2", "16Gi")
			createResourceUsage(ctx, ns, "load-"+node, "28", "16Gi")
		}
		for _, node := range idle {
			createPinnedPod(ctx, ns, "load-"+node, node, "8", "64Gi")
		}
		By("waiting until metrics-server reports the busy nodes' use")
		waitNodeCPU(ctx, map[string]float64{busy[0]: 28, busy[1]: 28, idle[0]: 0, idle[1]: 0})

		byRequests := newProfile(ns+"-requests", nil)
		loadAware := newProfile(ns+"-load-aware", &v1alpha1.Plugins{
			MultiPoint: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "LoadAwareScheduling"}}},
			Score: &v1alpha1.PluginSet{
				Enabled:  []v1alpha1.Plugin{{Name: "TargetLoadPacking"}},
				Disabled: []v1alpha1.Plugin{{Name: "NodeResourcesBalancedAllocation"}},
			},
		})
		m.waitReady(ctx)
		for _, p := range []*v1alpha1.SchedulingProfile{byRequests, loadAware} {
			Expect(c.Create(ctx, p)).To(Succeed())
			DeferCleanup(func() { _ = c.Delete(background(), p) })
		}
		waitProfileCondition(ctx, c, byRequests.Name, v1alpha1.ConditionReady, "")
		waitProfileCondition(ctx, c, loadAware.Name, v1alpha1.ConditionReady, "")
		waitProfileCondition(ctx, c, loadAware.Name, v1alpha1.ConditionUsageAvailable, v1alpha1.ReasonUsageRead)

		nodes := append(slices.Clone(busy), idle...)
		By("placing two pods by requests: onto the busy nodes")
		Expect(placePods(ctx, ns, "by-requests", byRequests.Spec.SchedulerName, nodes, 2)).To(HaveEach(BeElementOf(busy)))
		By("placing four pods with LoadAwareScheduling and TargetLoadPacking: onto the idle nodes")
		Expect(placePods(ctx, ns, "by-usage", loadAware.Spec.SchedulerName, nodes, 4)).To(HaveEach(BeElementOf(idle)))
	}, SpecTimeout(3*time.Minute))

	It("evicts from the node whose real usage is high, and nothing from the idle ones", func(ctx SpecContext) {
		m := startManager("berth-manager-usage-eviction")
		ns := newNamespace(ctx)
		waitOtherSpecsGone(ctx, ns)
		c := berthClient()
		hot, calm := localcluster.NodeName(15), localcluster.NodeName(14)

		// Four replicas of 7 CPUs each make the hot node 88% busy; their
		// requests (100m) say nothing of it. Two idle replicas on the calm
		// node. The replicas name their node, so no profile of Berth places
		// them and the policy does not check where their replacements go
		// (back to the hot node: the policy runs once).
		createPinnedDeployment(ctx, ns, "hot", hot, 4, "7")
		createPinnedDeployment(ctx, ns, "calm", calm, 2, "")
		var calmPods []string
		Eventually(ctx, func(g Gomega) {
			counts, pods := countPods(ctx, ns)
			g.Expect(counts.running).To(Equal(6))
			calmPods = calmPods[:0]
			for _, p := range pods {
				if p.Labels["app"] == "calm" {
					calmPods = append(calmPods, p.Name)
				}
			}
		}).WithTimeout(time.Minute).Should(Succeed())

		By("waiting until metrics-server reports the hot node's use and every hot pod's")
		waitNodeCPU(ctx, map[string]float64{hot: 28, calm: 0})
		Eventually(ctx, func(g Gomega) {
			list, err := metricsClient().MetricsV1beta1().PodMetricses(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=hot"})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(list.Items).To(HaveLen(4))
			for _, pm := range list.Items {
				var cpu resource.Quantity
				for _, ct := range pm.Containers {
					cpu.Add(ct.Usage[corev1.ResourceCPU])
				}
				g.Expect(cpu.AsApproximateFloat64()).To(BeNumerically("~", 7, 0.5), "pod %s", pm.Name)
			}
		}).WithTimeout(metricsWait).WithPolling(time.Second).Should(Succeed())

		m.waitReady(ctx)
		policy := &v1alpha1.RebalancePolicy{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-usage-"},
			Spec: v1alpha1.RebalancePolicySpec{
				Schedule:         v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}},
				DryRun:           ptr.To(false),
				Namespaces:       &v1alpha1.NamespaceFilter{Include: []string{ns}},
				MetricsProviders: []v1alpha1.MetricsProvider{{Source: v1alpha1.MetricsSourceKubernetesMetrics}},
				Strategies: []v1alpha1.Strategy{{Name: "LowNodeUtilization", Args: runtime.RawExtension{Raw: []byte(
					`{"thresholds":{"cpu":20,"memory":20},"targetThresholds":{"cpu":50,"memory":50},` +
						`"metricsUtilization":{"source":"KubernetesMetrics"}}`)}}},
			},
		}
		Expect(c.Create(ctx, policy)).To(Succeed())
		DeferCleanup(func() { _ = c.Delete(background(), policy) })

		// 88% less two pods of 22% is 44%, under the 50% target: two go.
		expectLastRun(ctx, c, policy, map[v1alpha1.EvictionResult]int{v1alpha1.EvictionEvicted: 2})
		var got v1alpha1.RebalancePolicy
		Expect(c.Get(ctx, client.ObjectKeyFromObject(policy), &got)).To(Succeed())
		Expect(got.Status.LastRun.Result).To(Equal(v1alpha1.RunSucceeded))
		for _, e := range got.Status.Plan {
			Expect(e.Node).To(Equal(hot), "planned eviction %+v", e)
			Expect(e.Reason).To(ContainSubstring("usage from metrics-server is above targetThresholds"))
		}
		_, pods := countPods(ctx, ns)
		var left []string
		for _, p := range pods {
			if p.Labels["app"] == "calm" {
				left = append(left, p.Name)
			}
		}
		Expect(left).To(ConsistOf(calmPods), "a pod of the idle node went")
	}, SpecTimeout(3*time.Minute))
})

// createPinnedPod creates a pod on node, placed there as a kubelet's static
// pod would be, with the given requests.
func createPinnedPod(ctx context.Context, ns, name, node, cpu, memory string) {
	GinkgoHelper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			NodeName:                     node,
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			}}},
		},
	}
	_, err := cluster.Clientset.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// createResourceUsage has kwok report that the pod named name uses cpu and
// memory (each of its containers).
func createResourceUsage(ctx context.Context, ns, name, cpu, memory string) {
	GinkgoHelper()
	dyn, err := dynamic.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	usage := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "ResourceUsage",
		"metadata":   map[string]any{"namespace": ns, "name": name},
		"spec": map[string]any{"usages": []any{map[string]any{"usage": map[string]any{
			"cpu":    map[string]any{"value": cpu},
			"memory": map[string]any{"value": memory},
		}}}},
	}}
	gvr := schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "resourceusages"}
	_, err = dyn.Resource(gvr).Namespace(ns).Create(ctx, usage, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// createPinnedDeployment creates a Deployment whose replicas run on node,
// each using cpu as kwok reports it (kwok's default when empty).
func createPinnedDeployment(ctx context.Context, ns, name, node string, replicas int32, cpu string) {
	GinkgoHelper()
	d := makeDeployment(ns, name).replicas(replicas).req("100m", "128Mi").obj()
	d.Spec.Template.Spec.NodeName = node
	if cpu != "" {
		d.Spec.Template.Annotations = map[string]string{localcluster.UsageCPUAnnotation: cpu}
	}
	_, err := cluster.Clientset.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// metricsClient reads metrics.k8s.io, served by the cluster's metrics-server.
func metricsClient() metricsclient.Interface {
	GinkgoHelper()
	mc, err := metricsclient.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	return mc
}

// waitNodeCPU waits until each node's NodeMetrics shows about the CPUs
// given, its own 100m aside.
func waitNodeCPU(ctx context.Context, want map[string]float64) {
	GinkgoHelper()
	mc := metricsClient()
	Eventually(ctx, func(g Gomega) {
		for node, cpus := range want {
			nm, err := mc.MetricsV1beta1().NodeMetricses().Get(ctx, node, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			cpu := nm.Usage[corev1.ResourceCPU]
			g.Expect(cpu.AsApproximateFloat64()).To(BeNumerically("~", cpus+0.1, 0.5), "node %s", node)
		}
	}).WithTimeout(metricsWait).WithPolling(time.Second).Should(Succeed())
}

// newProfile is a SchedulingProfile of the given plugins, named and
// scheduling as name.
func newProfile(name string, plugins *v1alpha1.Plugins) *v1alpha1.SchedulingProfile {
	return &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.SchedulingProfileSpec{SchedulerName: name, Plugins: plugins},
	}
}

// waitProfileCondition waits until the profile's condition is True, with
// reason when it is not empty.
func waitProfileCondition(ctx context.Context, c client.Client, name, condition, reason string) {
	GinkgoHelper()
	Eventually(ctx, func(g Gomega) {
		var p v1alpha1.SchedulingProfile
		g.Expect(c.Get(ctx, client.ObjectKey{Name: name}, &p)).To(Succeed())
		cond := meta.FindStatusCondition(p.Status.Conditions, condition)
		g.Expect(cond).NotTo(BeNil(), "profile %s has no %s condition", name, condition)
		g.Expect(cond.Status).To(Equal(metav1.ConditionTrue), "profile %s: %s", name, cond.Message)
		if reason != "" {
			g.Expect(cond.Reason).To(Equal(reason))
		}
	}).WithTimeout(time.Minute).Should(Succeed())
}

// placePods creates n pods of 250m for schedulerName, allowed on nodes
// only, and returns the nodes they are bound to.
func placePods(ctx context.Context, ns, prefix, schedulerName string, nodes []string, n int) []string {
	GinkgoHelper()
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: nodes}},
		}}},
	}}
	cpu := resource.MustParse("250m")
	for i := range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", prefix, i)},
			Spec: corev1.PodSpec{
				SchedulerName:                schedulerName,
				Affinity:                     affinity,
				AutomountServiceAccountToken: ptr.To(false),
				Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: cpu},
				}}},
			},
		}
		_, err := cluster.Clientset.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
	placed := make([]string, n)
	Eventually(ctx, func(g Gomega) {
		for i := range n {
			p, err := cluster.Clientset.CoreV1().Pods(ns).Get(ctx, fmt.Sprintf("%s-%d", prefix, i), metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s is not bound", p.Name)
			placed[i] = p.Spec.NodeName
		}
	}).WithTimeout(30 * time.Second).Should(Succeed())
	return placed
}
