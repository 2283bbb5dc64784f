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
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// statuses builds a NodeToStatus from node name → reasons (Unschedulable).
func statuses(byNode map[string][]string) *NodeToStatus {
	m := NewNodeToStatus()
	for n, r := range byNode {
		m.Set(n, NewStatus(Unschedulable, r...))
	}
	return m
}

func TestFitErrorMessage(t *testing.T) {
	const taint = "node(s) had untolerated taint(s)"
	tests := []struct {
		name string
		err  FitError
		want string
	}{
		{
			name: "filter reasons counted and sorted",
			err: FitError{NumAllNodes: 5, Diagnosis: Diagnosis{NodeToStatus: statuses(map[string][]string{
				"n1": {"Insufficient cpu"}, "n2": {"Insufficient cpu"}, "n3": {"Insufficient cpu"},
				"n4": {taint}, "n5": {taint},
			})}},
			// sort.Strings on "<count> <reason>", as upstream: "2 n..." sorts before "3 I...".
			want: "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu.",
		},
		{
			name: "postfilter message appended",
			err: FitError{NumAllNodes: 2, Diagnosis: Diagnosis{
				NodeToStatus:  statuses(map[string][]string{"n1": {"Insufficient cpu", "Insufficient memory"}, "n2": {"Insufficient memory"}}),
				PostFilterMsg: "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
			}},
			want: "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
		},
		{
			name: "counts sort as strings, like upstream",
			err: FitError{NumAllNodes: 12, Diagnosis: Diagnosis{NodeToStatus: func() *NodeToStatus {
				m := statuses(map[string][]string{"a": {"b reason"}, "b": {"b reason"}})
				m.SetAbsentNodesStatus(NewStatus(UnschedulableAndUnresolvable, "a reason"))
				return m
			}()}},
			want: "0/12 nodes are available: 10 a reason, 2 b reason.",
		},
		{
			name: "prefilter message stands alone",
			err: FitError{NumAllNodes: 3, Diagnosis: Diagnosis{
				NodeToStatus: NewNodeToStatusWith(nil, NewStatus(UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin NodeAffinity")),
				PreFilterMsg: "node(s) didn't satisfy plugin NodeAffinity",
			}},
			want: "0/3 nodes are available: node(s) didn't satisfy plugin NodeAffinity.",
		},
		{
			name: "prefilter and postfilter",
			err: FitError{NumAllNodes: 3, Diagnosis: Diagnosis{
				NodeToStatus:  NewNodeToStatus(),
				PreFilterMsg:  "pod has unbound immediate PersistentVolumeClaims",
				PostFilterMsg: "preemption: not eligible due to preemptionPolicy=Never.",
			}},
			want: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "absent nodes without reasons add nothing",
			err:  FitError{NumAllNodes: 4, Diagnosis: Diagnosis{NodeToStatus: statuses(map[string][]string{"n1": {"Insufficient cpu"}})}},
			want: "0/4 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "no reasons at all",
			err:  FitError{NumAllNodes: 0, Diagnosis: Diagnosis{NodeToStatus: NewNodeToStatus()}},
			want: "0/0 nodes are available:",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.err.Pod = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestDiagnosisAddPluginStatus(t *testing.T) {
	var d Diagnosis
	d.AddPluginStatus(NewStatus(Unschedulable, "x").WithPlugin("A"))
	d.AddPluginStatus(NewStatus(UnschedulableAndUnresolvable, "x").WithPlugin("B"))
	d.AddPluginStatus(NewStatus(Pending, "x").WithPlugin("C"))
	d.AddPluginStatus(NewStatus(Error, "x").WithPlugin("D"))
	d.AddPluginStatus(NewStatus(Unschedulable, "no plugin"))
	if !d.UnschedulablePlugins.Equal(setOf("A", "B", "C")) {
		t.Errorf("UnschedulablePlugins = %v", d.UnschedulablePlugins.UnsortedList())
	}
	if !d.PendingPlugins.Equal(setOf("C")) {
		t.Errorf("PendingPlugins = %v", d.PendingPlugins.UnsortedList())
	}
}

type fakeLister struct{ nodes []*NodeInfo }

func (l fakeLister) List() ([]*NodeInfo, error)                                 { return l.nodes, nil }
func (l fakeLister) HavePodsWithAffinityList() ([]*NodeInfo, error)             { return nil, nil }
func (l fakeLister) HavePodsWithRequiredAntiAffinityList() ([]*NodeInfo, error) { return nil, nil }
func (l fakeLister) Get(name string) (*NodeInfo, error) {
	for _, n := range l.nodes {
		if n.Node().Name == name {
			return n, nil
		}
	}
	return nil, ErrNotFound
}

func TestNodeToStatusNodesForStatusCode(t *testing.T) {
	var nodes []*NodeInfo
	for _, n := range []string{"a", "b", "c", "d"} {
		ni := NewNodeInfo()
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		nodes = append(nodes, ni)
	}
	lister := fakeLister{nodes: nodes}
	tests := []struct {
		name string
		m    *NodeToStatus
		code Code
		want []string
	}{
		{name: "absent matches, none explicit", m: NewNodeToStatusWith(nil, NewStatus(Unschedulable)), code: Unschedulable, want: []string{"a", "b", "c", "d"}},
		{name: "absent matches, some explicit differ", m: func() *NodeToStatus {
			m := NewNodeToStatusWith(nil, NewStatus(Unschedulable))
			m.Set("b", NewStatus(UnschedulableAndUnresolvable))
			return m
		}(), code: Unschedulable, want: []string{"a", "c", "d"}},
		{name: "absent differs, explicit match", m: func() *NodeToStatus {
			m := NewNodeToStatus()
			m.Set("c", NewStatus(Unschedulable))
			m.Set("d", NewStatus(UnschedulableAndUnresolvable))
			m.Set("gone", NewStatus(Unschedulable))
			return m
		}(), code: Unschedulable, want: []string{"c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.m.NodesForStatusCode(lister, tc.code)
			if err != nil {
				t.Fatal(err)
			}
			names := setOf()
			for _, n := range got {
				names.Insert(n.Node().Name)
			}
			if !names.Equal(setOf(tc.want...)) || len(got) != len(tc.want) {
				t.Errorf("got %v, want %v", names.UnsortedList(), tc.want)
			}
		})
	}
	m := NewNodeToStatus()
	if m.Get("x").Code() != UnschedulableAndUnresolvable || m.Len() != 0 {
		t.Errorf("default absent status = %v", m.Get("x"))
	}
}

func setOf(s ...string) sets.Set[string] { return sets.New(s...) }
