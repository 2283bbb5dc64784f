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

import "sync/atomic"

// NodeToStatus holds the statuses of the nodes a pod did not fit on in one
// cycle. Nodes never filtered (for example because PreFilter narrowed or
// rejected them all) share one "absent nodes" status.
//
// Writes (Set, Record, SetAbsentNodesStatus) must not run concurrently
// with each other or with reads; reads may run concurrently with each
// other.
type NodeToStatus struct {
	// statuses holds Set's statuses and recorded Record's, whose names
	// are in neither statuses nor elsewhere in recorded: a search that
	// rejects each node once records them in a slice, and a cycle whose
	// pod fits never needs them by name.
	statuses map[string]*Status
	recorded []nodeStatus
	// byName is every explicit status by node name, built by the first
	// Get after a Record; nil when not built or stale.
	byName atomic.Pointer[map[string]*Status]
	absent *Status
}

// nodeStatus is one recorded node's status.
type nodeStatus struct {
	name   string
	status *Status
}

var _ NodeToStatusReader = (*NodeToStatus)(nil)

// NewNodeToStatus returns an empty NodeToStatus whose absent nodes are
// UnschedulableAndUnresolvable, so preemption leaves them alone.
// The absent-nodes status is shared by all of them and must not be changed
// with AppendReason (WithPlugin copies it). Every search makes one, so it
// allocates nothing but itself until a status is set.
func NewNodeToStatus() *NodeToStatus {
	return &NodeToStatus{absent: absentUnresolvable}
}

// NewNodeToStatusWith returns a NodeToStatus holding the statuses (taken,
// not copied) and the absent-nodes status.
func NewNodeToStatusWith(statuses map[string]*Status, absent *Status) *NodeToStatus {
	return &NodeToStatus{statuses: statuses, absent: absent}
}

// Get returns the node's status, or the absent-nodes status.
func (m *NodeToStatus) Get(nodeName string) *Status {
	if s, ok := m.index()[nodeName]; ok {
		return s
	}
	return m.absent
}

// index returns every explicit status by node name.
func (m *NodeToStatus) index() map[string]*Status {
	if len(m.recorded) == 0 {
		return m.statuses
	}
	if idx := m.byName.Load(); idx != nil {
		return *idx
	}
	idx := make(map[string]*Status, len(m.statuses)+len(m.recorded))
	for name, s := range m.statuses {
		idx[name] = s
	}
	for _, r := range m.recorded {
		idx[r.name] = r.status
	}
	// Concurrent readers may each build the index; one of them is kept.
	if !m.byName.CompareAndSwap(nil, &idx) {
		return *m.byName.Load()
	}
	return idx
}

// Set records a node's status.
func (m *NodeToStatus) Set(nodeName string, s *Status) {
	if m.statuses == nil {
		m.statuses = make(map[string]*Status, len(m.recorded)+1)
	}
	if len(m.recorded) > 0 {
		for _, r := range m.recorded {
			m.statuses[r.name] = r.status
		}
		m.recorded = nil
		m.byName.Store(nil)
	}
	m.statuses[nodeName] = s
}

// Record records the status of a node that has none yet; it is Set for a
// search that rejects each node at most once, and costs no map insertion
// until a status is asked for by name.
func (m *NodeToStatus) Record(nodeName string, s *Status) {
	m.recorded = append(m.recorded, nodeStatus{name: nodeName, status: s})
	if m.byName.Load() != nil {
		m.byName.Store(nil)
	}
}

// Len counts the nodes with an explicit status; absent nodes are not counted.
func (m *NodeToStatus) Len() int {
	return len(m.statuses) + len(m.recorded)
}

// AbsentNodesStatus returns the status of nodes without an explicit one.
func (m *NodeToStatus) AbsentNodesStatus() *Status {
	return m.absent
}

// SetAbsentNodesStatus replaces the status of nodes without an explicit one.
func (m *NodeToStatus) SetAbsentNodesStatus(s *Status) {
	m.absent = s
}

// ForEachExplicitNode calls fn for every node with an explicit status.
func (m *NodeToStatus) ForEachExplicitNode(fn func(nodeName string, s *Status)) {
	for name, s := range m.statuses {
		fn(name, s)
	}
	for _, r := range m.recorded {
		fn(r.name, r.status)
	}
}

// NodesForStatusCode lists the nodes whose status has the code. When the
// absent-nodes status has the code, every node of the lister is a candidate.
func (m *NodeToStatus) NodesForStatusCode(lister NodeInfoLister, code Code) ([]*NodeInfo, error) {
	if m.absent.Code() != code {
		var out []*NodeInfo
		m.ForEachExplicitNode(func(name string, s *Status) {
			if s.Code() != code {
				return
			}
			if ni, err := lister.Get(name); err == nil {
				out = append(out, ni)
			}
		})
		return out, nil
	}
	all, err := lister.List()
	if err != nil {
		return nil, err
	}
	if m.Len() == 0 {
		return all, nil
	}
	out := make([]*NodeInfo, 0, len(all))
	for _, ni := range all {
		if node := ni.Node(); node != nil && m.Get(node.Name).Code() == code {
			out = append(out, ni)
		}
	}
	return out, nil
}
