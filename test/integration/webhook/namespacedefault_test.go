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

package webhook_test

import (
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// warningRecorder keeps the warnings the apiserver sends back.
type warningRecorder struct {
	mu   sync.Mutex
	seen []string
}

// HandleWarningHeaderWithContext records one warning.
func (r *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, text)
}

// take returns the warnings recorded since the last take.
func (r *warningRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	return out
}

// labelledNamespace creates a namespace whose pods default to
// schedulerName (none when empty) and deletes it when the spec ends.
func labelledNamespace(ctx context.Context, schedulerName string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "nsdefault-"}}
	if schedulerName != "" {
		ns.Labels = map[string]string{v1alpha1.SchedulerNameLabel: schedulerName}
	}
	Expect(create(ctx, ns)).To(Succeed())
	return ns.Name
}

// createPod creates pod and returns it as the apiserver stored it, with the
// warnings its creation drew.
func createPod(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, []string) {
	GinkgoHelper()
	warnings.take()
	Expect(create(ctx, pod)).To(Succeed())
	got := warnings.take()
	stored := &corev1.Pod{}
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pod), stored)).To(Succeed())
	return stored, got
}

var _ = Describe("The namespace default", func() {
	It("gives pods of a labelled namespace its schedulerName, and warns while no profile serves it", func(ctx SpecContext) {
		ns := labelledNamespace(ctx, "batch")
		unnamed := berthtest.NewPod(ns, "unnamed").SchedulerName("").Obj()
		stored, warned := createPod(ctx, unnamed)
		Expect(stored.Spec.SchedulerName).To(Equal("batch"))
		Expect(warned).To(ContainElement(ContainSubstring(`no SchedulingProfile serves schedulerName "batch" yet`)))

		stored, _ = createPod(ctx, berthtest.NewPod(ns, "default").SchedulerName(corev1.DefaultSchedulerName).Obj())
		Expect(stored.Spec.SchedulerName).To(Equal("batch"))

		Expect(create(ctx, makeProfile("batch").obj())).To(Succeed())
		Eventually(func(g Gomega, ctx context.Context) {
			pod := berthtest.NewPod(ns, "").Obj()
			pod.GenerateName = "served-"
			stored, warned := createPod(ctx, pod)
			g.Expect(stored.Spec.SchedulerName).To(Equal("batch"))
			g.Expect(warned).To(BeEmpty())
		}).WithContext(ctx).Should(Succeed())
	})

	It("leaves a pod that names another scheduler alone", func(ctx SpecContext) {
		ns := labelledNamespace(ctx, "batch")
		stored, warned := createPod(ctx, berthtest.NewPod(ns, "gpu").SchedulerName("gpu").Obj())
		Expect(stored.Spec.SchedulerName).To(Equal("gpu"))
		Expect(warned).To(BeEmpty())
	})

	It("leaves pods of an unlabelled namespace alone", func(ctx SpecContext) {
		ns := labelledNamespace(ctx, "")
		stored, _ := createPod(ctx, berthtest.NewPod(ns, "plain").SchedulerName("").Obj())
		Expect(stored.Spec.SchedulerName).To(Equal(corev1.DefaultSchedulerName))
	})

	It("applies a label added after the namespace was created", func(ctx SpecContext) {
		ns := labelledNamespace(ctx, "")
		namespace := &corev1.Namespace{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
		namespace.Labels[v1alpha1.SchedulerNameLabel] = "batch"
		Expect(k8s.Update(ctx, namespace)).To(Succeed())
		stored, _ := createPod(ctx, berthtest.NewPod(ns, "late").Obj())
		Expect(stored.Spec.SchedulerName).To(Equal("batch"))
	})

	It("never touches Berth's own namespace", func(ctx SpecContext) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: berthNamespace,
			Labels: map[string]string{v1alpha1.SchedulerNameLabel: "batch"}}}
		Expect(create(ctx, ns)).To(Succeed())
		stored, _ := createPod(ctx, berthtest.NewPod(berthNamespace, "berth").Obj())
		Expect(stored.Spec.SchedulerName).To(Equal(corev1.DefaultSchedulerName))
	})

	It("never touches kube-system, even labelled", func(ctx SpecContext) {
		system := &corev1.Namespace{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, system)).To(Succeed())
		patch := client.MergeFrom(system.DeepCopy())
		system.Labels[v1alpha1.SchedulerNameLabel] = "batch"
		Expect(k8s.Patch(ctx, system, patch)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			patch := client.MergeFrom(system.DeepCopy())
			delete(system.Labels, v1alpha1.SchedulerNameLabel)
			Expect(k8s.Patch(ctx, system, patch)).To(Succeed())
		})
		stored, _ := createPod(ctx, berthtest.NewPod(metav1.NamespaceSystem, "system").Obj())
		Expect(stored.Spec.SchedulerName).To(Equal(corev1.DefaultSchedulerName))
	})
})
