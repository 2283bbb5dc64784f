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

// fakeHandle provides an informer factory and a snapshot whose StorageInfos
// answer from a set of used claim keys.
type fakeHandle struct {
	framework.Handle
	factory informers.SharedInformerFactory
	used    sets.Set[string]
}

func (h *fakeHandle) SharedInformerFactory() informers.SharedInformerFactory { return h.factory }
func (h *fakeHandle) SnapshotSharedLister() framework.SharedLister           { return h }
func (h *fakeHandle) NodeInfos() framework.NodeInfoLister                    { return nil }
func (h *fakeHandle) StorageInfos() framework.StorageInfoLister              { return h }
func (h *fakeHandle) IsPVCUsedByPods(key string) bool                        { return h.used.Has(key) }

// newPlugin builds the plugin over the claims, with the namespace/name
// claim keys in used reported as in use.
func newPlugin(t testing.TB, used []string, pvcs ...*v1.PersistentVolumeClaim) *VolumeRestrictions {
	t.Helper()
	h := &fakeHandle{factory: informers.NewSharedInformerFactory(fake.NewClientset(), 0), used: sets.New(used...)}
	idx := h.factory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer()
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

// podBuilder adds volumes to a pod.
type podBuilder struct{ pod *v1.Pod }

func makePod(name string) *podBuilder { return &podBuilder{pod: st.Pod(name).Obj()} }

func (b *podBuilder) ns(ns string) *podBuilder { b.pod.Namespace = ns; return b }

func (b *podBuilder) vol(src v1.VolumeSource) *podBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1.Volume{Name: "v" + string(rune('a'+len(b.pod.Spec.Volumes))), VolumeSource: src})
	return b
}

func (b *podBuilder) claim(name string) *podBuilder {
	return b.vol(v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: name}})
}

func (b *podBuilder) gce(disk string, ro bool) *podBuilder {
	return b.vol(v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: disk, ReadOnly: ro}})
}

func (b *podBuilder) ebs(id string, ro bool) *podBuilder {
	return b.vol(v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id, ReadOnly: ro}})
}

func (b *podBuilder) iscsi(iqn string, ro bool) *podBuilder {
	return b.vol(v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{IQN: iqn, ReadOnly: ro}})
}

func (b *podBuilder) rbd(pool, image string, ro bool, monitors ...string) *podBuilder {
	return b.vol(v1.VolumeSource{RBD: &v1.RBDVolumeSource{CephMonitors: monitors, RBDPool: pool, RBDImage: image, ReadOnly: ro}})
}

func (b *podBuilder) emptyDir() *podBuilder {
	return b.vol(v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}})
}

func (b *podBuilder) obj() *v1.Pod { return b.pod }

func (b *podBuilder) info() *framework.PodInfo {
	pi, err := framework.NewPodInfo(b.pod)
	if err != nil {
		panic(err)
	}
	return pi
}

// nodeWith returns a NodeInfo for node "n" holding the pods.
func nodeWith(pods ...*v1.Pod) *framework.NodeInfo {
	return st.NodeInfo(st.Node("n").Obj(), pods...)
}
