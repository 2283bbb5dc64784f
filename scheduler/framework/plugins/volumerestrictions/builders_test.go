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

package volumerestrictions

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// usedClaims answers IsPVCUsedByPods from a set of namespace/name claim keys.
type usedClaims sets.Set[string]

func (u usedClaims) IsPVCUsedByPods(key string) bool { return sets.Set[string](u).Has(key) }

// newPlugin builds the plugin over the claims, with the namespace/name
// claim keys in used reported as in use.
func newPlugin(t testing.TB, used []string, pvcs ...*v1.PersistentVolumeClaim) *VolumeRestrictions {
	t.Helper()
	h := &st.Handle{
		Informers: informers.NewSharedInformerFactory(fake.NewClientset(), 0),
		Snapshot:  &st.Lister{Storage: usedClaims(sets.New(used...))},
	}
	idx := h.Informers.Core().V1().PersistentVolumeClaims().Informer().GetIndexer()
	for _, c := range pvcs {
		if err := idx.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	pl, err := New(context.Background(), nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*VolumeRestrictions)
}

// pvc returns a claim in "default" with the access modes.
func pvc(name string, modes ...v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.PersistentVolumeClaimSpec{AccessModes: modes},
	}
}

// gce is a GCE persistent disk.
func gce(disk string, ro bool) v1.VolumeSource {
	return v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: disk, ReadOnly: ro}}
}

// ebs is an AWS EBS volume.
func ebs(id string, ro bool) v1.VolumeSource {
	return v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id, ReadOnly: ro}}
}

// iscsi is an iSCSI volume.
func iscsi(iqn string, ro bool) v1.VolumeSource {
	return v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{IQN: iqn, ReadOnly: ro}}
}

// rbd is a Ceph RBD image.
func rbd(pool, image string, ro bool, monitors ...string) v1.VolumeSource {
	return v1.VolumeSource{RBD: &v1.RBDVolumeSource{CephMonitors: monitors, RBDPool: pool, RBDImage: image, ReadOnly: ro}}
}

// nodeWith returns a NodeInfo for node "n" holding the pods.
func nodeWith(pods ...*v1.Pod) *framework.NodeInfo {
	return st.NodeInfo(st.Node("n").Obj(), pods...)
}
