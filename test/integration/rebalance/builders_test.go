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

package rebalance_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// createNamespace creates a namespace for one spec and deletes it and its pods after.
func createNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	ns, err := clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		// envtest runs no namespace controller: delete the pods explicitly.
		Expect(clientset.CoreV1().Pods(ns.Name).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{})).To(Succeed())
		Expect(clientset.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	return ns.Name
}

// createNode creates the node, then makes it Ready with room for 110 pods,
// 4 CPUs and 8Gi and keeps only its own taints, and deletes it after the
// spec.
func createNode(ctx context.Context, node *corev1.Node) {
	GinkgoHelper()
	nodes := clientset.CoreV1().Nodes()
	created, err := nodes.Create(ctx, node, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	created.Status = corev1.NodeStatus{
		Allocatable: corev1.ResourceList{
			corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"),
		},
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
	}
	created.Status.Capacity = created.Status.Allocatable
	created, err = nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	// The apiserver taints new nodes not-ready and envtest runs no node
	// lifecycle controller to lift it: keep only the spec's taints.
	created.Spec.Taints = node.Spec.Taints
	_, err = nodes.Update(ctx, created, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	// The rebalancer's snapshot must see the node as it is now.
	Eventually(func(g Gomega) {
		seen, err := nodeLister.Get(node.Name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(seen.Spec.Taints).To(HaveLen(len(node.Spec.Taints)))
		g.Expect(seen.Status.Allocatable).NotTo(BeEmpty())
	}).WithTimeout(10 * time.Second).Should(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(nodes.Delete(ctx, node.Name, metav1.DeleteOptions{})).To(Succeed())
	})
}

// boundPod starts a pod of image "app" bound to the node.
func boundPod(ns, name, node string) *st.PodBuilder {
	return st.Pod(name).Namespace(ns).NodeName(node).Image("app")
}

// replicaPod is a boundPod owned by ReplicaSet "rs".
func replicaPod(ns, name, node string) *st.PodBuilder {
	return boundPod(ns, name, node).Owner("apps/v1", "ReplicaSet", "rs")
}

// createPod creates the pod running and ready, as a kubelet would report it:
// the Eviction API consults PodDisruptionBudgets only for such pods.
func createPod(ctx context.Context, pod *corev1.Pod) {
	GinkgoHelper()
	pods := clientset.CoreV1().Pods(pod.Namespace)
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	created.Status.Phase = corev1.PodRunning
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	_, err = pods.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// waitForPods blocks until the rebalancer's informer sees n pods in ns.
func waitForPods(ns string, n int) {
	GinkgoHelper()
	Eventually(func() (int, error) {
		pods, err := podLister.Pods(ns).List(everything())
		return len(pods), err
	}).WithTimeout(10 * time.Second).Should(Equal(n))
}

// taintPolicy evicts, from the namespace, the pods that do not tolerate taint.
func taintPolicy(name, ns, taint string, dryRun bool) *v1alpha1.RebalancePolicy {
	return &v1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.RebalancePolicySpec{
			Schedule:   v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}},
			DryRun:     ptr.To(dryRun),
			Namespaces: &v1alpha1.NamespaceFilter{Include: []string{ns}},
			Strategies: []v1alpha1.Strategy{{
				Name: "RemovePodsViolatingNodeTaints",
				Args: k8sruntime.RawExtension{Raw: fmt.Appendf(nil, `{"includedTaints":[%q]}`, taint)},
			}},
		},
	}
}

// createPolicy creates the policy and deletes it after the spec.
func createPolicy(ctx context.Context, p *v1alpha1.RebalancePolicy) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, p)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, p))).To(Succeed()) })
}

// lastRun waits for the policy's first run and returns its status.
func lastRun(ctx context.Context, name string) v1alpha1.RebalancePolicyStatus {
	GinkgoHelper()
	var p v1alpha1.RebalancePolicy
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &p)).To(Succeed())
		g.Expect(p.Status.LastRun).NotTo(BeNil())
		g.Expect(p.Status.LastRun.CompletionTime).NotTo(BeNil(), "the run has not completed")
	}).WithTimeout(20 * time.Second).Should(Succeed())
	return p.Status
}

// plan maps pod names to their result in a plan.
func plan(status v1alpha1.RebalancePolicyStatus) map[string]v1alpha1.EvictionResult {
	out := map[string]v1alpha1.EvictionResult{}
	for _, e := range status.Plan {
		out[e.Pod] = e.Result
	}
	return out
}

// terminating names the pods of ns that are being deleted or gone, of names.
func terminating(ctx context.Context, ns string, names ...string) []string {
	GinkgoHelper()
	var out []string
	for _, name := range names {
		pod, err := clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || pod.DeletionTimestamp != nil {
			out = append(out, name)
		}
	}
	return out
}

// blockingPDB creates a PodDisruptionBudget over app=label with no disruption allowed.
func blockingPDB(ctx context.Context, ns, label string) {
	GinkgoHelper()
	pdbs := clientset.PolicyV1().PodDisruptionBudgets(ns)
	pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "guard"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": label}},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	// envtest runs no disruption controller: the status is the test's to set.
	pdb.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1,
	}
	_, err = pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}
