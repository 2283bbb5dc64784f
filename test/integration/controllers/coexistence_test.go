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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/config/argocd"
	"github.com/berth-io/berth/controllers"
)

// recordScheduled writes the Scheduled event kube-scheduler writes for a pod
// it bound, reported by reporter.
func recordScheduled(ctx context.Context, pod *corev1.Pod, node, reporter string) {
	GinkgoHelper()
	now := time.Now()
	ev := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: fmt.Sprintf("%s.%x", pod.Name, now.UnixNano())},
		EventTime:  metav1.NewMicroTime(now),
		Regarding:  corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Type:       corev1.EventTypeNormal, Reason: "Scheduled", Action: "Binding",
		Note:                fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node),
		ReportingController: reporter, ReportingInstance: reporter + "-control-plane",
	}
	_, err := clientset.EventsV1().Events(pod.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "recording the Scheduled event of %s", pod.Name)
}

var _ = Describe("Beside another scheduler", func() {
	It("reports pods of its schedulerName that another scheduler binds, and keeps scheduling", func(ctx SpecContext) {
		ns := createNamespace(ctx, "coexist")
		nodes := createNodes(ctx, "coexist", 1, "cpu", "4", "memory", "16Gi")
		createProfile(ctx, newProfile("coexist").SchedulerName("coexist-sched").Obj())
		waitActive(ctx, "coexist")

		By("Berth binding a pod and a pod created bound are nobody else's doing")
		waitBound(ctx, ns, []string{createPod(ctx, newPod(ns, "own", "coexist-sched").Obj()).Name})
		createPod(ctx, newPod(ns, "created-bound", "coexist-sched").NodeName(nodes[0]).Obj())

		By("a second scheduler binds a pod that Berth found no node for")
		stray := createPod(ctx, newPod(ns, "stray", "coexist-sched").NodeSelector("coexist", "nowhere").Obj())
		Eventually(func(g Gomega) {
			pod, err := clientset.CoreV1().Pods(ns).Get(ctx, stray.Name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			c := podScheduled(pod)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(corev1.PodReasonUnschedulable))
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())
		bind(ctx, stray, nodes[0])
		recordScheduled(ctx, stray, nodes[0], "default-scheduler")

		By("the profile says so in a condition and an event, and stays Ready")
		var p v1alpha1.SchedulingProfile
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "coexist"}, &p)).To(Succeed())
			c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ConditionSchedulerConflict)
			g.Expect(c).NotTo(BeNil(), "no SchedulerConflict condition")
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
			g.Expect(c.Reason).To(Equal(v1alpha1.ReasonPodsBoundByAnotherScheduler))
			// One pod: Berth's own and the one created bound are not counted.
			g.Expect(c.Message).To(HavePrefix("another scheduler binds pods of schedulerName coexist-sched: 1 since "))
			g.Expect(c.Message).To(ContainSubstring(fmt.Sprintf("the latest %s/stray by default-scheduler", ns)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
		Expect(findCondition(&p, v1alpha1.ConditionReady).Status).To(Equal(metav1.ConditionTrue))
		Eventually(func(g Gomega) {
			evs, err := clientset.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "reason=" + controllers.EventPodsBoundByAnotherScheduler})
			g.Expect(err).NotTo(HaveOccurred())
			var notes []string
			for _, ev := range evs.Items {
				if ev.Regarding.Name == "coexist" && ev.Type == corev1.EventTypeWarning {
					notes = append(notes, ev.Note)
				}
			}
			g.Expect(notes).To(ConsistOf(fmt.Sprintf("another scheduler bound 1 more pod(s) of schedulerName coexist-sched, the latest %s/stray by default-scheduler: two schedulers serve this name", ns)))
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())

		By("GitOps tools read the profile as healthy: the condition is informational")
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("SchedulingProfile"))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "coexist"}, u)).To(Succeed())
		res, err := status.Compute(u)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status).To(Equal(status.CurrentStatus), res.Message)
		health, msg, err := argocd.Health(u.Object)
		Expect(err).NotTo(HaveOccurred())
		Expect(health).To(Equal("Healthy"), msg)
		Expect(msg).To(ContainSubstring("; warning: PodsBoundByAnotherScheduler: another scheduler binds pods of schedulerName coexist-sched"))

		By("Berth keeps scheduling the name")
		waitBound(ctx, ns, []string{createPod(ctx, newPod(ns, "after", "coexist-sched").Obj()).Name})
	})
})
