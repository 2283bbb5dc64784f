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

package faults_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var _ = Describe("pods waiting in PreBind", func() {
	It("keep no other pod waiting: 1,000 plain pods bind within 60 s while 100 wait for volumes never provisioned", func(ctx SpecContext) {
		const waiting, plain = 100, 1000
		ns := newNamespace(ctx, "prebind")
		class := ns + "-never"
		_, err := client.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
			ObjectMeta:        metav1.ObjectMeta{Name: class},
			Provisioner:       "example.com/never-provisions",
			VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = client.StorageV1().StorageClasses().Delete(background(), class, metav1.DeleteOptions{}) })

		m := startManager("berth-prebind")
		m.waitReady(ctx)
		m.waitLeader(ctx)
		b := watchBindings(ctx, ns)

		var volumePods []*corev1.Pod
		for i := range waiting {
			name := fmt.Sprintf("volume-%d", i)
			_, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: corev1.PersistentVolumeClaimSpec{
					StorageClassName: ptr.To(class),
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			p := podSpec(ns, name, "100m", "128Mi")
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}
			volumePods = append(volumePods, p)
		}
		createPods(ctx, volumePods)
		// Every volume pod reaches PreBind (its claim gets the selected
		// node) and, waiting there, publishes its nominated node.
		Eventually(ctx, func(g Gomega) {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			nominated := 0
			for _, p := range pods.Items {
				if p.Spec.NodeName == "" && p.Status.NominatedNodeName != "" {
					nominated++
				}
			}
			g.Expect(nominated).To(Equal(waiting))
		}).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())

		start := time.Now()
		created := createPods(ctx, manyPods(ns, "plain", plain, "100m", "128Mi"))
		b.waitBound(ctx, plain, 60*time.Second)
		lat := b.latencies(created)
		Expect(lat).To(HaveLen(plain))
		figure("prebind/seconds-to-bind-1000-plain-pods", time.Since(start).Round(100*time.Millisecond).Seconds())
		figure("prebind/plain-pod-p50-latency", percentile(lat, 50).Round(time.Millisecond))
		figure("prebind/plain-pod-p99-latency", percentile(lat, 99).Round(time.Millisecond))
		figure("prebind/volume-pods-bound", b.count()-plain)
		Expect(b.count()).To(Equal(plain), "a pod whose volume is never provisioned was bound")
	}, SpecTimeout(5*time.Minute))
})
