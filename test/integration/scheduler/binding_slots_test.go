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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
)

// createWaitingClass creates a WaitForFirstConsumer StorageClass whose
// provisioner nobody runs: a pod's claims of it are never provisioned, so
// VolumeBinding's PreBind waits for them until its bind timeout.
func createWaitingClass(ctx context.Context, name string) {
	GinkgoHelper()
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       "example.com/never-provisions",
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
	}
	_, err := clientset.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		Expect(clientset.StorageV1().StorageClasses().Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
	})
}

// createClaim creates a 1Gi ReadWriteOnce claim of class.
func createClaim(ctx context.Context, ns, name, class string) {
	GinkgoHelper()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(class),
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	_, err := clientset.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

var _ = Describe("binding slots", func() {
	It("keeps scheduling other pods while more pods than binding slots wait in PreBind for their volumes", func(ctx SpecContext) {
		const slots = 2
		ns := createNamespace(ctx, "slots")
		createNode(ctx, newNode("slots-node").Obj())
		createWaitingClass(ctx, "slots-never")
		s := startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()},
			scheduler.WithBindingConcurrency(slots))

		// Twice as many pods as slots reach PreBind and wait there: their
		// claims get the selected-node annotation and are never provisioned.
		var waiting []string
		for i := range 2 * slots {
			name := fmt.Sprintf("volume-%d", i)
			createClaim(ctx, ns, name, "slots-never")
			createPod(ctx, newPod(ns, name).PVC(name).Obj())
			waiting = append(waiting, name)
		}
		Eventually(func(g Gomega) {
			for _, name := range waiting {
				pvc, err := clientset.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(pvc.Annotations).To(HaveKeyWithValue("volume.kubernetes.io/selected-node", "slots-node"),
					"claim %s has not reached PreBind", name)
			}
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())

		// A pod without volumes is still scheduled, and so is one of another profile.
		Expect(s.SetProfile(ctx, "other", "other", 1, defaultProfile())).To(Succeed())
		createPod(ctx, newPod(ns, "plain").Obj())
		createPod(ctx, newPod(ns, "other-profile").SchedulerName("other").Obj())
		expectBound(ctx, ns, "plain", "other-profile")
		expectUnbound(ctx, ns, waiting...)
	}, SpecTimeout(time.Minute))
})
