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
	"maps"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	rejected   = NewStatus(Unschedulable, "too full")
	unresolved = NewStatus(UnschedulableAndUnresolvable, "wrong zone")
	other      = NewStatus(Unschedulable, "other")
)

// explicit returns every explicit status of m, read by ForEachExplicitNode,
// failing on a node reported twice.
func explicit(t *testing.T, m *NodeToStatus) map[string]*Status {
	t.Helper()
	out := map[string]*Status{}
	m.ForEachExplicitNode(func(name string, s *Status) {
		if _, dup := out[name]; dup {
			t.Errorf("node %s reported twice", name)
		}
		out[name] = s
	})
	return out
}

func TestNodeToStatusRecordAndSet(t *testing.T) {
	tests := []struct {
		name  string
		write func(m *NodeToStatus)
		want  map[string]*Status
	}{
		{name: "recorded only", write: func(m *NodeToStatus) {
			m.Record("a", rejected)
			m.Record("b", unresolved)
		}, want: map[string]*Status{"a": rejected, "b": unresolved}},
		{name: "set only", write: func(m *NodeToStatus) {
			m.Set("a", rejected)
			m.Set("a", other)
		}, want: map[string]*Status{"a": other}},
		{name: "set overrides a recorded node", write: func(m *NodeToStatus) {
			m.Record("a", rejected)
			m.Record("b", rejected)
			m.Set("a", other)
		}, want: map[string]*Status{"a": other, "b": rejected}},
		{name: "recorded after set and a read", write: func(m *NodeToStatus) {
			m.Set("a", rejected)
			m.Record("b", unresolved)
			m.Get("b")
			m.Record("c", other)
		}, want: map[string]*Status{"a": rejected, "b": unresolved, "c": other}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewNodeToStatus()
			tc.write(m)
			if got := explicit(t, m); !maps.Equal(got, tc.want) {
				t.Errorf("ForEachExplicitNode gives %v, want %v", got, tc.want)
			}
			if m.Len() != len(tc.want) {
				t.Errorf("Len = %d, want %d", m.Len(), len(tc.want))
			}
			for name, s := range tc.want {
				if got := m.Get(name); got != s {
					t.Errorf("Get(%s) = %v, want %v", name, got, s)
				}
			}
			if got := m.Get("absent"); got != m.AbsentNodesStatus() {
				t.Errorf("Get(absent) = %v, want the absent-nodes status", got)
			}
		})
	}
}

func TestNodeToStatusNodesForStatusCodeRecorded(t *testing.T) {
	var nodes []*NodeInfo
	for _, n := range []string{"a", "b", "c"} {
		ni := NewNodeInfo()
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		nodes = append(nodes, ni)
	}
	lister := fakeLister{nodes: nodes}
	for _, absent := range []*Status{NewStatus(UnschedulableAndUnresolvable), NewStatus(Unschedulable)} {
		m := NewNodeToStatusWith(nil, absent)
		m.Record("a", rejected)
		m.Record("b", unresolved)
		got, err := m.NodesForStatusCode(lister, Unschedulable)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"a"}
		if absent.Code() == Unschedulable {
			want = []string{"a", "c"}
		}
		var names []string
		for _, ni := range got {
			names = append(names, ni.Node().Name)
		}
		if !setOf(names...).Equal(setOf(want...)) || len(names) != len(want) {
			t.Errorf("absent %v: got %v, want %v", absent.Code(), names, want)
		}
	}
}

// TestNodeToStatusConcurrentReads reads recorded statuses from several
// goroutines at once, as the race detector must allow.
func TestNodeToStatusConcurrentReads(t *testing.T) {
	m := NewNodeToStatus()
	names := []string{"a", "b", "c", "d"}
	for _, n := range names {
		m.Record(n, rejected)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, n := range names {
				if m.Get(n) != rejected {
					t.Errorf("Get(%s) = %v", n, m.Get(n))
				}
			}
			if m.Len() != len(names) {
				t.Errorf("Len = %d", m.Len())
			}
			explicit(t, m)
		})
	}
	wg.Wait()
}
