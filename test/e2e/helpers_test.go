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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// newNamespace creates a namespace for one spec and deletes it afterwards.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := cluster.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = cluster.Clientset.CoreV1().Namespaces().Delete(background(), ns.Name, metav1.DeleteOptions{})
	})
	// Pods are admitted only once the namespace's default ServiceAccount exists.
	Eventually(ctx, func() error {
		_, err := cluster.Clientset.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).Should(Succeed())
	return ns.Name
}

// waitOtherSpecsGone waits until no pod of another spec's namespace is left
// on a node: the namespaces of earlier specs are deleted in the background,
// and their terminating pods would still count on their nodes for a spec
// that depends on where the scheduler finds room.
func waitOtherSpecsGone(ctx context.Context, ns string) {
	GinkgoHelper()
	Eventually(ctx, func() ([]string, error) {
		pods, err := cluster.Clientset.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var left []string
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && p.Namespace != ns && strings.HasPrefix(p.Namespace, "e2e-") {
				left = append(left, p.Namespace+"/"+p.Name)
			}
		}
		return left, nil
	}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(BeEmpty(), "pods of earlier specs still on nodes")
}

// podCounts tells how many of a namespace's pods are bound and Running.
type podCounts struct{ total, bound, running int }

func countPods(ctx context.Context, ns string) (podCounts, []corev1.Pod) {
	GinkgoHelper()
	pods, err := cluster.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var c podCounts
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		c.total++
		if p.Spec.NodeName != "" {
			c.bound++
		}
		if p.Status.Phase == corev1.PodRunning {
			c.running++
		}
	}
	return c, pods.Items
}

// scheduledEvents counts the Scheduled events of each pod of ns.
func scheduledEvents(ctx context.Context, ns string) map[types.UID]int {
	GinkgoHelper()
	events, err := cluster.Clientset.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=Scheduled"})
	Expect(err).NotTo(HaveOccurred())
	out := map[types.UID]int{}
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "Pod" {
			out[e.InvolvedObject.UID] += max(int(e.Count), 1)
		}
	}
	return out
}

// expectEachPodBoundOnce checks that every pod sits on a kwok node and was
// bound by exactly one scheduling decision.
func expectEachPodBoundOnce(ctx context.Context, ns string, pods []corev1.Pod) {
	GinkgoHelper()
	var events map[types.UID]int
	// Events are written asynchronously; wait until every bound pod has one.
	Eventually(ctx, func(g Gomega) {
		events = scheduledEvents(ctx, ns)
		for _, p := range pods {
			g.Expect(events).To(HaveKey(p.UID), "pod %s has no Scheduled event", p.Name)
		}
	}).Should(Succeed())
	for _, p := range pods {
		Expect(strings.HasPrefix(p.Spec.NodeName, "kwok-node-")).To(BeTrue(), "pod %s is on %q", p.Name, p.Spec.NodeName)
		Expect(events[p.UID]).To(Equal(1), "pod %s was bound %d times", p.Name, events[p.UID])
	}
}
