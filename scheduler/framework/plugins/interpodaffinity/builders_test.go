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

package interpodaffinity

import (
	"context"
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	zoneKey = "topology.kubernetes.io/zone"
	hostKey = "kubernetes.io/hostname"
)

// nodeLister is a snapshot over a fixed list of NodeInfos.
type nodeLister struct{ nodes []*framework.NodeInfo }

func (l *nodeLister) List() ([]*framework.NodeInfo, error) { return l.nodes, nil }

func (l *nodeLister) HavePodsWithAffinityList() ([]*framework.NodeInfo, error) {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithAffinity) > 0 }), nil
}

func (l *nodeLister) HavePodsWithRequiredAntiAffinityList() ([]*framework.NodeInfo, error) {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithRequiredAntiAffinity) > 0 }), nil
}

func (l *nodeLister) filter(keep func(*framework.NodeInfo) bool) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, ni := range l.nodes {
		if keep(ni) {
			out = append(out, ni)
		}
	}
	return out
}

func (l *nodeLister) Get(name string) (*framework.NodeInfo, error) {
	for _, ni := range l.nodes {
		if ni.Node().Name == name {
			return ni, nil
		}
	}
	return nil, fmt.Errorf("node %s not found", name)
}

func (l *nodeLister) NodeInfos() framework.NodeInfoLister       { return l }
func (l *nodeLister) StorageInfos() framework.StorageInfoLister { return nil }
func (l *nodeLister) node(name string) *framework.NodeInfo      { ni, _ := l.Get(name); return ni }
func (l *nodeLister) add(ni *framework.NodeInfo) *framework.NodeInfo {
	l.nodes = append(l.nodes, ni)
	return ni
}

// serial runs the pieces one after another.
type serial struct{}

func (serial) Until(_ context.Context, pieces int, do func(int), _ string) {
	for i := range pieces {
		do(i)
	}
}

// concurrent runs every piece in its own goroutine.
type concurrent struct{}

func (concurrent) Until(_ context.Context, pieces int, do func(int), _ string) {
	var wg sync.WaitGroup
	for i := range pieces {
		wg.Go(func() { do(i) })
	}
	wg.Wait()
}

// fakeHandle provides a snapshot, a parallelizer and a namespace informer.
type fakeHandle struct {
	framework.Handle
	snapshot *nodeLister
	factory  informers.SharedInformerFactory
	par      framework.Parallelizer
}

func (h *fakeHandle) SnapshotSharedLister() framework.SharedLister {
	if h.snapshot == nil {
		return nil
	}
	return h.snapshot
}
func (h *fakeHandle) SharedInformerFactory() informers.SharedInformerFactory { return h.factory }
func (h *fakeHandle) Parallelizer() framework.Parallelizer                   { return h.par }

// newHandle builds a handle over the NodeInfos; the namespaces go straight into the informer's indexer.
func newHandle(t testing.TB, par framework.Parallelizer, nodes []*framework.NodeInfo, nss ...*v1.Namespace) *fakeHandle {
	t.Helper()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	indexer := factory.Core().V1().Namespaces().Informer().GetIndexer()
	for _, ns := range nss {
		if err := indexer.Add(ns); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeHandle{snapshot: &nodeLister{nodes: nodes}, factory: factory, par: par}
}

// newPlugin builds the plugin with JSON args over a handle.
func newPlugin(t testing.TB, raw string, h framework.Handle) *InterPodAffinity {
	t.Helper()
	pl, err := New(context.Background(), []byte(raw), h)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*InterPodAffinity)
}

// namespace returns a namespace with label pairs.
func namespace(name string, kv ...string) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labelMap(kv...)}}
}

func labelMap(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// node returns a node labelled with its hostname and the label pairs.
func node(name string, kv ...string) *v1.Node {
	n := st.Node(name).Obj()
	n.Labels = labelMap(append([]string{hostKey, name}, kv...)...)
	return n
}

// bareNode returns a node with only the label pairs, without a hostname label.
func bareNode(name string, kv ...string) *v1.Node {
	n := st.Node(name).Obj()
	n.Labels = labelMap(kv...)
	return n
}

// cluster places each pod on the node its spec.nodeName names.
func cluster(nodes []*v1.Node, pods ...*v1.Pod) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, len(nodes))
	byName := map[string]*framework.NodeInfo{}
	for i, n := range nodes {
		out[i] = st.NodeInfo(n)
		byName[n.Name] = out[i]
	}
	for _, p := range pods {
		byName[p.Spec.NodeName].AddPodInfo(info(p))
	}
	return out
}

func info(p *v1.Pod) *framework.PodInfo {
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		panic(err)
	}
	return pi
}

// term is a pod affinity term over a topology key selecting the label pairs.
type term v1.PodAffinityTerm

func sel(key string, kv ...string) *term {
	return &term{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: labelMap(kv...)}}
}

// in lists the namespaces the term selects pods in.
func (t *term) in(ns ...string) *term { t.Namespaces = ns; return t }

// nsSel selects namespaces by label pairs.
func (t *term) nsSel(kv ...string) *term {
	t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: labelMap(kv...)}
	return t
}

// matchKeys sets matchLabelKeys.
func (t *term) matchKeys(keys ...string) *term { t.MatchLabelKeys = keys; return t }

func (t *term) obj() v1.PodAffinityTerm { return v1.PodAffinityTerm(*t) }

// podBuilder builds a pod with labels and pod (anti-)affinity.
type podBuilder struct{ pod *v1.Pod }

func makePod(name string, kv ...string) *podBuilder {
	p := st.Pod(name).Obj()
	p.Labels = labelMap(kv...)
	return &podBuilder{pod: p}
}

func (b *podBuilder) ns(ns string) *podBuilder       { b.pod.Namespace = ns; return b }
func (b *podBuilder) on(node string) *podBuilder     { b.pod.Spec.NodeName = node; return b }
func (b *podBuilder) nominated(n string) *podBuilder { b.pod.Status.NominatedNodeName = n; return b }

func (b *podBuilder) podAffinity() *v1.PodAffinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &v1.Affinity{}
	}
	if b.pod.Spec.Affinity.PodAffinity == nil {
		b.pod.Spec.Affinity.PodAffinity = &v1.PodAffinity{}
	}
	return b.pod.Spec.Affinity.PodAffinity
}

func (b *podBuilder) podAnti() *v1.PodAntiAffinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &v1.Affinity{}
	}
	if b.pod.Spec.Affinity.PodAntiAffinity == nil {
		b.pod.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	return b.pod.Spec.Affinity.PodAntiAffinity
}

// affinity adds a required affinity term.
func (b *podBuilder) affinity(t *term) *podBuilder {
	a := b.podAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t.obj())
	return b
}

// anti adds a required anti-affinity term.
func (b *podBuilder) anti(t *term) *podBuilder {
	a := b.podAnti()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t.obj())
	return b
}

// prefer adds a preferred affinity term.
func (b *podBuilder) prefer(w int32, t *term) *podBuilder {
	a := b.podAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t.obj()})
	return b
}

// avoid adds a preferred anti-affinity term.
func (b *podBuilder) avoid(w int32, t *term) *podBuilder {
	a := b.podAnti()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t.obj()})
	return b
}

func (b *podBuilder) obj() *v1.Pod { return b.pod }
