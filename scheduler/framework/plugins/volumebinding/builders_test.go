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

package volumebinding

import (
	"context"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-helpers/storage/volume"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const ns = "default"

// env is a plugin over a fake clientset whose informer indexers are filled
// directly, with a fake clock.
type env struct {
	t       *testing.T
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	clock   *testingclock.FakeClock
	pl      *VolumeBinding
}

func newEnv(t *testing.T, objs ...runtime.Object) *env {
	t.Helper()
	return newEnvWithArgs(t, DefaultArgs(), objs...)
}

func newEnvWithArgs(t *testing.T, args *VolumeBindingArgs, objs ...runtime.Object) *env {
	t.Helper()
	client := fake.NewClientset(objs...)
	client.PrependReactor("update", "*", bumpResourceVersion(client))
	e := &env{t: t, client: client, factory: informers.NewSharedInformerFactory(client, 0), clock: testingclock.NewFakeClock(time.Unix(1e9, 0))}
	pl, err := NewWithArgs(context.Background(), args, &st.Handle{Client: client, Informers: e.factory}, WithClock(e.clock))
	if err != nil {
		t.Fatalf("NewWithArgs: %v", err)
	}
	e.pl = pl
	for _, o := range objs {
		e.put(o)
	}
	return e
}

// bumpResourceVersion makes updates through the fake clientset advance the
// object's resourceVersion, as the API server does.
func bumpResourceVersion(client *fake.Clientset) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		upd, ok := action.(k8stesting.UpdateAction)
		if !ok || upd.GetSubresource() != "" {
			return false, nil, nil
		}
		obj := upd.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return true, nil, err
		}
		rv, _ := strconv.Atoi(m.GetResourceVersion())
		m.SetResourceVersion(strconv.Itoa(rv + 1))
		if err := client.Tracker().Update(upd.GetResource(), obj, upd.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, obj, nil
	}
}

// put adds or replaces an object in its informer's indexer.
func (e *env) put(o runtime.Object) {
	e.t.Helper()
	f := e.factory
	var err error
	switch o := o.(type) {
	case *v1.PersistentVolume:
		err = f.Core().V1().PersistentVolumes().Informer().GetIndexer().Update(o)
	case *v1.PersistentVolumeClaim:
		err = f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer().Update(o)
	case *v1.Node:
		err = f.Core().V1().Nodes().Informer().GetIndexer().Update(o)
	case *v1.Pod:
		err = f.Core().V1().Pods().Informer().GetIndexer().Update(o)
	case *storagev1.StorageClass:
		err = f.Storage().V1().StorageClasses().Informer().GetIndexer().Update(o)
	case *storagev1.CSIDriver:
		err = f.Storage().V1().CSIDrivers().Informer().GetIndexer().Update(o)
	case *storagev1.CSIStorageCapacity:
		err = f.Storage().V1().CSIStorageCapacities().Informer().GetIndexer().Update(o)
	default:
		e.t.Fatalf("put: unexpected %T", o)
	}
	if err != nil {
		e.t.Fatalf("put: %v", err)
	}
}

// schedule runs PreFilter and, unless it rejects or skips, Filter on each node.
func (e *env) schedule(pod *v1.Pod, nodes ...*v1.Node) (*framework.CycleState, *framework.Status, []*framework.Status) {
	cs := framework.NewCycleState()
	_, status := e.pl.PreFilter(context.Background(), cs, pod, nil)
	if !status.IsSuccess() {
		return cs, status, nil
	}
	out := make([]*framework.Status, len(nodes))
	for i, n := range nodes {
		out[i] = e.pl.Filter(context.Background(), cs, pod, st.NodeInfo(n))
	}
	return cs, status, out
}

// nodeWith returns a node with label pairs.
func nodeWith(name string, kv ...string) *v1.Node { return st.Node(name).Labels(kv...).Obj() }

func pairs(kv []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// pvcBuilder builds a claim in namespace default, resourceVersion 1.
type pvcBuilder struct{ pvc *v1.PersistentVolumeClaim }

func makePVC(name string) *pvcBuilder {
	return &pvcBuilder{pvc: &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(name + "-uid"), ResourceVersion: "1"},
		Spec:       v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}},
	}}
}

func (b *pvcBuilder) class(c string) *pvcBuilder { b.pvc.Spec.StorageClassName = &c; return b }
func (b *pvcBuilder) size(s string) *pvcBuilder {
	b.pvc.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: resource.MustParse(s)}
	return b
}
func (b *pvcBuilder) modes(m ...v1.PersistentVolumeAccessMode) *pvcBuilder {
	b.pvc.Spec.AccessModes = m
	return b
}
func (b *pvcBuilder) selector(kv ...string) *pvcBuilder {
	b.pvc.Spec.Selector = &metav1.LabelSelector{MatchLabels: pairs(kv)}
	return b
}

// bound marks the claim fully bound to the PV.
func (b *pvcBuilder) bound(pv string) *pvcBuilder {
	b.pvc.Spec.VolumeName = pv
	metav1.SetMetaDataAnnotation(&b.pvc.ObjectMeta, volume.AnnBindCompleted, "yes")
	b.pvc.Status.Phase = v1.ClaimBound
	return b
}

// prebound names a PV without the binding being complete.
func (b *pvcBuilder) prebound(pv string) *pvcBuilder { b.pvc.Spec.VolumeName = pv; return b }
func (b *pvcBuilder) selectedNode(n string) *pvcBuilder {
	metav1.SetMetaDataAnnotation(&b.pvc.ObjectMeta, volume.AnnSelectedNode, n)
	return b
}
func (b *pvcBuilder) lost() *pvcBuilder { b.pvc.Status.Phase = v1.ClaimLost; return b }
func (b *pvcBuilder) deleting() *pvcBuilder {
	now := metav1.Now()
	b.pvc.DeletionTimestamp = &now
	return b
}
func (b *pvcBuilder) ownedBy(pod *v1.Pod) *pvcBuilder {
	b.pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}
	return b
}
func (b *pvcBuilder) rv(v string) *pvcBuilder        { b.pvc.ResourceVersion = v; return b }
func (b *pvcBuilder) obj() *v1.PersistentVolumeClaim { return b.pvc }

// pvBuilder builds an available 10Gi RWO PV, resourceVersion 1.
type pvBuilder struct{ pv *v1.PersistentVolume }

func makePV(name string) *pvBuilder {
	return &pvBuilder{pv: &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
		Spec: v1.PersistentVolumeSpec{
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}}
}

func (b *pvBuilder) class(c string) *pvBuilder { b.pv.Spec.StorageClassName = c; return b }
func (b *pvBuilder) size(s string) *pvBuilder {
	b.pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(s)}
	return b
}
func (b *pvBuilder) modes(m ...v1.PersistentVolumeAccessMode) *pvBuilder {
	b.pv.Spec.AccessModes = m
	return b
}
func (b *pvBuilder) labels(kv ...string) *pvBuilder { b.pv.Labels = pairs(kv); return b }

// affinity requires the node label key to hold one of the values.
func (b *pvBuilder) affinity(key string, values ...string) *pvBuilder {
	b.pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}}
	return b
}
func (b *pvBuilder) claim(pvc *v1.PersistentVolumeClaim) *pvBuilder {
	b.pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID}
	b.pv.Status.Phase = v1.VolumeBound
	return b
}
func (b *pvBuilder) rv(v string) *pvBuilder    { b.pv.ResourceVersion = v; return b }
func (b *pvBuilder) obj() *v1.PersistentVolume { return b.pv }

// classBuilder builds a WaitForFirstConsumer class without provisioning.
type classBuilder struct{ sc *storagev1.StorageClass }

func makeClass(name string) *classBuilder {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	return &classBuilder{sc: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: volume.NotSupportedProvisioner, VolumeBindingMode: &mode}}
}

func (b *classBuilder) immediate() *classBuilder {
	mode := storagev1.VolumeBindingImmediate
	b.sc.VolumeBindingMode = &mode
	return b
}
func (b *classBuilder) provisioner(p string) *classBuilder { b.sc.Provisioner = p; return b }
func (b *classBuilder) topology(key string, values ...string) *classBuilder {
	b.sc.AllowedTopologies = append(b.sc.AllowedTopologies, v1.TopologySelectorTerm{
		MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: key, Values: values}},
	})
	return b
}
func (b *classBuilder) obj() *storagev1.StorageClass { return b.sc }

// csiDriver returns a driver that does or does not track capacity.
func csiDriver(name string, tracksCapacity bool) *storagev1.CSIDriver {
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.CSIDriverSpec{StorageCapacity: &tracksCapacity}}
}

// capacity returns a CSIStorageCapacity of the class reachable from nodes with the label pairs.
func capacity(name, class, size string, kv ...string) *storagev1.CSIStorageCapacity {
	q := resource.MustParse(size)
	return &storagev1.CSIStorageCapacity{
		ObjectMeta:       metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: "1"},
		StorageClassName: class, Capacity: &q,
		NodeTopology: &metav1.LabelSelector{MatchLabels: pairs(kv)},
	}
}
