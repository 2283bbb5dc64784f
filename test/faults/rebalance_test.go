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

package faults_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/faults/faultproxy"
)

// packedDeployment is a Deployment of n one-CPU pods that the bin-packing
// profile puts on as few nodes as it can, so RemoveDuplicates finds
// duplicates to evict.
func packedDeployment(ns, name string, n int32, labels map[string]string) *appsv1.Deployment {
	pod := podSpec(ns, "", "1", "1Gi")
	pod.Spec.SchedulerName = "faults-packing"
	pod.Labels = labels
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(n),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod.Spec},
		},
	}
}

var rebalancePolicies = schema.GroupVersionResource{Group: "scheduling.berth.io", Version: "v1alpha1", Resource: "rebalancepolicies"}

var _ = Describe("rebalancing across failovers", func() {
	It("evicts no more than the policy's total limit per interval while the leader is killed three times", func(ctx SpecContext) {
		const limit = 5
		ns := newNamespace(ctx, "rebalance")
		// Packing, as config/samples' bin-packing profile: spreading scores off.
		applyProfile(ctx, "faults-packing", map[string]any{
			"plugins": map[string]any{
				"multiPoint": map[string]any{"enabled": []any{map[string]any{"name": "NodeResourcesFit", "weight": 3}}},
				"score": map[string]any{"disabled": []any{
					map[string]any{"name": "NodeResourcesBalancedAllocation"}, map[string]any{"name": "PodTopologySpread"},
				}},
			},
			"pluginConfig": []any{map[string]any{
				"name": "NodeResourcesFit",
				"args": map[string]any{"scoringStrategy": map[string]any{"type": "MostAllocated"}},
			}},
		})
		rs := startReplicas("berth-rebalance", 2)
		first := rs.leader(ctx)
		// The first leader's evictions each take 2 s, so that it is killed
		// in the middle of its run, after its first eviction.
		first.proxy.Inject(faultproxy.Rule{
			Match: faultproxy.Match{Verb: "create", Resource: "pods", Subresource: "eviction"},
			Fault: faultproxy.FaultDelay, Delay: 2 * time.Second,
		})

		_, err := client.AppsV1().Deployments(ns).Create(ctx, packedDeployment(ns, "packed", 20, map[string]string{"app": "packed"}), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		// Protected pods: the policy's evictor selects only app=packed.
		_, err = client.AppsV1().Deployments(ns).Create(ctx, packedDeployment(ns, "protected", 6, map[string]string{"app": "protected"}), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		// A budget the Eviction API enforces: at most 2 packed pods down.
		_, err = client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "packed"},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: ptr.To(intstr.FromInt32(2)),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "packed"}},
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func() int {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return 0
			}
			running := 0
			for _, p := range pods.Items {
				if p.Status.Phase == corev1.PodRunning {
					running++
				}
			}
			return running
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Equal(26))

		applier, err := localcluster.NewApplier(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(applier.Apply(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "scheduling.berth.io/v1alpha1",
			"kind":       "RebalancePolicy",
			"metadata":   map[string]any{"name": ns},
			"spec": map[string]any{
				"schedule":   map[string]any{"interval": "10m"},
				"dryRun":     false,
				"namespaces": map[string]any{"include": []any{ns}},
				"evictor":    map[string]any{"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "packed"}}},
				"limits":     map[string]any{"maxPodsToEvictTotal": limit},
				"strategies": []any{map[string]any{"name": "RemoveDuplicates"}},
			},
		}})).To(Succeed())
		DeferCleanup(func() {
			if dyn, err := dynamic.NewForConfig(cluster.Config); err == nil {
				_ = dyn.Resource(rebalancePolicies).Delete(background(), ns, deleteNow)
			}
		})
		Eventually(func() int { return total(auditedEvictions(ns)) }).WithContext(ctx).
			WithTimeout(time.Minute).WithPolling(100*time.Millisecond).Should(BeNumerically(">", 0), "the policy's first run evicted nothing")
		Expect(rs.leader(ctx)).To(BeIdenticalTo(first), "the first run was not the first leader's")
		figure("rebalance/evictions-before-the-first-kill", total(auditedEvictions(ns)))

		// Three failovers within the policy's interval; each new leader must
		// take up the schedule from the policy's status, not run again.
		for i := range 3 {
			leader := rs.leader(ctx)
			leader.Kill()
			Eventually(ctx, func() bool { return rs.leader(ctx) != leader }).
				WithTimeout(time.Minute).WithPolling(time.Second).Should(BeTrue(), "no new leader after kill %d", i+1)
			time.Sleep(10 * time.Second)
		}

		evictions := auditedEvictions(ns)
		figure("rebalance/evictions-in-one-interval-across-3-failovers", total(evictions))
		figure("rebalance/manager-restarts", len(rs.managers())-2)
		Expect(total(evictions)).To(BeNumerically("<=", limit))
		protected := 0
		for name, n := range evictions {
			if strings.HasPrefix(name, "protected-") {
				protected += n
			}
		}
		figure("rebalance/protected-pods-evicted", protected)
		Expect(protected).To(BeZero())
	}, SpecTimeout(10*time.Minute))
})

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
