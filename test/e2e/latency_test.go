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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/berthtest"
)

// latencyBound is the wide bound the latency specs hold Berth to: the
// figures they report are what matters, and they are far below it.
const latencyBound = 30 * time.Second

// idlePods is how many pods the idle figure is taken over, one at a time.
const idlePods = 5

var _ = Describe("scheduling latency", func() {
	DescribeTable("binds a pod soon after it is created on an idle cluster, and a waiting pod soon after a node fits it",
		func(ctx SpecContext, label string, flags ...string) {
			m := startManager("berth-manager-latency", flags...)
			m.waitReady(ctx)
			ns := newNamespace(ctx)
			w, err := cluster.Clientset.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(w.Stop)

			// The first pod waits for the manager to lead and its profile
			// to be compiled; it is not counted.
			create(ctx, berthtest.NewPod(ns, "warm-up").SchedulerName(sampleScheduler).Obj())
			Expect(waitPod(ctx, w, "warm-up", bound, 2*time.Minute)).To(Succeed())

			var idle []time.Duration
			for i := range idlePods {
				name := fmt.Sprintf("idle-%d", i)
				start := time.Now()
				create(ctx, berthtest.NewPod(ns, name).SchedulerName(sampleScheduler).Obj())
				Expect(waitPod(ctx, w, name, bound, latencyBound)).To(Succeed(), "pod %s bound within %v", name, latencyBound)
				idle = append(idle, time.Since(start))
			}

			// A pod that fits no node waits; then a node is labelled for it.
			key := "e2e.berth.io/latency-" + ns
			node := localcluster.NodeName(0)
			create(ctx, berthtest.NewPod(ns, "waiting").SchedulerName(sampleScheduler).NodeSelector(key, "yes").Obj())
			Expect(waitPod(ctx, w, "waiting", unschedulable, latencyBound)).To(Succeed())
			DeferCleanup(func() { labelNode(background(), node, key, nil) })
			start := time.Now()
			labelNode(ctx, node, key, ptr.To("yes"))
			Expect(waitPod(ctx, w, "waiting", bound, latencyBound)).To(Succeed(), "the waiting pod bound within %v of the label", latencyBound)
			fits := time.Since(start)

			slices.Sort(idle)
			figure := fmt.Sprintf("%s: creation to bind on an idle cluster, %d pods one at a time: median %v, max %v; "+
				"a node labelled to fit an unschedulable pod to its bind: %v",
				label, idlePods, idle[len(idle)/2].Round(time.Millisecond), idle[len(idle)-1].Round(time.Millisecond), fits.Round(time.Millisecond))
			AddReportEntry("scheduling latency, "+label, figure)
			GinkgoWriter.Println(figure)
		},
		Entry(nil, SpecTimeout(4*time.Minute), "popping from backoffQ (the default)"),
		Entry(nil, SpecTimeout(4*time.Minute), "--pop-from-backoff=false", "--pop-from-backoff=false"),
	)
})

// create creates the pod.
func create(ctx context.Context, pod *corev1.Pod) {
	GinkgoHelper()
	_, err := cluster.Clientset.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating pod %s", pod.Name)
}

// bound says whether the pod is on a node.
func bound(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

// unschedulable says whether the pod's PodScheduled condition says it fits no node.
func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// waitPod reads the namespace's pod watch until the named pod meets cond,
// for at most timeout. Events of other pods are dropped.
func waitPod(ctx context.Context, w watch.Interface, name string, cond func(*corev1.Pod) bool, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("pod %s: not done in %v", name, timeout)
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("pod %s: the watch closed", name)
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod && p.Name == name && ev.Type != watch.Deleted && cond(p) {
				return nil
			}
		}
	}
}

// labelNode sets (value non-nil) or removes the node's label key.
func labelNode(ctx context.Context, node, key string, value *string) {
	GinkgoHelper()
	v := "null"
	if value != nil {
		v = fmt.Sprintf("%q", *value)
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%s}}}`, key, v)
	_, err := cluster.Clientset.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred(), "labelling node %s: %s", node, strings.TrimSpace(patch))
}
