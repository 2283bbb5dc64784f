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
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	schedcache "github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var _ = Describe("the scheduling loop", func() {
	It("binds 1,000 pods onto 100 nodes without putting any node over its allocatable", func(ctx SpecContext) {
		ns := createNamespace(ctx, "many")
		for i := range 100 {
			createNode(ctx, newNode(fmt.Sprintf("many-%03d", i)).Obj())
		}
		s := startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		createPods(ctx, 1000, func(i int) *st.PodBuilder {
			return newPod(ns, fmt.Sprintf("p-%04d", i)).Requests("cpu", "300m", "memory", "1Gi")
		})

		var pods []corev1.Pod
		Eventually(func(g Gomega) {
			list, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			unbound := 0
			for _, p := range list.Items {
				if p.Spec.NodeName == "" {
					unbound++
				}
			}
			g.Expect(unbound).To(BeZero(), "pods not bound yet")
			pods = list.Items
		}).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(time.Second).Should(Succeed())
		Expect(pods).To(HaveLen(1000))

		nodes, err := clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		allocatable := map[string]corev1.ResourceList{}
		for _, n := range nodes.Items {
			allocatable[n.Name] = n.Status.Allocatable
		}
		for node, req := range requestedOn(pods) {
			Expect(allocatable).To(HaveKey(node))
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				a, r := allocatable[node][name], req[name]
				Expect(r.Cmp(a)).To(BeNumerically("<=", 0), "node %s: %s requested %s > allocatable %s", node, name, r.String(), a.String())
			}
		}

		// The cache converges on the apiserver's truth.
		Eventually(func() error {
			all, err := clientset.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			return schedcache.Compare(s.Cache(), nodeList(nodes.Items), podList(all.Items))
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
	}, SpecTimeout(5*time.Minute))

	It("reports a pod that fits nowhere as upstream does, and binds it within seconds of a fitting node appearing", func(ctx SpecContext) {
		ns := createNamespace(ctx, "nofit")
		createNode(ctx, newNode("nofit-small-1").Alloc("cpu", "1", "memory", "4Gi", "pods", "110").Obj())
		createNode(ctx, newNode("nofit-small-2").Alloc("cpu", "1", "memory", "4Gi", "pods", "110").Obj())
		registry := prometheus.NewRegistry()
		m, err := metrics.New(registry)
		Expect(err).NotTo(HaveOccurred())
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()}, scheduler.WithMetrics(m))

		pod := createPod(ctx, newPod(ns, "big").Requests("cpu", "2", "memory", "1Gi").Obj())
		const wantMessage = "0/2 nodes are available: 2 Insufficient cpu."
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil(), "no PodScheduled condition yet")
			g.Expect(cond.Status).To(Equal(corev1.ConditionFalse))
			g.Expect(cond.Reason).To(Equal(corev1.PodReasonUnschedulable))
			g.Expect(cond.Message).To(HavePrefix(wantMessage))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Eventually(func() ([]string, error) { return eventsFor(ctx, pod, "FailedScheduling") }).
			WithContext(ctx).WithTimeout(20 * time.Second).Should(ContainElement(HavePrefix(wantMessage)))

		createNode(ctx, newNode("nofit-big").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj())
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Spec.NodeName).To(Equal("nofit-big"))
		}).WithContext(ctx).WithTimeout(5 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
		Eventually(func() ([]string, error) { return eventsFor(ctx, pod, "Scheduled") }).
			WithContext(ctx).WithTimeout(10 * time.Second).Should(ContainElement(ContainSubstring("Successfully assigned %s/big to nofit-big", ns)))

		// The attempts show up in the metrics under upstream's names.
		Eventually(func(g Gomega) {
			attempts := "scheduler_schedule_attempts_total"
			families, err := registry.Gather()
			g.Expect(err).NotTo(HaveOccurred())
			results := map[string]float64{}
			for _, f := range families {
				if f.GetName() != attempts {
					continue
				}
				for _, sample := range f.GetMetric() {
					for _, l := range sample.GetLabel() {
						if l.GetName() == "result" {
							results[l.GetValue()] += sample.GetCounter().GetValue()
						}
					}
				}
			}
			g.Expect(results).To(HaveKeyWithValue("unschedulable", BeNumerically(">=", 1)))
			g.Expect(results).To(HaveKeyWithValue("scheduled", BeNumerically(">=", 1)))
		}).WithContext(ctx).WithTimeout(5 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("does not bind a pod that is deleted while it waits at Permit", func(ctx SpecContext) {
		ns := createNamespace(ctx, "deleted")
		createNode(ctx, newNode("deleted-node").Obj())
		hold := newHoldPlugin()
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: withPermitAndPreBind(defaultProfile())},
			scheduler.WithRegistry(registryWithHold(hold)))

		pod := createPod(ctx, newPod(ns, "doomed").Label(holdLabel, "true").Obj())
		Eventually(func() bool { return hold.waiting(pod.UID) != nil }).WithContext(ctx).WithTimeout(20 * time.Second).Should(BeTrue())

		Expect(clientset.CoreV1().Pods(ns).Delete(ctx, pod.Name, *metav1.NewDeleteOptions(0))).To(Succeed())
		Eventually(func() bool { return hold.waiting(pod.UID) == nil }).WithContext(ctx).WithTimeout(10*time.Second).Should(BeTrue(),
			"the deleted pod is still waiting at Permit")
		Consistently(func() bool { return hold.reachedPreBind(pod.UID) }).WithContext(ctx).WithTimeout(2*time.Second).Should(BeFalse(),
			"the deleted pod went on to PreBind")
		Expect(eventsFor(ctx, pod, "Scheduled")).To(BeEmpty())
	}, SpecTimeout(time.Minute))

	It("drops a pod that someone else binds while it waits at Permit, without complaint", func(ctx SpecContext) {
		ns := createNamespace(ctx, "stolen")
		createNode(ctx, newNode("stolen-a").Obj())
		createNode(ctx, newNode("stolen-b").Obj())
		hold := newHoldPlugin()
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: withPermitAndPreBind(defaultProfile())},
			scheduler.WithRegistry(registryWithHold(hold)))

		pod := createPod(ctx, newPod(ns, "contested").Label(holdLabel, "true").Obj())
		var waiting interface{ Allow(string) }
		Eventually(func() bool {
			wp := hold.waiting(pod.UID)
			if wp != nil {
				waiting = wp
			}
			return wp != nil
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(BeTrue())

		Expect(clientset.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pod.Name, UID: pod.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "stolen-b"},
		}, metav1.CreateOptions{})).To(Succeed())
		waiting.Allow(holdPluginName)

		Consistently(func(g Gomega) {
			got, err := getPod(ctx, ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Spec.NodeName).To(Equal("stolen-b"))
			cond := podScheduledCondition(got)
			g.Expect(cond == nil || cond.Status == corev1.ConditionTrue).To(BeTrue(), "the scheduler reported a failure: %+v", cond)
			failures, err := eventsFor(ctx, pod, "FailedScheduling")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(failures).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))

	It("stops promptly while a pod waits at Permit, leaving the pod pending", func(ctx SpecContext) {
		ns := createNamespace(ctx, "shutdown")
		createNode(ctx, newNode("shutdown-node").Obj())
		hold := newHoldPlugin()
		_, stop := startStoppableScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: withPermitAndPreBind(defaultProfile())},
			scheduler.WithRegistry(registryWithHold(hold)))

		pod := createPod(ctx, newPod(ns, "held").Label(holdLabel, "true").Obj())
		Eventually(func() bool { return hold.waiting(pod.UID) != nil }).WithContext(ctx).WithTimeout(20 * time.Second).Should(BeTrue())

		// The hold lasts a minute; stopping must not wait for it.
		start := time.Now()
		stop()
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		Expect(hold.reachedPreBind(pod.UID)).To(BeFalse(), "the held pod went on to PreBind")
		got, err := getPod(ctx, ns, pod.Name)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Spec.NodeName).To(BeEmpty())
	}, SpecTimeout(time.Minute))

	It("lets two profiles place their own pods without double-booking a node", func(ctx SpecContext) {
		ns := createNamespace(ctx, "two")
		for i := range 4 {
			createNode(ctx, newNode(fmt.Sprintf("two-%d", i)).Alloc("cpu", "2", "memory", "8Gi", "pods", "110").Obj())
		}
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{
			corev1.DefaultSchedulerName: defaultProfile(),
			"bin-packing":               binPackingProfile(),
		})

		// 16 slots of 500m; each profile asks for 8 at the same time.
		createPods(ctx, 16, func(i int) *st.PodBuilder {
			b := newPod(ns, fmt.Sprintf("p-%02d", i)).Requests("cpu", "500m", "memory", "256Mi")
			if i%2 == 1 {
				b.SchedulerName("bin-packing")
			}
			return b
		})
		Eventually(func(g Gomega) {
			list, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			for _, p := range list.Items {
				g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s is not bound", p.Name)
			}
			for node, req := range requestedOn(list.Items) {
				cpu := req[corev1.ResourceCPU]
				g.Expect(cpu.MilliValue()).To(BeNumerically("<=", 2000), "node %s is double-booked", node)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())

		extra := createPod(ctx, newPod(ns, "one-too-many").SchedulerName("bin-packing").Requests("cpu", "500m").Obj())
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, extra.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Spec.NodeName).To(BeEmpty())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(HavePrefix("0/4 nodes are available: 4 Insufficient cpu."))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))
})

// createPods creates n pods from build, eight at a time.
func createPods(ctx context.Context, n int, build func(i int) *st.PodBuilder) {
	GinkgoHelper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pod := build(i).Obj()
				if _, err := clientset.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("creating pod %s: %w", pod.Name, err)
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		Expect(err).NotTo(HaveOccurred())
	}
}

func nodeList(items []corev1.Node) []*corev1.Node {
	out := make([]*corev1.Node, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func podList(items []corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
