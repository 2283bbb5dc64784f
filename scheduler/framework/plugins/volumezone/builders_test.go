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

package volumezone

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	zoneGA     = v1.LabelTopologyZone
	regionGA   = v1.LabelTopologyRegion
	zoneBeta   = v1.LabelFailureDomainBetaZone
	regionBeta = v1.LabelFailureDomainBetaRegion
)

// newPlugin builds the plugin over the PVs, PVCs and StorageClasses, put
// straight into the informers' indexers.
func newPlugin(t testing.TB, objs ...runtime.Object) *VolumeZone {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *v1.PersistentVolume:
			err = f.Core().V1().PersistentVolumes().Informer().GetIndexer().Add(o)
		case *v1.PersistentVolumeClaim:
			err = f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer().Add(o)
		case *storagev1.StorageClass:
			err = f.Storage().V1().StorageClasses().Informer().GetIndexer().Add(o)
		default:
			t.Fatalf("unexpected object %T", o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	pl, err := New(context.Background(), nil, &st.Handle{Informers: f})
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*VolumeZone)
}

// pv returns a PV with the label key/value pairs.
func pv(name string, kv ...string) *v1.PersistentVolume {
	return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labelMap(kv...)}}
}

// boundClaim returns a claim in "default" bound to the volume.
func boundClaim(name, volume string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.PersistentVolumeClaimSpec{VolumeName: volume},
	}
}

// unboundClaim returns an unbound claim in "default" of the class ("" for none).
func unboundClaim(name, class string) *v1.PersistentVolumeClaim {
	c := boundClaim(name, "")
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	return c
}

// storageClass returns a class with the binding mode ("" for unset).
func storageClass(name string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "p"}
	if mode != "" {
		sc.VolumeBindingMode = &mode
	}
	return sc
}

// podWithClaims returns pod "p" in "default" mounting the claims.
func podWithClaims(claims ...string) *v1.Pod { return st.Pod("p").PVC(claims...).Obj() }

// nodeInfo returns a NodeInfo for a node with the label key/value pairs.
func nodeInfo(kv ...string) *framework.NodeInfo { return st.NodeInfo(st.Node("n").Labels(kv...).Obj()) }

func labelMap(kv ...string) map[string]string {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}
