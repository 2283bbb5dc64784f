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
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// newPodGroup is a PodGroup without the UID and generation the apiserver assigns.
func newPodGroup(namespace, name string, minCount int32) *st.PodGroupBuilder {
	return st.PodGroup(name, minCount).UID("").Generation(0).Namespace(namespace)
}

// createPodGroup creates the PodGroup and deletes it when the spec ends.
func createPodGroup(ctx context.Context, pg *v1alpha1.PodGroup) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, pg)).To(Succeed(), "creating PodGroup %s", pg.Name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pg))).To(Succeed())
	})
}

// bind binds the pod to node through pods/binding, as a scheduler would.
func bind(ctx context.Context, pod *corev1.Pod, node string) {
	GinkgoHelper()
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	Expect(clientset.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{})).To(Succeed(), "binding pod %s", pod.Name)
}

// setPhase sets the pod's status.phase, as its kubelet would.
func setPhase(ctx context.Context, namespace, name string, phase corev1.PodPhase) {
	GinkgoHelper()
	pods := clientset.CoreV1().Pods(namespace)
	Eventually(func() error {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Status.Phase = phase
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
}

// waitPodGroup waits until the PodGroup's status, for its current
// generation, shows the phase and counts, and returns the PodGroup.
func waitPodGroup(ctx context.Context, namespace, name string, phase v1alpha1.PodGroupPhase, scheduled, running int32) *v1alpha1.PodGroup {
	GinkgoHelper()
	var pg v1alpha1.PodGroup
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &pg)).To(Succeed())
		g.Expect(pg.Status.ObservedGeneration).To(Equal(pg.Generation))
		g.Expect(pg.Status.Phase).To(Equal(phase))
		g.Expect(pg.Status.Scheduled).To(Equal(scheduled))
		g.Expect(pg.Status.Running).To(Equal(running))
	}).WithContext(ctx).WithTimeout(15 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
	return &pg
}

// expectPodGroupCondition checks one of the PodGroup's conditions, for its current generation.
func expectPodGroupCondition(pg *v1alpha1.PodGroup, typ string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	c := meta.FindStatusCondition(pg.Status.Conditions, typ)
	Expect(c).NotTo(BeNil(), "no %s condition", typ)
	Expect(c.Status).To(Equal(status), "%s: %s", typ, c.Message)
	Expect(c.Reason).To(Equal(reason), "%s: %s", typ, c.Message)
	Expect(c.ObservedGeneration).To(Equal(pg.Generation))
}
