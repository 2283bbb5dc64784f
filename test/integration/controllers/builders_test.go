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
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// createNodes creates Ready nodes prefix-0..n-1 with room for 110 pods and
// the given allocatable, and deletes them when the spec ends.
func createNodes(ctx context.Context, prefix string, n int, alloc ...string) []string {
	GinkgoHelper()
	return createNodesLike(ctx, prefix, n, func(b *st.NodeBuilder) *st.NodeBuilder { return b }, alloc...)
}

// createNodesLike is createNodes for nodes that like makes of each (its
// labels and taints; the taint admission adds is lifted before like's apply).
func createNodesLike(ctx context.Context, prefix string, n int, like func(*st.NodeBuilder) *st.NodeBuilder, alloc ...string) []string {
	GinkgoHelper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		// The apiserver assigns the UID.
		node := st.Node(name).UID("").Hostname()
		nodes := clientset.CoreV1().Nodes()
		created, err := nodes.Create(ctx, node.Obj(), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred(), "creating node %s", name)
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(nodes.Delete(ctx, name, metav1.DeleteOptions{}))).To(Succeed())
		})
		// Lift the not-ready taint admission adds, as the node lifecycle controller would.
		base := created.DeepCopy()
		base.Spec.Taints = nil
		wanted := like(st.NodeFrom(base)).Obj()
		if len(created.Spec.Taints) > 0 || !equality.Semantic.DeepEqual(wanted, base) {
			created, err = nodes.Update(ctx, wanted, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		created.Status = node.Alloc(append([]string{"pods", "110"}, alloc...)...).Ready().Obj().Status
		_, err = nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		names = append(names, name)
	}
	return names
}

// newPod is a pending pod for the scheduler with one pause container, "app",
// requesting 500m CPU and 256Mi; the apiserver assigns its UID.
func newPod(namespace, name, schedulerName string) *st.PodBuilder {
	return st.Pod(name).UID("").Namespace(namespace).SchedulerName(schedulerName).
		ContainerName("app").Image("registry.k8s.io/pause:3.10").Req("cpu", "500m", "memory", "256Mi")
}

// createPod creates the pod.
func createPod(ctx context.Context, pod *corev1.Pod) *corev1.Pod {
	GinkgoHelper()
	created, err := clientset.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating pod %s", pod.Name)
	return created
}

// createPods creates n pods named prefix-0..n-1 from mk.
func createPods(ctx context.Context, n int, prefix string, mk func(name string) *st.PodBuilder) []string {
	GinkgoHelper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		createPod(ctx, mk(name).Obj())
		names = append(names, name)
	}
	return names
}

// waitBound waits for the pods to be bound and returns pod → node.
func waitBound(ctx context.Context, namespace string, pods []string) map[string]string {
	GinkgoHelper()
	placed := map[string]string{}
	Eventually(func(g Gomega) {
		for _, name := range pods {
			if placed[name] != "" {
				continue
			}
			p, err := clientset.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s is not bound", name)
			placed[name] = p.Spec.NodeName
		}
	}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
	return placed
}

// distinct returns the distinct nodes of the pods.
func distinct(placed map[string]string, pods []string) map[string]int {
	out := map[string]int{}
	for _, p := range pods {
		out[placed[p]]++
	}
	return out
}

// newProfile is a SchedulingProfile without the UID and generation the apiserver assigns.
func newProfile(name string) *st.ProfileBuilder { return st.Profile(name).UID("").Generation(0) }

// createProfile creates the profile and deletes it when the spec ends.
func createProfile(ctx context.Context, p *v1alpha1.SchedulingProfile) *v1alpha1.SchedulingProfile {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, p)).To(Succeed(), "creating SchedulingProfile %s", p.Name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: p.Name}}))).To(Succeed())
	})
	return p
}

// fitArgs are NodeResourcesFit's args scoring cpu with the strategy (MostAllocated or LeastAllocated).
func fitArgs(strategy string) string {
	return fmt.Sprintf(`{"scoringStrategy":{"type":%q,"resources":[{"name":"cpu","weight":1}]}}`, strategy)
}

// setFitStrategy sets NodeResourcesFit's args to fitArgs(strategy).
func setFitStrategy(spec *v1alpha1.SchedulingProfileSpec, strategy string) {
	raw := fitArgs(strategy)
	for i := range spec.PluginConfig {
		if spec.PluginConfig[i].Name == "NodeResourcesFit" {
			spec.PluginConfig[i].Args = k8sruntime.RawExtension{Raw: []byte(raw)}
			return
		}
	}
	spec.PluginConfig = append(spec.PluginConfig, v1alpha1.PluginConfig{Name: "NodeResourcesFit", Args: k8sruntime.RawExtension{Raw: []byte(raw)}})
}

// updateProfile edits a profile's spec with conflict retries and returns its new generation.
func updateProfile(ctx context.Context, name string, edit func(*v1alpha1.SchedulingProfile)) int64 {
	GinkgoHelper()
	var gen int64
	Eventually(func() error {
		var p v1alpha1.SchedulingProfile
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, &p); err != nil {
			return err
		}
		edit(&p)
		if err := k8sClient.Update(ctx, &p); err != nil {
			return err
		}
		gen = p.Generation
		return nil
	}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
	return gen
}

// getProfile reads a profile.
func getProfile(ctx context.Context, name string) *v1alpha1.SchedulingProfile {
	GinkgoHelper()
	var p v1alpha1.SchedulingProfile
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &p)).To(Succeed())
	return &p
}

// waitCondition waits until the profile's condition has the status and reason,
// for the profile's current generation, and returns the profile.
func waitCondition(ctx context.Context, name, typ string, status metav1.ConditionStatus, reason string) *v1alpha1.SchedulingProfile {
	GinkgoHelper()
	var p v1alpha1.SchedulingProfile
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &p)).To(Succeed())
		g.Expect(p.Status.ObservedGeneration).To(Equal(p.Generation))
		c := meta.FindStatusCondition(p.Status.Conditions, typ)
		g.Expect(c).NotTo(BeNil(), "no %s condition", typ)
		g.Expect(c.Status).To(Equal(status), "%s: %s", typ, c.Message)
		g.Expect(c.Reason).To(Equal(reason), "%s: %s", typ, c.Message)
	}).WithContext(ctx).WithTimeout(15 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
	return &p
}

// waitActive waits until the profile's current generation is live.
func waitActive(ctx context.Context, name string) *v1alpha1.SchedulingProfile {
	GinkgoHelper()
	p := waitCondition(ctx, name, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive)
	Expect(p.Status.ActiveGeneration).To(Equal(p.Generation))
	return p
}

// createWeight creates a PluginWeight on a profile (by reference) and deletes it when the spec ends.
func createWeight(ctx context.Context, name, profile, plugin string, weight int32) {
	GinkgoHelper()
	pw := &v1alpha1.PluginWeight{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.PluginWeightSpec{ProfileRef: &v1alpha1.ProfileReference{Name: profile}, Plugin: plugin, Weight: weight},
	}
	Expect(k8sClient.Create(ctx, pw)).To(Succeed(), "creating PluginWeight %s", name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pw))).To(Succeed())
	})
}

// waitApplied waits until the PluginWeight's Applied condition has the status and reason; it returns the message.
func waitApplied(ctx context.Context, name string, status metav1.ConditionStatus, reason string) *v1alpha1.PluginWeight {
	GinkgoHelper()
	var pw v1alpha1.PluginWeight
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &pw)).To(Succeed())
		c := meta.FindStatusCondition(pw.Status.Conditions, v1alpha1.ConditionApplied)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(status), c.Message)
		g.Expect(c.Reason).To(Equal(reason), c.Message)
	}).WithContext(ctx).WithTimeout(15 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
	return &pw
}

// effective returns the profile's effective entry for a plugin.
func effective(p *v1alpha1.SchedulingProfile, plugin string) *v1alpha1.EffectivePlugin {
	for i := range p.Status.EffectivePlugins {
		if p.Status.EffectivePlugins[i].Name == plugin {
			return &p.Status.EffectivePlugins[i]
		}
	}
	return nil
}
