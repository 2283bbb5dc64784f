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

package framework

import (
	"fmt"
	"maps"

	v1 "k8s.io/api/core/v1"
)

// ImageStateSummary is what the cluster knows of one container image.
type ImageStateSummary struct {
	// Size is the image's size in bytes.
	Size int64
	// NumNodes is how many nodes have the image.
	NumNodes int
}

// ProtocolPort is a host port with its protocol.
type ProtocolPort struct {
	Protocol string
	Port     int32
}

// HostPortInfo maps host IPs to the protocol/ports used on them.
type HostPortInfo map[string]map[ProtocolPort]struct{}

const anyIP = "0.0.0.0"

func normalizeHostPort(ip, protocol string) (string, string) {
	if ip == "" {
		ip = anyIP
	}
	if protocol == "" {
		protocol = string(v1.ProtocolTCP)
	}
	return ip, protocol
}

// Add records a used host port.
func (h HostPortInfo) Add(ip, protocol string, port int32) {
	if port <= 0 {
		return
	}
	ip, protocol = normalizeHostPort(ip, protocol)
	m, ok := h[ip]
	if !ok {
		m = make(map[ProtocolPort]struct{})
		h[ip] = m
	}
	m[ProtocolPort{Protocol: protocol, Port: port}] = struct{}{}
}

// Remove forgets a used host port.
func (h HostPortInfo) Remove(ip, protocol string, port int32) {
	if port <= 0 {
		return
	}
	ip, protocol = normalizeHostPort(ip, protocol)
	if m, ok := h[ip]; ok {
		delete(m, ProtocolPort{Protocol: protocol, Port: port})
		if len(m) == 0 {
			delete(h, ip)
		}
	}
}

// CheckConflict reports whether the port is already used on ip, where
// 0.0.0.0 conflicts with every address.
func (h HostPortInfo) CheckConflict(ip, protocol string, port int32) bool {
	if port <= 0 {
		return false
	}
	ip, protocol = normalizeHostPort(ip, protocol)
	pp := ProtocolPort{Protocol: protocol, Port: port}
	if ip == anyIP {
		for _, m := range h {
			if _, ok := m[pp]; ok {
				return true
			}
		}
		return false
	}
	for _, candidate := range []string{ip, anyIP} {
		if m, ok := h[candidate]; ok {
			if _, ok := m[pp]; ok {
				return true
			}
		}
	}
	return false
}

// Len counts the recorded ports.
func (h HostPortInfo) Len() int {
	n := 0
	for _, m := range h {
		n += len(m)
	}
	return n
}

// NodeInfo is a node with the pods on it and what they use.
//
// Filter and Score read a few facts of every node they visit, and a cycle
// visits hundreds of nodes it has not touched for many cycles, so each
// cache line a node's facts span costs a miss. The fields those plugins
// read come first, and the node's name, taints and unschedulable flag are
// kept here as well as in the Node, so that they share the NodeInfo's first
// two cache lines rather than lying far apart inside a 800-byte Node.
type NodeInfo struct {
	node *v1.Node
	// name, taints and unschedulable are copies of the node's, set with it.
	name   string
	taints []v1.Taint

	// Pods are the pods on the node, assumed ones included.
	Pods []*PodInfo
	// Requested sums the pods' requests.
	Requested *Resource
	// NonZeroRequested sums the pods' requests with defaults for unset CPU and memory.
	NonZeroRequested *Resource
	// Allocatable is the node's allocatable resources.
	Allocatable *Resource
	// ImageStates maps image names on the node to their cluster-wide summary.
	ImageStates map[string]*ImageStateSummary

	unschedulable bool
	// listPos is one more than the NodeInfo's position in its snapshot's
	// node list, 0 when it has none.
	listPos int32

	// PodsWithAffinity are the pods that have pod affinity or anti-affinity terms.
	PodsWithAffinity []*PodInfo
	// PodsWithRequiredAntiAffinity are the pods that have required anti-affinity terms.
	PodsWithRequiredAntiAffinity []*PodInfo
	// UsedPorts are the host ports in use.
	UsedPorts HostPortInfo
	// PVCRefCounts counts, per namespace/claim, the pods on the node using a PVC.
	PVCRefCounts map[string]int
	// Generation changes whenever the NodeInfo changes; snapshots copy only what changed.
	Generation int64
}

// SnapshotIndex returns the NodeInfo's position in the node list of the
// snapshot that holds it, -1 when no snapshot placed it. Plugins that keep
// per-node data in slices by position read it instead of hashing the
// NodeInfo or its name; since a NodeInfo can outlive its place (a copy made
// for preemption, an earlier snapshot's), they must check that the position
// they keep holds this NodeInfo.
func (n *NodeInfo) SnapshotIndex() int { return int(n.listPos) - 1 }

// SetSnapshotIndex records the NodeInfo's position in its snapshot's node
// list; the snapshot calls it when it lays out the list.
func (n *NodeInfo) SetSnapshotIndex(i int) { n.listPos = int32(i) + 1 }

// NewNodeInfo returns a NodeInfo holding the pods, without a node.
func NewNodeInfo(pods ...*PodInfo) *NodeInfo {
	ni := &NodeInfo{
		UsedPorts:        make(HostPortInfo),
		Requested:        &Resource{},
		NonZeroRequested: &Resource{},
		Allocatable:      &Resource{},
		ImageStates:      make(map[string]*ImageStateSummary),
		PVCRefCounts:     make(map[string]int),
	}
	for _, p := range pods {
		ni.AddPodInfo(p)
	}
	return ni
}

// Node returns the node, or nil when only pods are known.
func (n *NodeInfo) Node() *v1.Node {
	if n == nil {
		return nil
	}
	return n.node
}

// Name returns the node's name, "" when only pods are known; unlike
// Node().Name it reads no memory outside the NodeInfo.
func (n *NodeInfo) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// Unschedulable returns the node's spec.unschedulable (whether it is
// cordoned), false when only pods are known.
func (n *NodeInfo) Unschedulable() bool { return n.unschedulable }

// Taints returns the node's spec.taints, shared with the Node and not to be
// changed, nil when only pods are known.
func (n *NodeInfo) Taints() []v1.Taint { return n.taints }

// SetNode sets the node, its allocatable resources and the NodeInfo's
// copies of its name, taints and unschedulable flag. The node must not be
// changed afterwards (informer objects never are): a changed node is set
// anew.
func (n *NodeInfo) SetNode(node *v1.Node) {
	n.setNodeFacts(node)
	n.Allocatable = NewResource(node.Status.Allocatable)
}

// SetNodeKeepingAllocatable sets the node and the NodeInfo's copies of its
// name, taints and unschedulable flag like SetNode, but leaves Allocatable
// as it is: it is for copies whose Allocatable already holds the node's
// allocatable resources (a snapshot's copy of a cache NodeInfo), which
// SetNode would parse again into a new Resource.
func (n *NodeInfo) SetNodeKeepingAllocatable(node *v1.Node) {
	n.setNodeFacts(node)
}

// setNodeFacts points the NodeInfo at node and refreshes the copies of its
// facts; it is the only place that sets n.node.
func (n *NodeInfo) setNodeFacts(node *v1.Node) {
	n.node = node
	if node == nil {
		n.name, n.taints, n.unschedulable = "", nil, false
		return
	}
	n.name, n.taints, n.unschedulable = node.Name, node.Spec.Taints, node.Spec.Unschedulable
}

// RemoveNode forgets the node; its pods stay until they are deleted.
func (n *NodeInfo) RemoveNode() {
	n.setNodeFacts(nil)
}

// AddPodInfo adds a pod and what it uses.
func (n *NodeInfo) AddPodInfo(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	if hasAffinity(pi) {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
	}
	if len(pi.RequiredAntiAffinityTerms) > 0 {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
	}
	n.update(pi, 1)
}

// RemovePod removes the pod with the UID of pod; it is an error if it is not there.
func (n *NodeInfo) RemovePod(pod *v1.Pod) error {
	for i, pi := range n.Pods {
		if pi.Pod.UID != pod.UID {
			continue
		}
		n.Pods = removeAt(n.Pods, i)
		n.PodsWithAffinity = removeByUID(n.PodsWithAffinity, pod)
		n.PodsWithRequiredAntiAffinity = removeByUID(n.PodsWithRequiredAntiAffinity, pod)
		n.update(pi, -1)
		return nil
	}
	return fmt.Errorf("no pod %s/%s (uid %s) on node %s", pod.Namespace, pod.Name, pod.UID, n.nodeName())
}

func (n *NodeInfo) nodeName() string {
	if n.node == nil {
		return "<unknown>"
	}
	return n.name
}

func (n *NodeInfo) update(pi *PodInfo, sign int64) {
	if sign > 0 {
		n.Requested.AddResource(pi.Requests)
		n.NonZeroRequested.AddResource(pi.NonZeroRequests)
	} else {
		n.Requested.SubResource(pi.Requests)
		n.NonZeroRequested.SubResource(pi.NonZeroRequests)
	}
	n.updatePorts(pi.Pod.Spec.Containers, sign)
	// Sidecars (restartable init containers) run beside the app containers
	// and hold their host ports for the pod's lifetime.
	for i := range pi.Pod.Spec.InitContainers {
		c := &pi.Pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			n.updatePorts(pi.Pod.Spec.InitContainers[i:i+1], sign)
		}
	}
	for i := range pi.Pod.Spec.Volumes {
		claim := pi.Pod.Spec.Volumes[i].PersistentVolumeClaim
		if claim == nil {
			continue
		}
		key := pi.Pod.Namespace + "/" + claim.ClaimName
		n.PVCRefCounts[key] += int(sign)
		if n.PVCRefCounts[key] <= 0 {
			delete(n.PVCRefCounts, key)
		}
	}
}

// updatePorts adds (sign > 0) or removes the host ports of the containers.
func (n *NodeInfo) updatePorts(containers []v1.Container, sign int64) {
	for i := range containers {
		for _, p := range containers[i].Ports {
			if sign > 0 {
				n.UsedPorts.Add(p.HostIP, string(p.Protocol), p.HostPort)
			} else {
				n.UsedPorts.Remove(p.HostIP, string(p.Protocol), p.HostPort)
			}
		}
	}
}

func hasAffinity(pi *PodInfo) bool {
	return len(pi.RequiredAffinityTerms) > 0 || len(pi.RequiredAntiAffinityTerms) > 0 ||
		len(pi.PreferredAffinityTerms) > 0 || len(pi.PreferredAntiAffinityTerms) > 0
}

func removeAt(s []*PodInfo, i int) []*PodInfo {
	last := len(s) - 1
	s[i] = s[last]
	s[last] = nil
	return s[:last]
}

func removeByUID(s []*PodInfo, pod *v1.Pod) []*PodInfo {
	for i, pi := range s {
		if pi.Pod.UID == pod.UID {
			return removeAt(s, i)
		}
	}
	return s
}

// Clone returns a copy that can change without affecting n. PodInfos are
// shared: they are replaced, never mutated.
func (n *NodeInfo) Clone() *NodeInfo {
	out := &NodeInfo{}
	n.CloneInto(out, &Resource{}, &Resource{}, &Resource{})
	return out
}

// CloneInto makes dst a copy of n, as Clone does, whose resource sums are
// requested, nonZeroRequested and allocatable (which it overwrites): a
// caller that keeps a NodeInfo and its sums in one allocation clones into
// it without allocating them apart. dst's earlier contents are dropped; neither
// dst nor the sums may be n's own.
func (n *NodeInfo) CloneInto(dst *NodeInfo, requested, nonZeroRequested, allocatable *Resource) {
	copyResource(requested, n.Requested)
	copyResource(nonZeroRequested, n.NonZeroRequested)
	copyResource(allocatable, n.Allocatable)
	*dst = NodeInfo{
		node:             n.node,
		name:             n.name,
		taints:           n.taints,
		unschedulable:    n.unschedulable,
		Requested:        requested,
		NonZeroRequested: nonZeroRequested,
		Allocatable:      allocatable,
		UsedPorts:        make(HostPortInfo, len(n.UsedPorts)),
		ImageStates:      make(map[string]*ImageStateSummary, len(n.ImageStates)),
		PVCRefCounts:     make(map[string]int, len(n.PVCRefCounts)),
		Generation:       n.Generation,
	}
	if len(n.Pods) > 0 {
		dst.Pods = append([]*PodInfo(nil), n.Pods...)
	}
	if len(n.PodsWithAffinity) > 0 {
		dst.PodsWithAffinity = append([]*PodInfo(nil), n.PodsWithAffinity...)
	}
	if len(n.PodsWithRequiredAntiAffinity) > 0 {
		dst.PodsWithRequiredAntiAffinity = append([]*PodInfo(nil), n.PodsWithRequiredAntiAffinity...)
	}
	for ip, ports := range n.UsedPorts {
		m := make(map[ProtocolPort]struct{}, len(ports))
		for k := range ports {
			m[k] = struct{}{}
		}
		dst.UsedPorts[ip] = m
	}
	for k, v := range n.ImageStates {
		s := *v
		dst.ImageStates[k] = &s
	}
	for k, v := range n.PVCRefCounts {
		dst.PVCRefCounts[k] = v
	}
}

// copyResource makes dst a copy of src with its own scalar resources.
func copyResource(dst, src *Resource) {
	*dst = *src
	if src.ScalarResources != nil {
		dst.ScalarResources = maps.Clone(src.ScalarResources)
	}
}

// String summarizes the NodeInfo for logs and test failures.
func (n *NodeInfo) String() string {
	return fmt.Sprintf("NodeInfo{node: %s, pods: %d, requested: %+v, allocatable: %+v, generation: %d}",
		n.nodeName(), len(n.Pods), *n.Requested, *n.Allocatable, n.Generation)
}
