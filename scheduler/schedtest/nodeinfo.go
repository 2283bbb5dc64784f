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

package schedtest

import (
	"context"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// NodeInfo returns a NodeInfo for the node holding the pods.
func NodeInfo(node *v1.Node, pods ...*v1.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	if node != nil {
		ni.SetNode(node)
	}
	for _, p := range pods {
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			panic(err)
		}
		ni.AddPodInfo(pi)
	}
	return ni
}

// NodeInfos returns a NodeInfo per node, each holding the pods whose
// spec.nodeName names it; pods on other nodes are left out.
func NodeInfos(nodes []*v1.Node, pods ...*v1.Pod) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, len(nodes))
	for i, n := range nodes {
		var on []*v1.Pod
		for _, p := range pods {
			if p.Spec.NodeName == n.Name {
				on = append(on, p)
			}
		}
		out[i] = NodeInfo(n, on...)
	}
	return out
}

// NamedNodeInfos returns a NodeInfo of a bare node per name.
func NamedNodeInfos(names ...string) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, len(names))
	for i, n := range names {
		out[i] = NodeInfo(Node(n).Obj())
	}
	return out
}

// Lister is a framework.SharedLister over a fixed list of NodeInfos.
type Lister struct {
	// Nodes are the NodeInfos it lists, in order.
	Nodes []*framework.NodeInfo
	// Storage answers StorageInfos; nil unless set.
	Storage framework.StorageInfoLister
}

var _ framework.SharedLister = (*Lister)(nil)

// NewLister returns a Lister over the NodeInfos.
func NewLister(nodes ...*framework.NodeInfo) *Lister { return &Lister{Nodes: nodes} }

// NodeInfos returns the lister itself.
func (l *Lister) NodeInfos() framework.NodeInfoLister { return l }

// StorageInfos returns Storage.
func (l *Lister) StorageInfos() framework.StorageInfoLister { return l.Storage }

// List returns the NodeInfos.
func (l *Lister) List() ([]*framework.NodeInfo, error) { return l.Nodes, nil }

// HavePodsWithAffinityList returns the NodeInfos holding pods with pod (anti-)affinity.
func (l *Lister) HavePodsWithAffinityList() ([]*framework.NodeInfo, error) {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithAffinity) > 0 }), nil
}

// HavePodsWithRequiredAntiAffinityList returns the NodeInfos holding pods with required anti-affinity.
func (l *Lister) HavePodsWithRequiredAntiAffinityList() ([]*framework.NodeInfo, error) {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithRequiredAntiAffinity) > 0 }), nil
}

func (l *Lister) filter(keep func(*framework.NodeInfo) bool) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, ni := range l.Nodes {
		if keep(ni) {
			out = append(out, ni)
		}
	}
	return out
}

// Get returns the named node's NodeInfo, or framework.ErrNotFound.
func (l *Lister) Get(name string) (*framework.NodeInfo, error) {
	for _, ni := range l.Nodes {
		if ni.Node() != nil && ni.Node().Name == name {
			return ni, nil
		}
	}
	return nil, framework.ErrNotFound
}

// Serial is a framework.Parallelizer that runs the pieces one after another.
type Serial struct{}

// Until runs do on every piece in order.
func (Serial) Until(_ context.Context, pieces int, do func(int), _ string) {
	for i := range pieces {
		do(i)
	}
}

// Concurrent is a framework.Parallelizer that runs every piece on a goroutine of its own, for race tests.
type Concurrent struct{}

// Until runs do on every piece at once and waits for them all.
func (Concurrent) Until(_ context.Context, pieces int, do func(int), _ string) {
	var wg sync.WaitGroup
	for i := range pieces {
		wg.Go(func() { do(i) })
	}
	wg.Wait()
}
