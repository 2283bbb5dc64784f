package framework

// NodeToStatus holds the statuses of the nodes a pod did not fit on in one
// cycle. Nodes never filtered (for example because PreFilter narrowed or
// rejected them all) share one "absent nodes" status.
type NodeToStatus struct {
	statuses map[string]*Status
	absent   *Status
}

var _ NodeToStatusReader = (*NodeToStatus)(nil)

// NewNodeToStatus returns an empty NodeToStatus whose absent nodes are
// UnschedulableAndUnresolvable, so preemption leaves them alone.
func NewNodeToStatus() *NodeToStatus {
	return NewNodeToStatusWith(nil, NewStatus(UnschedulableAndUnresolvable))
}

// NewNodeToStatusWith returns a NodeToStatus holding the statuses (taken,
// not copied) and the absent-nodes status.
func NewNodeToStatusWith(statuses map[string]*Status, absent *Status) *NodeToStatus {
	if statuses == nil {
		statuses = make(map[string]*Status)
	}
	return &NodeToStatus{statuses: statuses, absent: absent}
}

// Get returns the node's status, or the absent-nodes status.
func (m *NodeToStatus) Get(nodeName string) *Status {
	if s, ok := m.statuses[nodeName]; ok {
		return s
	}
	return m.absent
}

// Set records a node's status.
func (m *NodeToStatus) Set(nodeName string, s *Status) {
	m.statuses[nodeName] = s
}

// Len counts the nodes with an explicit status; absent nodes are not counted.
func (m *NodeToStatus) Len() int {
	return len(m.statuses)
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
}

// NodesForStatusCode lists the nodes whose status has the code. When the
// absent-nodes status has the code, every node of the lister is a candidate.
func (m *NodeToStatus) NodesForStatusCode(lister NodeInfoLister, code Code) ([]*NodeInfo, error) {
	if m.absent.Code() != code {
		var out []*NodeInfo
		for name, s := range m.statuses {
			if s.Code() != code {
				continue
			}
			if ni, err := lister.Get(name); err == nil {
				out = append(out, ni)
			}
		}
		return out, nil
	}
	all, err := lister.List()
	if err != nil {
		return nil, err
	}
	if len(m.statuses) == 0 {
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
