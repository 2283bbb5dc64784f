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

package queue

import (
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// nominator remembers which pods are nominated to which nodes, either through
// status.nominatedNodeName or by a PostFilter plugin (preemption). It has its
// own lock: Filter plugins read it in parallel while the queue changes.
type nominator struct {
	mu     sync.RWMutex
	byNode map[string][]*framework.PodInfo
	nodeOf map[types.UID]string
	// count is len(nodeOf), readable without the lock: Filter asks once per
	// node and pod, and almost always nothing is nominated anywhere.
	count atomic.Int64
}

func newNominator() *nominator {
	return &nominator{
		byNode: make(map[string][]*framework.PodInfo),
		nodeOf: make(map[types.UID]string),
	}
}

// add records pi's nomination. With ModeOverride the node comes from ni,
// otherwise from the pod's status; no node clears the nomination.
func (n *nominator) add(pi *framework.PodInfo, ni *framework.NominatingInfo) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.addLocked(pi, ni)
}

func (n *nominator) addLocked(pi *framework.PodInfo, ni *framework.NominatingInfo) {
	if pi == nil || pi.Pod == nil {
		return
	}
	n.removeLocked(pi.Pod.UID)
	node := pi.Pod.Status.NominatedNodeName
	if ni.Mode() == framework.ModeOverride {
		node = ni.NominatedNodeName
	}
	// A bound pod needs no reservation any more.
	if node == "" || pi.Pod.Spec.NodeName != "" {
		return
	}
	// Keep a private copy: the scheduler re-derives its own PodInfo in place.
	own := *pi
	n.nodeOf[pi.Pod.UID] = node
	n.byNode[node] = append(n.byNode[node], &own)
	n.count.Store(int64(len(n.nodeOf)))
}

// update moves the nomination from oldPod to newPI. A nomination made by
// PostFilter survives an update that carries no nominatedNodeName on either side
// (the status patch may not have arrived yet).
func (n *nominator) update(oldPod *v1.Pod, newPI *framework.PodInfo) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ni *framework.NominatingInfo
	if oldPod.Status.NominatedNodeName == "" && newPI.Pod.Status.NominatedNodeName == "" {
		if node, ok := n.nodeOf[oldPod.UID]; ok {
			ni = &framework.NominatingInfo{NominatedNodeName: node, NominatingMode: framework.ModeOverride}
		}
	}
	n.removeLocked(oldPod.UID)
	n.addLocked(newPI, ni)
}

// remove forgets the pod's nomination, if any.
func (n *nominator) remove(uid types.UID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.removeLocked(uid)
}

func (n *nominator) removeLocked(uid types.UID) {
	node, ok := n.nodeOf[uid]
	if !ok {
		return
	}
	delete(n.nodeOf, uid)
	n.count.Store(int64(len(n.nodeOf)))
	pods := n.byNode[node]
	for i, pi := range pods {
		if pi.Pod.UID == uid {
			pods = slices.Delete(pods, i, i+1)
			break
		}
	}
	if len(pods) == 0 {
		delete(n.byNode, node)
		return
	}
	n.byNode[node] = pods
}

// forNode returns a copy of the pods nominated to the node.
func (n *nominator) forNode(node string) []*framework.PodInfo {
	if n.count.Load() == 0 {
		return nil
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return slices.Clone(n.byNode[node])
}

// HasNominatedPods reports, without taking a lock, whether any pod is
// nominated to any node. The framework asks once per scheduling cycle and
// skips the per-node nominated-pods lookup when the answer is no.
func (q *PriorityQueue) HasNominatedPods() bool {
	return q.nominator.count.Load() > 0
}
