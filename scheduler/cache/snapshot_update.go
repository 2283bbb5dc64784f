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

	"github.com/go-logr/logr"

	"github.com/berth-io/berth/scheduler/framework"
)

// UpdateSnapshot brings s up to the cache's current generation. It clones only
// the NodeInfos changed since s was last updated, walking the recency list
// from its head, and rebuilds the node list only when nodes were added,
// removed or moved between zones; a node that starts or stops having pods
// with affinity joins or leaves the affinity lists on its own.
func (c *Cache) UpdateSnapshot(logger logr.Logger, s *Snapshot) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.updateSnapshotLocked(logger, s)
}

// UpdateSnapshots brings s and every other snapshot given up to the
// cache's current generation at once, so they all show the cluster in the
// same state: the scheduling cycle's snapshot and the one shadow profiles
// evaluate on. It returns s's error; another snapshot found inconsistent
// is logged and rebuilt, as s would be.
func (c *Cache) UpdateSnapshots(logger logr.Logger, s *Snapshot, others ...*Snapshot) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	err := c.updateSnapshotLocked(logger, s)
	for _, o := range others {
		_ = c.updateSnapshotLocked(logger, o)
	}
	return err
}

// updateSnapshotLocked is UpdateSnapshot; the caller holds the read lock.
func (c *Cache) updateSnapshotLocked(logger logr.Logger, s *Snapshot) error {
	if s.Simulating() {
		return fmt.Errorf("snapshot has simulated changes that were not restored")
	}
	since := s.generation
	relist := c.nodeSetChangedAt > since
	for e := c.recent.head; e != nil && e.info.Generation > since; e = e.older {
		old := s.nodeInfoMap[e.name]
		if e.info.Node() == nil {
			if old != nil {
				delete(s.nodeInfoMap, e.name)
				relist = true
			}
			continue
		}
		if old == nil {
			// A new node: the node list is laid out again below, which
			// copies every NodeInfo into the arena, so a plain clone will do.
			s.nodeInfoMap[e.name] = s.cloneImages(e.info.Clone())
			relist = true
			continue
		}
		fresh := s.cloneShared(e.info, old)
		s.nodeInfoMap[e.name] = fresh
		s.relocated++
		s.countPVCs(old, -1)
		s.countPVCs(fresh, 1)
		if pos, ok := s.listPos[e.name]; ok {
			fresh.SetSnapshotIndex(pos)
			s.nodeInfoList[pos] = fresh
		}
		updateAffinityList(&s.withAffinity, s.affinityPos, e.name, len(fresh.PodsWithAffinity) > 0, fresh)
		updateAffinityList(&s.withRequiredAntiAffinity, s.antiAffinityPos, e.name, len(fresh.PodsWithRequiredAntiAffinity) > 0, fresh)
	}

	switch {
	case relist:
		for name := range s.nodeInfoMap {
			if e := c.nodes[name]; e == nil || e.info.Node() == nil {
				delete(s.nodeInfoMap, name)
			}
		}
		s.rebuildLists(c.zones.order())
	case s.needsCompaction():
		s.compact(false)
		s.rebuildAffinityLists()
	}
	if c.images.changedAt > since {
		s.refreshImages(c.images)
	}
	s.generation = c.generation

	if len(s.nodeInfoList) != c.zones.len() || len(s.nodeInfoMap) != c.zones.len() {
		err := fmt.Errorf("snapshot is inconsistent: %d listed and %d mapped NodeInfos for %d nodes; rebuilding",
			len(s.nodeInfoList), len(s.nodeInfoMap), c.zones.len())
		logger.Error(err, "Snapshot out of step with the cache")
		c.rebuildSnapshot(s)
		return err
	}
	return nil
}

// updateAffinityList keeps one affinity list and its positions in step with
// a node's new NodeInfo ni: it replaces the node's entry, appends one when
// the node now has such pods (has), or takes the entry out by moving the
// list's last one into its place. The lists' order is therefore not the
// node list's; nothing reads them in order.
func updateAffinityList(list *[]*framework.NodeInfo, pos map[string]int, name string, has bool, ni *framework.NodeInfo) {
	i, listed := pos[name]
	switch {
	case has && listed:
		(*list)[i] = ni
	case has:
		pos[name] = len(*list)
		*list = append(*list, ni)
	case listed:
		last := len(*list) - 1
		moved := (*list)[last]
		(*list)[i] = moved
		pos[moved.Node().Name] = i
		(*list)[last] = nil
		*list = (*list)[:last]
		delete(pos, name)
	}
}

// rebuildSnapshot refills s from scratch. The caller holds the lock.
func (c *Cache) rebuildSnapshot(s *Snapshot) {
	fresh := NewEmptySnapshot()
	for name, e := range c.nodes {
		if e.info.Node() != nil {
			fresh.nodeInfoMap[name] = fresh.cloneImages(e.info.Clone())
		}
	}
	fresh.rebuildLists(c.zones.order())
	fresh.generation = c.generation
	*s = *fresh
}

// cloneShared clones a cache NodeInfo straight into a fresh nodeSlot,
// pointing its image summaries at the snapshot's shared ones; prev is the
// snapshot's copy being replaced.
func (s *Snapshot) cloneShared(ni, prev *framework.NodeInfo) *framework.NodeInfo {
	slot := &nodeSlot{}
	if s.labels == nil {
		s.labels = newLabelTable()
	}
	ni.CloneInto(&slot.info, &slot.requested, &slot.nonZeroRequested, &slot.allocatable)
	s.cloneImages(&slot.info)
	slot.setNode(snapshotNode(ni, prev, s.labels))
	return &slot.info
}

// cloneImages points the image summaries of clone, a clone of a cache
// NodeInfo, at the snapshot's shared ones and returns it.
func (s *Snapshot) cloneImages(clone *framework.NodeInfo) *framework.NodeInfo {
	for name, own := range clone.ImageStates {
		shared := s.images[name]
		if shared == nil {
			s.images[name] = own
			continue
		}
		*shared = *own
		clone.ImageStates[name] = shared
	}
	return clone
}

// refreshImages copies the cache's node counts into the shared summaries and
// drops the images no node reports any more.
func (s *Snapshot) refreshImages(index *imageIndex) {
	for name, shared := range s.images {
		if current := index.summaries[name]; current != nil {
			*shared = *current
		} else {
			delete(s.images, name)
		}
	}
}
