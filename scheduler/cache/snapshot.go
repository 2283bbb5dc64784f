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

package cache

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// Snapshot is a point-in-time copy of the cache that one scheduling loop reads
// without locks. Cache.UpdateSnapshot brings it up to date by copying only
// the NodeInfos that changed: an unchanged NodeInfo keeps its pointer, a
// changed one is replaced by a fresh clone, so NodeInfos handed out earlier
// never change underneath their holder. The exception is ImageStates: the
// summaries are shared across the snapshot's NodeInfos and their node counts
// are refreshed in place. The NodeInfos live in an arena in list order,
// which a cycle walks far faster than scattered objects; once enough of
// them were cloned outside it, UpdateSnapshot copies every NodeInfo into a
// fresh arena (compact), so then unchanged NodeInfos get new pointers too,
// with the same contents.
type Snapshot struct {
	nodeInfoMap map[string]*framework.NodeInfo
	// nodeInfoList is in zone round-robin order; listPos indexes it by node name.
	nodeInfoList []*framework.NodeInfo
	listPos      map[string]int
	// withAffinity and withRequiredAntiAffinity keep nodeInfoList's order.
	withAffinity             []*framework.NodeInfo
	affinityPos              map[string]int
	withRequiredAntiAffinity []*framework.NodeInfo
	antiAffinityPos          map[string]int
	// usedPVCRefCounts counts, per namespace/claim, the pods using the claim.
	usedPVCRefCounts map[string]int
	// images are the image summaries the NodeInfos point to.
	images map[string]*framework.ImageStateSummary
	// generation is the cache generation the snapshot reflects.
	generation int64
	// arena holds the NodeInfos in list order as of the last compaction,
	// in chunks of arenaChunk; relocated counts the NodeInfos cloned
	// outside it since.
	arena     [][]nodeSlot
	relocated int
	// labels interns the label strings of the NodeInfos' Node copies.
	labels *labelTable
	// confined is set while a cycle searches only the nodes of a
	// placement, those a PodGroup's cycle is trying. Plugins still see
	// every node through List. placement names them; when they were given
	// as a list (SetPlacementNodes), placementNames holds them and
	// placement is made from it only when asked for.
	confined       bool
	placement      map[string]bool
	placementNames []string
	// placementPos are the list positions of the placement's nodes, in list
	// order, as of listEpoch placementEpoch; listEpoch counts the times the
	// node list was laid out anew (rebuildLists), which moves positions.
	placementPos   []int32
	placementEpoch int64
	listEpoch      int64
	// searched is SearchNodes' slice, reused from call to call.
	searched []*framework.NodeInfo
	// original are the NodeInfos a simulation replaced (AddPod,
	// RemovePod), by node name, for Restore to put back.
	original map[string]*framework.NodeInfo
	// added undoes the simulated additions in the reverse order: a pod
	// taken off as the last one put on its node gets the NodeInfo back that
	// it replaced, instead of a copy without it.
	added []simulatedAdd
	// simulatedGeneration is the generation the last simulated change
	// stamped on its NodeInfo: negative, and lower at every change, so no
	// simulated NodeInfo ever shares a generation with another version of
	// its node, and plugins that keep per-node counts see the change.
	simulatedGeneration int64
}

var (
	_ framework.SharedLister      = (*Snapshot)(nil)
	_ framework.NodeInfoLister    = (*Snapshot)(nil)
	_ framework.StorageInfoLister = (*Snapshot)(nil)
)

// NewEmptySnapshot returns a snapshot for Cache.UpdateSnapshot to fill.
func NewEmptySnapshot() *Snapshot {
	return &Snapshot{
		nodeInfoMap:      make(map[string]*framework.NodeInfo),
		listPos:          make(map[string]int),
		affinityPos:      make(map[string]int),
		antiAffinityPos:  make(map[string]int),
		usedPVCRefCounts: make(map[string]int),
		images:           make(map[string]*framework.ImageStateSummary),
	}
}

// NewSnapshot builds a snapshot straight from objects, for plugin tests. Pods
// are placed by spec.nodeName; pods of nodes not listed are left out.
func NewSnapshot(pods []*v1.Pod, nodes []*v1.Node) *Snapshot {
	s := NewEmptySnapshot()
	index := newImageIndex()
	ring := newZoneRing()
	for _, node := range nodes {
		ni := framework.NewNodeInfo()
		index.setNode(ni, node, 0)
		ni.SetNode(node)
		s.nodeInfoMap[node.Name] = ni
		ring.add(node)
	}
	s.images = index.summaries
	for _, pod := range pods {
		ni := s.nodeInfoMap[pod.Spec.NodeName]
		if ni == nil {
			continue
		}
		// A bad affinity term leaves the pod's other fields usable.
		pi, _ := framework.NewPodInfo(pod)
		ni.AddPodInfo(pi)
	}
	s.rebuildLists(ring.order())
	return s
}

// NodeInfos returns the snapshot as a NodeInfoLister.
func (s *Snapshot) NodeInfos() framework.NodeInfoLister { return s }

// StorageInfos returns the snapshot as a StorageInfoLister.
func (s *Snapshot) StorageInfos() framework.StorageInfoLister { return s }

// NumNodes returns the number of nodes in the snapshot.
func (s *Snapshot) NumNodes() int { return len(s.nodeInfoList) }

// Generation returns the cache generation the snapshot reflects.
func (s *Snapshot) Generation() int64 { return s.generation }

// SetPlacement confines the nodes a cycle searches (CandidateNodes) to the
// named ones; nil lifts the restriction.
func (s *Snapshot) SetPlacement(nodes map[string]bool) {
	s.confined = nodes != nil
	s.placement = nodes
	s.placementNames = s.placementNames[:0]
	s.placementPos = s.placementPos[:0]
	s.placementEpoch = -1
}

// SetPlacementNodes confines the nodes a cycle searches to those of the
// list, as SetPlacement does with their names; nil lifts the restriction.
// Only their names are kept, so the list may be NodeInfos of an earlier
// snapshot or generation.
func (s *Snapshot) SetPlacementNodes(nodes []*framework.NodeInfo) {
	s.confined = nodes != nil
	s.placement = nil
	s.placementNames = s.placementNames[:0]
	for _, ni := range nodes {
		s.placementNames = append(s.placementNames, ni.Node().Name)
	}
	s.placementPos = s.placementPos[:0]
	s.placementEpoch = -1
}

// Placement returns the node names the search is confined to; nil when it
// is not confined. The map must not be changed.
func (s *Snapshot) Placement() map[string]bool {
	if s.confined && s.placement == nil {
		s.placement = make(map[string]bool, len(s.placementNames))
		for _, name := range s.placementNames {
			s.placement[name] = true
		}
	}
	return s.placement
}

// InPlacement reports whether the named node may be searched.
func (s *Snapshot) InPlacement(name string) bool { return !s.confined || s.Placement()[name] }

// CandidateNodes returns the NodeInfos a cycle searches, in List's order:
// every node, or those of the placement set with SetPlacement. A placement's
// nodes are found in the list once, not at every call: a group's cycle asks
// for them once per member.
func (s *Snapshot) CandidateNodes() []*framework.NodeInfo {
	if !s.confined {
		return s.nodeInfoList
	}
	pos := s.placementPositions()
	out := make([]*framework.NodeInfo, len(pos))
	for i, p := range pos {
		out[i] = s.nodeInfoList[p]
	}
	return out
}

// SearchNodes returns CandidateNodes in a slice the snapshot reuses, so a
// search of a placement allocates none: the caller must not change it, and
// must not use it after the next call or after a change to the snapshot.
func (s *Snapshot) SearchNodes() []*framework.NodeInfo {
	if !s.confined {
		return s.nodeInfoList
	}
	pos := s.placementPositions()
	if cap(s.searched) < len(pos) {
		s.searched = make([]*framework.NodeInfo, len(pos))
	}
	out := s.searched[:len(pos)]
	for i, p := range pos {
		out[i] = s.nodeInfoList[p]
	}
	// Entries past the placement would keep NodeInfos of older snapshots alive.
	clear(s.searched[len(pos):cap(s.searched)])
	return out
}

// NumCandidateNodes returns how many nodes a cycle searches.
func (s *Snapshot) NumCandidateNodes() int {
	if !s.confined {
		return len(s.nodeInfoList)
	}
	return len(s.placementPositions())
}

// placementPositions returns the list positions of the placement's nodes,
// finding them again when the list was laid out anew since.
func (s *Snapshot) placementPositions() []int32 {
	if s.placementEpoch == s.listEpoch {
		return s.placementPos
	}
	s.placementPos = s.placementPos[:0]
	if s.placement == nil {
		// Given as a list: each name is looked up, and the positions
		// are usually in list order already.
		for _, name := range s.placementNames {
			if p, ok := s.listPos[name]; ok {
				s.placementPos = append(s.placementPos, int32(p))
			}
		}
		if !slices.IsSorted(s.placementPos) {
			slices.Sort(s.placementPos)
		}
		s.placementPos = slices.Compact(s.placementPos)
	} else if len(s.placement) <= len(s.nodeInfoList)/8 {
		// A small placement (a rack of a large cluster, tried once per
		// group cycle) is looked up name by name rather than found by
		// walking every node.
		for name, in := range s.placement {
			if p, ok := s.listPos[name]; ok && in {
				s.placementPos = append(s.placementPos, int32(p))
			}
		}
		slices.Sort(s.placementPos)
	} else {
		for i, ni := range s.nodeInfoList {
			if s.placement[ni.Node().Name] {
				s.placementPos = append(s.placementPos, int32(i))
			}
		}
	}
	s.placementEpoch = s.listEpoch
	return s.placementPos
}

// List returns every NodeInfo, consecutive ones spread over zones.
func (s *Snapshot) List() ([]*framework.NodeInfo, error) { return s.nodeInfoList, nil }

// HavePodsWithAffinityList returns the NodeInfos with pods that have pod (anti-)affinity terms.
func (s *Snapshot) HavePodsWithAffinityList() ([]*framework.NodeInfo, error) {
	return s.withAffinity, nil
}

// HavePodsWithRequiredAntiAffinityList returns the NodeInfos with pods that have required anti-affinity terms.
func (s *Snapshot) HavePodsWithRequiredAntiAffinityList() ([]*framework.NodeInfo, error) {
	return s.withRequiredAntiAffinity, nil
}

// Get returns the named node's NodeInfo.
func (s *Snapshot) Get(nodeName string) (*framework.NodeInfo, error) {
	ni, ok := s.nodeInfoMap[nodeName]
	if !ok || ni.Node() == nil {
		return nil, fmt.Errorf("node %q not found in the snapshot", nodeName)
	}
	return ni, nil
}

// ImageNumNodes returns how many of the snapshot's nodes have the image
// (its name normalized as nodes report it); 0 when none has it.
func (s *Snapshot) ImageNumNodes(name string) int {
	if img := s.images[name]; img != nil {
		return img.NumNodes
	}
	return 0
}

// IsPVCUsedByPods reports whether a pod in the snapshot uses the namespace/name claim.
func (s *Snapshot) IsPVCUsedByPods(key string) bool { return s.usedPVCRefCounts[key] > 0 }

// rebuildLists lays out every list again from the node order and recounts PVCs.
func (s *Snapshot) rebuildLists(order []string) {
	s.listEpoch++
	s.nodeInfoList = make([]*framework.NodeInfo, 0, len(order))
	s.listPos = make(map[string]int, len(order))
	s.usedPVCRefCounts = make(map[string]int, len(s.usedPVCRefCounts))
	for _, name := range order {
		ni := s.nodeInfoMap[name]
		if ni == nil {
			continue
		}
		s.listPos[name] = len(s.nodeInfoList)
		s.nodeInfoList = append(s.nodeInfoList, ni)
		s.countPVCs(ni, 1)
	}
	s.compact(true)
	s.rebuildAffinityLists()
}

// rebuildAffinityLists derives both affinity lists from nodeInfoList.
func (s *Snapshot) rebuildAffinityLists() {
	s.withAffinity = s.withAffinity[:0:0]
	s.withRequiredAntiAffinity = s.withRequiredAntiAffinity[:0:0]
	s.affinityPos = make(map[string]int, len(s.affinityPos))
	s.antiAffinityPos = make(map[string]int, len(s.antiAffinityPos))
	for _, ni := range s.nodeInfoList {
		name := ni.Node().Name
		if len(ni.PodsWithAffinity) > 0 {
			s.affinityPos[name] = len(s.withAffinity)
			s.withAffinity = append(s.withAffinity, ni)
		}
		if len(ni.PodsWithRequiredAntiAffinity) > 0 {
			s.antiAffinityPos[name] = len(s.withRequiredAntiAffinity)
			s.withRequiredAntiAffinity = append(s.withRequiredAntiAffinity, ni)
		}
	}
}

// countPVCs adds (sign 1) or subtracts (sign -1) a NodeInfo's PVC uses.
func (s *Snapshot) countPVCs(ni *framework.NodeInfo, sign int) {
	for key, n := range ni.PVCRefCounts {
		total := s.usedPVCRefCounts[key] + sign*n
		if total > 0 {
			s.usedPVCRefCounts[key] = total
		} else {
			delete(s.usedPVCRefCounts, key)
		}
	}
}
