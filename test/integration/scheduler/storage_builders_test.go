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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// pvBuilder builds a 1Gi ReadWriteOnce PersistentVolume.
type pvBuilder struct{ pv *corev1.PersistentVolume }

// newPV is a 1Gi ReadWriteOnce hostPath volume with no class.
func newPV(name string) *pvBuilder {
	return &pvBuilder{pv: &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      st.List("storage", "1Gi"),
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data/" + name}},
		},
	}}
}

// zone labels the volume with a topology zone, as a zonal disk is.
func (b *pvBuilder) zone(z string) *pvBuilder {
	b.pv.Labels[corev1.LabelTopologyZone] = z
	return b
}

// onlyOn restricts the volume to the node with the given hostname.
func (b *pvBuilder) onlyOn(hostname string) *pvBuilder {
	b.pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{hostname}}},
	}}}}
	return b
}

// csi makes the volume a CSI volume of the driver.
func (b *pvBuilder) csi(driver string) *pvBuilder {
	b.pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: b.pv.Name}}
	return b
}

// boundTo creates a claim in namespace and the volume, bound to each other as
// the PV controller leaves them, and deletes the volume when the spec ends.
func (b *pvBuilder) boundTo(ctx context.Context, namespace, claim string) {
	GinkgoHelper()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: claim, Annotations: map[string]string{
			"pv.kubernetes.io/bind-completed": "yes",
		}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      b.pv.Spec.AccessModes,
			Resources:        corev1.VolumeResourceRequirements{Requests: st.List("storage", "1Gi")},
			VolumeName:       b.pv.Name,
			StorageClassName: ptr.To(""),
		},
	}
	pvc, err := clientset.CoreV1().PersistentVolumeClaims(namespace).Create(ctx, pvc, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating claim %s", claim)
	b.pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: claim, UID: pvc.UID}
	pvs := clientset.CoreV1().PersistentVolumes()
	pv, err := pvs.Create(ctx, b.pv, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating volume %s", b.pv.Name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(pvs.Delete(ctx, pv.Name, metav1.DeleteOptions{}))).To(Succeed())
	})
	pv.Status.Phase = corev1.VolumeBound
	_, err = pvs.UpdateStatus(ctx, pv, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred(), "marking volume %s bound", pv.Name)
	pvc.Status.Phase = corev1.ClaimBound
	pvc.Status.AccessModes = pvc.Spec.AccessModes
	pvc.Status.Capacity = pvc.Spec.Resources.Requests
	_, err = clientset.CoreV1().PersistentVolumeClaims(namespace).UpdateStatus(ctx, pvc, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred(), "marking claim %s bound", claim)
}

// createCSINode declares that a node's CSI driver can attach at most limit volumes.
func createCSINode(ctx context.Context, node, driver string, limit int32) {
	GinkgoHelper()
	csiNodes := clientset.StorageV1().CSINodes()
	created, err := csiNodes.Create(ctx, &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: node},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
			Name: driver, NodeID: node, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To(limit)},
		}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating CSINode %s", node)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(csiNodes.Delete(ctx, created.Name, metav1.DeleteOptions{}))).To(Succeed())
	})
}
