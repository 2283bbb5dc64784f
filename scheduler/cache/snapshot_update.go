package cache

import (
	"fmt"

	"github.com/go-logr/logr"

	"github.com/berth-io/berth/scheduler/framework"
)

// UpdateSnapshot brings s up to the cache's current generation. It clones only
// the NodeInfos changed since s was last updated, walking the recency list
// from its head, and rebuilds the node list only when nodes were added,
// removed or moved between zones, and the affinity lists only when a node
// started or stopped having pods with affinity.
func (c *Cache) UpdateSnapshot(logger logr.Logger, s *Snapshot) error {
	c.mu.RLock()
	defer c.mu.RUnlock()

	since := s.generation
	relist := c.nodeSetChangedAt > since
	reaffinity := false
	for e := c.recent.head; e != nil && e.info.Generation > since; e = e.older {
		old := s.nodeInfoMap[e.name]
		if e.info.Node() == nil {
			if old != nil {
				delete(s.nodeInfoMap, e.name)
				relist = true
			}
			continue
		}
		fresh := s.cloneShared(e.info, old)
		s.nodeInfoMap[e.name] = fresh
		if old == nil {
			relist = true
			continue
		}
		s.relocated++
		s.countPVCs(old, -1)
		s.countPVCs(fresh, 1)
		if pos, ok := s.listPos[e.name]; ok {
			s.nodeInfoList[pos] = fresh
		}
		oldAff, freshAff := len(old.PodsWithAffinity) > 0, len(fresh.PodsWithAffinity) > 0
		oldAnti, freshAnti := len(old.PodsWithRequiredAntiAffinity) > 0, len(fresh.PodsWithRequiredAntiAffinity) > 0
		if oldAff != freshAff || oldAnti != freshAnti {
			reaffinity = true
			continue
		}
		if pos, ok := s.affinityPos[e.name]; ok {
			s.withAffinity[pos] = fresh
		}
		if pos, ok := s.antiAffinityPos[e.name]; ok {
			s.withRequiredAntiAffinity[pos] = fresh
		}
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
		s.compact()
		s.rebuildAffinityLists()
	case reaffinity:
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

// rebuildSnapshot refills s from scratch. The caller holds the lock.
func (c *Cache) rebuildSnapshot(s *Snapshot) {
	fresh := NewEmptySnapshot()
	for name, e := range c.nodes {
		if e.info.Node() != nil {
			fresh.nodeInfoMap[name] = fresh.cloneShared(e.info, nil)
		}
	}
	fresh.rebuildLists(c.zones.order())
	fresh.generation = c.generation
	*s = *fresh
}

// cloneShared clones a cache NodeInfo into a fresh nodeSlot, pointing its
// image summaries at the snapshot's shared ones; prev, when not nil, is the
// snapshot's copy being replaced.
func (s *Snapshot) cloneShared(ni, prev *framework.NodeInfo) *framework.NodeInfo {
	slot := &nodeSlot{}
	if s.labels == nil {
		s.labels = newLabelTable()
	}
	slot.fill(ni.Clone(), prev, s.labels)
	out := &slot.info
	for name, own := range out.ImageStates {
		shared := s.images[name]
		if shared == nil {
			s.images[name] = own
			continue
		}
		*shared = *own
		out.ImageStates[name] = shared
	}
	return out
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
