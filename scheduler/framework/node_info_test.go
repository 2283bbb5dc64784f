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
	"k8s.io/apimachinery/pkg/types"
)

// portsPod builds a pod whose containers ask for host ports.
type portsPod struct{ pod *v1.Pod }

func newPortsPod(name string) *portsPod {
	return &portsPod{pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}}
}

func (b *portsPod) container(port int32) *portsPod {
	b.pod.Spec.Containers = append(b.pod.Spec.Containers, v1.Container{Ports: []v1.ContainerPort{{HostPort: port, ContainerPort: port, Protocol: v1.ProtocolTCP}}})
	return b
}

func (b *portsPod) sidecar(port int32) *portsPod {
	always := v1.ContainerRestartPolicyAlways
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{RestartPolicy: &always,
		Ports: []v1.ContainerPort{{HostPort: port, ContainerPort: port, Protocol: v1.ProtocolTCP}}})
	return b
}

func (b *portsPod) initContainer(port int32) *portsPod {
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{
		Ports: []v1.ContainerPort{{HostPort: port, ContainerPort: port, Protocol: v1.ProtocolTCP}}})
	return b
}

func TestNodeInfoUsedPorts(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantUsed []int32
		wantFree []int32
	}{
		{name: "app container ports", pod: newPortsPod("a").container(80).container(443).pod, wantUsed: []int32{80, 443}},
		{name: "sidecar ports are held", pod: newPortsPod("b").container(80).sidecar(9090).pod, wantUsed: []int32{80, 9090}},
		{name: "run-to-completion init container ports are not held", pod: newPortsPod("c").initContainer(8080).container(80).pod,
			wantUsed: []int32{80}, wantFree: []int32{8080}},
		{name: "no host port", pod: newPortsPod("d").container(0).pod, wantFree: []int32{80}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pi, err := NewPodInfo(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			ni := NewNodeInfo(pi)
			for _, p := range tc.wantUsed {
				if !ni.UsedPorts.CheckConflict("", "TCP", p) {
					t.Errorf("port %d is not recorded as used", p)
				}
			}
			for _, p := range tc.wantFree {
				if ni.UsedPorts.CheckConflict("", "TCP", p) {
					t.Errorf("port %d is recorded as used", p)
				}
			}
			if err := ni.RemovePod(tc.pod); err != nil {
				t.Fatal(err)
			}
			if n := ni.UsedPorts.Len(); n != 0 {
				t.Errorf("after removing the pod %d ports are still used", n)
			}
		})
	}
}

func TestNodeInfoSnapshotIndex(t *testing.T) {
	tests := []struct {
		name string
		set  []int
		want int
	}{
		{name: "never placed", want: -1},
		{name: "placed first", set: []int{0}, want: 0},
		{name: "placed again", set: []int{3, 4999}, want: 4999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := NewNodeInfo()
			for _, i := range tt.set {
				ni.SetSnapshotIndex(i)
			}
			if got := ni.SnapshotIndex(); got != tt.want {
				t.Errorf("SnapshotIndex() = %d, want %d", got, tt.want)
			}
			// A clone is a NodeInfo no snapshot has placed.
			if got := ni.Clone().SnapshotIndex(); got != -1 {
				t.Errorf("the clone's SnapshotIndex() = %d, want -1", got)
			}
		})
	}
}

// factsNode builds nodes for the node-fact tests: makeFactsNode("n").taint("k", effect).cordon().obj().
type factsNode struct{ node *v1.Node }

func makeFactsNode(name string) *factsNode {
	return &factsNode{node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

func (b *factsNode) taint(key string, effect v1.TaintEffect) *factsNode {
	b.node.Spec.Taints = append(b.node.Spec.Taints, v1.Taint{Key: key, Effect: effect})
	return b
}

func (b *factsNode) cordon() *factsNode { b.node.Spec.Unschedulable = true; return b }

func (b *factsNode) obj() *v1.Node { return b.node }

// assertNodeFacts checks that the NodeInfo's copies of the node's facts
// equal the facts of node (nil: no node).
func assertNodeFacts(t *testing.T, ni *NodeInfo, node *v1.Node) {
	t.Helper()
	var want v1.Node
	if node != nil {
		want = *node
	}
	if ni.Node() != node {
		t.Fatalf("Node() = %p, want %p", ni.Node(), node)
	}
	if got := ni.Name(); got != want.Name {
		t.Errorf("Name() = %q, want %q", got, want.Name)
	}
	if got := ni.Unschedulable(); got != want.Spec.Unschedulable {
		t.Errorf("Unschedulable() = %v, want %v", got, want.Spec.Unschedulable)
	}
	if got := ni.Taints(); !equalTaints(got, want.Spec.Taints) {
		t.Errorf("Taints() = %v, want %v", got, want.Spec.Taints)
	}
}

func equalTaints(a, b []v1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].MatchTaint(&b[i]) {
			return false
		}
	}
	return true
}

func TestNodeInfoNodeFactsFollowTheNode(t *testing.T) {
	tainted := makeFactsNode("n1").taint("a", v1.TaintEffectNoSchedule).taint("b", v1.TaintEffectPreferNoSchedule).obj()
	cordoned := makeFactsNode("n1").cordon().obj()
	// Each step sets (or, with nil, removes) the node of one NodeInfo in turn.
	tests := []struct {
		name  string
		steps []*v1.Node
	}{
		{name: "plain node", steps: []*v1.Node{makeFactsNode("n1").obj()}},
		{name: "taints added", steps: []*v1.Node{makeFactsNode("n1").obj(), tainted}},
		{name: "taints removed", steps: []*v1.Node{tainted, makeFactsNode("n1").obj()}},
		{name: "cordon", steps: []*v1.Node{makeFactsNode("n1").obj(), cordoned}},
		{name: "uncordon", steps: []*v1.Node{cordoned, makeFactsNode("n1").obj()}},
		{name: "cordoned and tainted, then removed", steps: []*v1.Node{makeFactsNode("n1").cordon().taint("a", v1.TaintEffectNoExecute).obj(), nil}},
		{name: "removed, then back", steps: []*v1.Node{tainted, nil, cordoned}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ni := NewNodeInfo()
			assertNodeFacts(t, ni, nil)
			for _, node := range tc.steps {
				if node == nil {
					ni.RemoveNode()
				} else {
					ni.SetNode(node)
				}
				assertNodeFacts(t, ni, node)
				assertNodeFacts(t, ni.Clone(), node)
				copied := *ni
				assertNodeFacts(t, &copied, node)
			}
		})
	}
}

func TestNodeInfoNameOfNil(t *testing.T) {
	var ni *NodeInfo
	if got := ni.Name(); got != "" {
		t.Errorf("Name() of a nil NodeInfo = %q, want \"\"", got)
	}
}
