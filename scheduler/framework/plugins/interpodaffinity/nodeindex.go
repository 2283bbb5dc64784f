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
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// nodeIndex numbers the nodes of one node list by position and, per
// topology key, the domains of that key, so that counts are kept in slices
// indexed by domain number and Filter finds a node's count with one lookup
// of its name and two slice loads instead of hashing a label value per
// count. An index never changes its positions once built and serves every
// later node list with the same node names in the same order and the same
// labels on each (the snapshot gives a node a new object whenever its pods
// change, so objects cannot identify nodes); another list gets a new index.
type nodeIndex struct {
	// nodes[p] is the node at position p when the index was built, and
	// names[p] its name ("" for none).
	nodes []*v1.Node
	names []string
	// pos is the position of each node name.
	pos map[string]int32
	// infoPos is the position of each NodeInfo of the latest node list the
	// index served; the indexer changes it before a cycle as NodeInfos are
	// replaced (cycles do not overlap), so a NodeInfo not in it, one of an
	// earlier list, is looked up by name. Hashing a pointer is much cheaper
	// than hashing a name.
	infoPos map[*framework.NodeInfo]int32

	// mu guards keys, which grows as topology keys are asked for; a
	// keyDomains never changes once made.
	mu   sync.Mutex
	keys map[string]*keyDomains
}

// keyDomains numbers the values one topology key takes on an index's nodes.
type keyDomains struct {
	key string
	// ids[p] is the domain number of the node at position p, -1 when it
	// lacks the label.
	ids []int32
	// values[id] is the label value of domain id, and byValue its inverse.
	values  []string
	byValue map[string]int32
}

// newNodeIndex indexes the nodes of a node list; a position without a node
// holds nil.
func newNodeIndex(nodes []*framework.NodeInfo) *nodeIndex {
	idx := &nodeIndex{
		nodes:   make([]*v1.Node, len(nodes)),
		names:   make([]string, len(nodes)),
		pos:     make(map[string]int32, len(nodes)),
		infoPos: make(map[*framework.NodeInfo]int32, len(nodes)),
		keys:    map[string]*keyDomains{},
	}
	for p, ni := range nodes {
		node := ni.Node()
		idx.nodes[p] = node
		if node != nil {
			idx.names[p] = node.Name
			idx.pos[node.Name] = int32(p)
			idx.infoPos[ni] = int32(p)
		}
	}
	return idx
}

// position returns the position of ni's node, -1 when the index does not
// hold its name. The node must be the one of that name in a node list the
// index serves.
func (idx *nodeIndex) position(ni *framework.NodeInfo, node *v1.Node) int32 {
	// The snapshot's position of ni holds its node when the list is the
	// one indexed (names are unique in a list): one slice read.
	if p := ni.SnapshotIndex(); p >= 0 && p < len(idx.names) && idx.names[p] == node.Name {
		return int32(p)
	}
	if p, ok := idx.infoPos[ni]; ok {
		return p
	}
	if p, ok := idx.pos[node.Name]; ok {
		return p
	}
	return -1
}

// domains returns the numbering of key's domains, making it on first use.
func (idx *nodeIndex) domains(key string) *keyDomains {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if kd := idx.keys[key]; kd != nil {
		return kd
	}
	kd := &keyDomains{key: key, ids: make([]int32, len(idx.nodes)), byValue: map[string]int32{}}
	for p, node := range idx.nodes {
		kd.ids[p] = -1
		if node == nil {
			continue
		}
		value, ok := node.Labels[key]
		if !ok {
			continue
		}
		id, seen := kd.byValue[value]
		if !seen {
			id = int32(len(kd.values))
			kd.values = append(kd.values, value)
			kd.byValue[value] = id
		}
		kd.ids[p] = id
	}
	idx.keys[key] = kd
	return kd
}

// indexer keeps the node index of the latest node list PreFilter saw.
type indexer struct {
	mu  sync.Mutex
	idx *nodeIndex
	// infos[p] is the NodeInfo last seen at position p, whose node the
	// index holds: a position whose NodeInfo pointer is unchanged needs no
	// look at its node.
	infos []*framework.NodeInfo
}

// current returns an index of nodes: the previous one when every position
// still holds a node of the same name and labels, a new one otherwise.
func (ix *indexer) current(nodes []*framework.NodeInfo) *nodeIndex {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.idx != nil && len(ix.infos) == len(nodes) {
		same := true
		for p, ni := range nodes {
			if ix.infos[p] == ni && ni != nil {
				continue
			}
			if !sameNode(ni.Node(), ix.idx.nodes[p]) {
				same = false
				break
			}
			if old := ix.infos[p]; old != nil && ix.idx.infoPos[old] == int32(p) {
				delete(ix.idx.infoPos, old)
			}
			if ni != nil && ni.Node() != nil {
				ix.idx.infoPos[ni] = int32(p)
			}
			ix.infos[p] = ni
		}
		if same {
			return ix.idx
		}
	}
	ix.idx = newNodeIndex(nodes)
	ix.infos = append(ix.infos[:0], nodes...)
	return ix.idx
}

// sameNode reports whether a and b (either may be nil) have the same name
// and labels.
func sameNode(a, b *v1.Node) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Name != b.Name || len(a.Labels) != len(b.Labels) {
		return false
	}
	for k, v := range a.Labels {
		if w, ok := b.Labels[k]; !ok || w != v {
			return false
		}
	}
	return true
}
