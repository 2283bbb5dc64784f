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
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/berth-io/berth/api/v1alpha1"
)

var _ = Describe("DefaultPreemption", func() {
	It("evicts exactly the cheapest victims and binds the preemptor to its nominated node", func(ctx SpecContext) {
		ns := createNamespace(ctx, "preempt")
		createPriorityClass(ctx, "preempt-low", 10)
		createPriorityClass(ctx, "preempt-mid", 20)
		createPriorityClass(ctx, "preempt-high", 1000)
		createNode(ctx, newNode("preempt-1").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("preempt-2").Alloc("cpu", "3", "memory", "16Gi", "pods", "110").Obj())
		// On preempt-1 the preemptor needs both low pods gone; on preempt-2 a
		// mid pod would have to go, which costs more. mid-c is reprieved.
		running := map[string]string{
			"low-a": "preempt-1", "low-b": "preempt-1", "mid-c": "preempt-1",
			"mid-d": "preempt-2", "mid-e": "preempt-2", "low-f": "preempt-2",
		}
		for name, node := range running {
			class := "preempt-mid"
			if name[:3] == "low" {
				class = "preempt-low"
			}
			createPod(ctx, newPod(ns, name).Requests("cpu", "1", "memory", "128Mi").PriorityClass(class).NodeName(node).Obj())
		}
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		pod := createPod(ctx, newPod(ns, "urgent").Requests("cpu", "2", "memory", "128Mi").PriorityClass("preempt-high").Obj())

		// The victims are marked and deleted; the preemptor is nominated.
		// Nothing finishes their termination yet: envtest has no kubelet.
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Status.NominatedNodeName).To(Equal("preempt-1"))
			g.Expect(got.Spec.NodeName).To(BeEmpty())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(HavePrefix("0/2 nodes are available: 2 Insufficient cpu. preemption: "))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		// The evictions run in the background, as upstream's.
		Eventually(func() ([]string, error) { return terminatingPods(ctx, ns) }).
			WithContext(ctx).WithTimeout(10 * time.Second).Should(ConsistOf("low-a", "low-b"))
		Consistently(func() ([]string, error) { return terminatingPods(ctx, ns) }).
			WithContext(ctx).WithTimeout(time.Second).Should(ConsistOf("low-a", "low-b"))
		for _, name := range []string{"low-a", "low-b"} {
			victim, err := getPod(ctx, ns, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(victim.Status.Conditions).To(ContainElement(And(
				HaveField("Type", corev1.DisruptionTarget),
				HaveField("Status", corev1.ConditionTrue),
				HaveField("Reason", corev1.PodReasonPreemptionByScheduler))))
		}
		Eventually(func() ([]string, error) {
			victim, err := getPod(ctx, ns, "low-a")
			if err != nil {
				return nil, err
			}
			return eventsFor(ctx, victim, "Preempted")
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(ContainElement(ContainSubstring("on node preempt-1")))

		// The "kubelet" finishes the victims' termination; the preemptor then binds where it was nominated.
		finishTermination(ctx, ns)
		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, pod.Name)
			if err != nil {
				return "", err
			}
			return got.Spec.NodeName, nil
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Equal("preempt-1"))

		// Exactly the two victims went; nobody else was touched.
		Expect(podNames(ctx, ns)).To(ConsistOf("urgent", "mid-c", "mid-d", "mid-e", "low-f"))
		Expect(terminatingPods(ctx, ns)).To(BeEmpty())
	}, SpecTimeout(2*time.Minute))

	It("spares a PDB-protected pod while another candidate exists", func(ctx SpecContext) {
		ns := createNamespace(ctx, "pdb")
		createPriorityClass(ctx, "pdb-low", 10)
		createPriorityClass(ctx, "pdb-mid", 20)
		createPriorityClass(ctx, "pdb-high", 1000)
		createNode(ctx, newNode("pdb-1").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		createNode(ctx, newNode("pdb-2").Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Obj())
		// Without the budget the cheaper victim would be the guarded pod.
		createPod(ctx, newPod(ns, "guarded").Requests("cpu", "2", "memory", "128Mi").PriorityClass("pdb-low").Label("app", "guarded").NodeName("pdb-1").Obj())
		createPod(ctx, newPod(ns, "plain").Requests("cpu", "2", "memory", "128Mi").PriorityClass("pdb-mid").NodeName("pdb-2").Obj())
		createBlockingPDB(ctx, ns, "guarded")
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		pod := createPod(ctx, newPod(ns, "urgent").Requests("cpu", "2", "memory", "128Mi").PriorityClass("pdb-high").Obj())
		Eventually(func() ([]string, error) { return terminatingPods(ctx, ns) }).
			WithContext(ctx).WithTimeout(20 * time.Second).Should(ConsistOf("plain"))
		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, pod.Name)
			if err != nil {
				return "", err
			}
			return got.Status.NominatedNodeName, nil
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Equal("pdb-2"))
		finishTermination(ctx, ns)
		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, pod.Name)
			if err != nil {
				return "", err
			}
			return got.Spec.NodeName, nil
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Equal("pdb-2"))
		guarded, err := getPod(ctx, ns, "guarded")
		Expect(err).NotTo(HaveOccurred())
		Expect(guarded.DeletionTimestamp).To(BeNil())
	}, SpecTimeout(2*time.Minute))
})

// createBlockingPDB creates a PodDisruptionBudget over pods labelled
// app=<app> that allows no disruption. envtest runs no disruption
// controller, so the spec writes the status that controller would.
func createBlockingPDB(ctx context.Context, ns, app string) {
	GinkgoHelper()
	one := intstr.FromInt32(1)
	pdbs := clientset.PolicyV1().PodDisruptionBudgets(ns)
	pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: app},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	pdb.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1,
	}
	_, err = pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// terminatingPods names the namespace's pods that are being deleted.
func terminatingPods(ctx context.Context, ns string) ([]string, error) {
	list, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil {
			out = append(out, p.Name)
		}
	}
	return out, nil
}

// podNames names the namespace's pods.
func podNames(ctx context.Context, ns string) ([]string, error) {
	list, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Items))
	for _, p := range list.Items {
		out = append(out, p.Name)
	}
	return out, nil
}

// finishTermination does what a kubelet would: it removes the pods that are
// being deleted.
func finishTermination(ctx context.Context, ns string) {
	GinkgoHelper()
	names, err := terminatingPods(ctx, ns)
	Expect(err).NotTo(HaveOccurred())
	for _, name := range names {
		err := clientset.CoreV1().Pods(ns).Delete(ctx, name, *metav1.NewDeleteOptions(0))
		Expect(err == nil || apierrors.IsNotFound(err)).To(BeTrue(), "removing terminating pod %s: %v", name, err)
	}
}
