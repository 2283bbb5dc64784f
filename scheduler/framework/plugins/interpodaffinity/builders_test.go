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

// newHandle builds a handle over the NodeInfos; the namespaces go straight into the informer's indexer.
func newHandle(t testing.TB, par framework.Parallelizer, nodes []*framework.NodeInfo, nss ...*v1.Namespace) *st.Handle {
	t.Helper()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	indexer := factory.Core().V1().Namespaces().Informer().GetIndexer()
	for _, ns := range nss {
		if err := indexer.Add(ns); err != nil {
			t.Fatal(err)
		}
	}
	return &st.Handle{Snapshot: st.NewLister(nodes...), Informers: factory, Parallel: par}
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
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: st.Map(kv...)}}
}

// node returns a node labelled with its hostname and the label pairs.
func node(name string, kv ...string) *v1.Node {
	return st.Node(name).Labels(append([]string{hostKey, name}, kv...)...).Obj()
}

// bareNode returns a node with only the label pairs, without a hostname label.
func bareNode(name string, kv ...string) *v1.Node { return st.Node(name).Labels(kv...).Obj() }

func info(p *v1.Pod) *framework.PodInfo {
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		panic(err)
	}
	return pi
}
