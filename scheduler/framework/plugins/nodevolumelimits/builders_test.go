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

package nodevolumelimits

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// newPlugin builds the plugin over the objects, put straight into the
// informers' indexers.
func newPlugin(t testing.TB, objs ...runtime.Object) *CSILimits {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	pl, err := New(context.Background(), nil, &st.Handle{Informers: f})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *v1.PersistentVolume:
			err = f.Core().V1().PersistentVolumes().Informer().GetIndexer().Add(o)
		case *v1.PersistentVolumeClaim:
			err = f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer().Add(o)
		case *storagev1.StorageClass:
			err = f.Storage().V1().StorageClasses().Informer().GetIndexer().Add(o)
		case *storagev1.CSINode:
			err = f.Storage().V1().CSINodes().Informer().GetIndexer().Add(o)
		case *storagev1.CSIDriver:
			err = f.Storage().V1().CSIDrivers().Informer().GetIndexer().Add(o)
		case *storagev1.VolumeAttachment:
			err = f.Storage().V1().VolumeAttachments().Informer().GetIndexer().Add(o)
		default:
			t.Fatalf("unexpected object %T", o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return pl.(*CSILimits)
}

// limit is a driver name with its attach limit; a negative count means no
// allocatable at all.
type limit struct {
	driver string
	count  int32
}

// csiNode returns the CSINode of the node with the drivers and limits.
func csiNode(node string, limits ...limit) *storagev1.CSINode {
	cn := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: node}}
	for _, l := range limits {
		d := storagev1.CSINodeDriver{Name: l.driver, NodeID: node}
		if l.count >= 0 {
			d.Allocatable = &storagev1.VolumeNodeResources{Count: ptr.To(l.count)}
		}
		cn.Spec.Drivers = append(cn.Spec.Drivers, d)
	}
	return cn
}

// csiPV returns a PV of the CSI driver with the handle.
func csiPV(name, driver, handle string) *v1.PersistentVolume {
	return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}},
	}}
}

// hostPathPV returns a PV without a CSI source.
func hostPathPV(name string) *v1.PersistentVolume {
	return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}},
	}}
}

// claim returns a claim in "default" bound to pv ("" for unbound) of class ("" for none).
func claim(name, pv, class string) *v1.PersistentVolumeClaim {
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.PersistentVolumeClaimSpec{VolumeName: pv},
	}
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	return c
}

// ephemeralClaim returns the claim of the pod's generic ephemeral volume,
// owned by the pod when owned is true.
func ephemeralClaim(pod *v1.Pod, volume, pv string, owned bool) *v1.PersistentVolumeClaim {
	c := claim(pod.Name+"-"+volume, pv, "")
	if owned {
		c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}
	}
	return c
}

// storageClass returns a class with the provisioner.
func storageClass(name, provisioner string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner}
}

// csiDriver returns a CSIDriver, optionally requiring presence on nodes.
func csiDriver(name string, requireOnNode bool) *storagev1.CSIDriver {
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: ptr.To(requireOnNode)}}
}

// attachment returns a VolumeAttachment of the PV to the node by the attacher.
func attachment(name, node, attacher, pv string) *storagev1.VolumeAttachment {
	va := &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.VolumeAttachmentSpec{NodeName: node, Attacher: attacher}}
	if pv != "" {
		va.Spec.Source.PersistentVolumeName = &pv
	}
	return va
}

// nodeWith returns a NodeInfo for node "n" holding the pods.
func nodeWith(pods ...*v1.Pod) *framework.NodeInfo {
	return st.NodeInfo(st.Node("n").Obj(), pods...)
}
