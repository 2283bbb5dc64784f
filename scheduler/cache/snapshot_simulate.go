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

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// AddPod puts a pod on the named node of the snapshot alone, for a
// simulation (a PodGroup's preemption trying the cluster without its
// victims, or a PodGroup's members placed one after another): the node's
// NodeInfo is replaced by a changed copy, so NodeInfos handed out earlier
// stay as they were, and Restore puts the originals back. The copy gets a
// generation of its own, so plugins that keep counts per node (pod
// affinity, topology spread) count the pod as they count a bound one.
// Cache.UpdateSnapshot must not run on a snapshot that has simulated
// changes.
func (s *Snapshot) AddPod(pi *framework.PodInfo, nodeName string) error {
	before := s.nodeInfoMap[nodeName]
	ni, err := s.simulated(nodeName)
	if err != nil {
		return err
	}
	s.countPVCs(ni, -1)
	ni.AddPodInfo(pi)
	s.countPVCs(ni, 1)
	s.stamp(ni)
	s.place(nodeName, ni)
	s.added = append(s.added, simulatedAdd{node: nodeName, pod: pi.Pod.UID, before: before, after: ni})
	return nil
}

// simulatedAdd is one AddPod: the node's NodeInfo before and after it.
type simulatedAdd struct {
	node   string
	pod    types.UID
	before *framework.NodeInfo
	after  *framework.NodeInfo
}

// undoAdd puts back the NodeInfo the last AddPod replaced when that AddPod
// put the pod on the node and nothing changed the node since, as when a
// PodGroup's members are taken off in the reverse order they were held.
func (s *Snapshot) undoAdd(pod *v1.Pod, nodeName string) bool {
	n := len(s.added)
	if n == 0 {
		return false
	}
	last := s.added[n-1]
	if last.node != nodeName || last.pod != pod.UID || s.nodeInfoMap[nodeName] != last.after {
		return false
	}
	s.added[n-1] = simulatedAdd{}
	s.added = s.added[:n-1]
	s.countPVCs(last.after, -1)
	s.countPVCs(last.before, 1)
	s.place(nodeName, last.before)
	if s.original[nodeName] == last.before {
		delete(s.original, nodeName)
	}
	return true
}

// RemovePod takes a pod off the named node in the snapshot alone, as AddPod
// puts one on. Taking off the last pod AddPod put on the node brings back
// the NodeInfo it replaced.
func (s *Snapshot) RemovePod(pod *v1.Pod, nodeName string) error {
	if s.undoAdd(pod, nodeName) {
		return nil
	}
	ni, err := s.simulated(nodeName)
	if err != nil {
		return err
	}
	s.countPVCs(ni, -1)
	err = ni.RemovePod(pod)
	s.countPVCs(ni, 1)
	if err != nil {
		return err
	}
	s.stamp(ni)
	s.place(nodeName, ni)
	return nil
}

// stamp gives a NodeInfo a simulation changed a generation no other
// version of any node has had: the cache's are positive, simulated ones
// negative and never reused.
func (s *Snapshot) stamp(ni *framework.NodeInfo) {
	s.simulatedGeneration--
	ni.Generation = s.simulatedGeneration
}

// Simulating reports whether the snapshot has changes that Restore undoes.
func (s *Snapshot) Simulating() bool { return len(s.original) > 0 }

// Restore undoes every AddPod and RemovePod since the last Restore.
func (s *Snapshot) Restore() {
	for name, ni := range s.original {
		s.countPVCs(s.nodeInfoMap[name], -1)
		s.countPVCs(ni, 1)
		s.place(name, ni)
	}
	clear(s.original)
	clear(s.added)
	s.added = s.added[:0]
}

// simulated returns a copy of the node's NodeInfo for a simulated change
// to make: every change gets a copy of its own, since plugins may hold the
// NodeInfo it replaces, and the first one's original is kept for Restore.
func (s *Snapshot) simulated(nodeName string) (*framework.NodeInfo, error) {
	ni, ok := s.nodeInfoMap[nodeName]
	if !ok || ni.Node() == nil {
		return nil, fmt.Errorf("node %q not found in the snapshot", nodeName)
	}
	if _, copied := s.original[nodeName]; !copied {
		if s.original == nil {
			s.original = make(map[string]*framework.NodeInfo)
		}
		s.original[nodeName] = ni
	}
	c := ni.Clone()
	c.SetSnapshotIndex(ni.SnapshotIndex())
	return c, nil
}

// place makes ni the node's NodeInfo in the map, the list and the affinity
// lists.
func (s *Snapshot) place(name string, ni *framework.NodeInfo) {
	s.nodeInfoMap[name] = ni
	if pos, ok := s.listPos[name]; ok {
		s.nodeInfoList[pos] = ni
	}
	updateAffinityList(&s.withAffinity, s.affinityPos, name, len(ni.PodsWithAffinity) > 0, ni)
	updateAffinityList(&s.withRequiredAntiAffinity, s.antiAffinityPos, name, len(ni.PodsWithRequiredAntiAffinity) > 0, ni)
}
