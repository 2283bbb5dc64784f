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

package schedtest

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// NodeBuilder builds a node step by step.
type NodeBuilder struct{ node *v1.Node }

// Node starts a node with the name and a UID derived from it.
func Node(name string) *NodeBuilder {
	return &NodeBuilder{node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid")}}}
}

// NodeFrom starts a builder from a copy of the node.
func NodeFrom(node *v1.Node) *NodeBuilder { return &NodeBuilder{node: node.DeepCopy()} }

// UID sets the UID.
func (b *NodeBuilder) UID(uid string) *NodeBuilder { b.node.UID = types.UID(uid); return b }

// ResourceVersion sets metadata.resourceVersion.
func (b *NodeBuilder) ResourceVersion(rv string) *NodeBuilder { b.node.ResourceVersion = rv; return b }

// Label sets a label.
func (b *NodeBuilder) Label(key, value string) *NodeBuilder {
	if b.node.Labels == nil {
		b.node.Labels = map[string]string{}
	}
	b.node.Labels[key] = value
	return b
}

// Labels sets the labels to the key/value pairs (empty, not nil, without pairs).
func (b *NodeBuilder) Labels(pairs ...string) *NodeBuilder { b.node.Labels = Map(pairs...); return b }

// Hostname sets the kubernetes.io/hostname label to the node's name.
func (b *NodeBuilder) Hostname() *NodeBuilder { return b.Label(v1.LabelHostname, b.node.Name) }

// Zone sets the topology.kubernetes.io/zone label.
func (b *NodeBuilder) Zone(zone string) *NodeBuilder { return b.Label(v1.LabelTopologyZone, zone) }

// Region sets the topology.kubernetes.io/region label.
func (b *NodeBuilder) Region(region string) *NodeBuilder {
	return b.Label(v1.LabelTopologyRegion, region)
}

// Alloc sets allocatable (and capacity) from name/quantity pairs.
func (b *NodeBuilder) Alloc(pairs ...string) *NodeBuilder {
	b.node.Status.Allocatable = List(pairs...)
	b.node.Status.Capacity = List(pairs...)
	return b
}

// Unschedulable sets spec.unschedulable.
func (b *NodeBuilder) Unschedulable(u bool) *NodeBuilder { b.node.Spec.Unschedulable = u; return b }

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect v1.TaintEffect) *NodeBuilder {
	b.node.Spec.Taints = append(b.node.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Image reports an image of the size in bytes, known by the names, as present on the node.
func (b *NodeBuilder) Image(sizeBytes int64, names ...string) *NodeBuilder {
	b.node.Status.Images = append(b.node.Status.Images, v1.ContainerImage{Names: names, SizeBytes: sizeBytes})
	return b
}

// Ready adds a Ready=True condition.
func (b *NodeBuilder) Ready() *NodeBuilder {
	b.node.Status.Conditions = append(b.node.Status.Conditions, v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue})
	return b
}

// DeclaredFeatures sets status.declaredFeatures.
func (b *NodeBuilder) DeclaredFeatures(features ...string) *NodeBuilder {
	b.node.Status.DeclaredFeatures = features
	return b
}

// Obj returns the node; later calls on the builder change it.
func (b *NodeBuilder) Obj() *v1.Node { return b.node }
