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
	"slices"
	"strings"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NativeCompositePodGroup is the event resource of Kubernetes'
// CompositePodGroup (scheduling.k8s.io/v1alpha3), which PodGroups and other
// CompositePodGroups join through spec.parentCompositePodGroupName.
const NativeCompositePodGroup EventResource = "scheduling.k8s.io/CompositePodGroup"

// MaxCompositeLevels is how many CompositePodGroups above a PodGroup
// kube-scheduler v1.37 follows to the root of its hierarchy; the members
// of a PodGroup with more wait, as upstream's do.
const MaxCompositeLevels = schedulingv1alpha3.WorkloadMaxTreeDepth

// GroupKind tells the two kinds of node of a group hierarchy apart.
type GroupKind string

const (
	// PodGroupKind is a PodGroup: a leaf, with member pods.
	PodGroupKind GroupKind = "podgroup"
	// CompositePodGroupKind is a CompositePodGroup: an inner node, with
	// PodGroups and CompositePodGroups as children.
	CompositePodGroupKind GroupKind = "compositepodgroup"
)

// GroupKey names a node of a group hierarchy.
type GroupKey struct {
	// Kind is the node's kind.
	Kind GroupKind
	// Namespace is the node's namespace, which the whole hierarchy shares.
	Namespace string
	// Name is the node's name.
	Name string
}

// String returns the key as kube-scheduler writes it: kind/namespace/name.
func (k GroupKey) String() string { return string(k.Kind) + "/" + k.Namespace + "/" + k.Name }

// GroupNode is one node of a hierarchy of Kubernetes' PodGroups: a PodGroup
// (a leaf) or a CompositePodGroup with its children, ordered as
// kube-scheduler evaluates them. Nodes returned by a HierarchyLister must
// not be modified.
type GroupNode struct {
	// Key names the node.
	Key GroupKey
	// PodGroup is the node's PodGroup; nil for a CompositePodGroup.
	PodGroup *schedulingv1beta1.PodGroup
	// Composite is the node's CompositePodGroup; nil for a PodGroup.
	Composite *schedulingv1alpha3.CompositePodGroup
	// Children are a CompositePodGroup's children, by creation time, then name.
	Children []*GroupNode
}

// PodGroupNode returns the leaf node of a PodGroup.
func PodGroupNode(pg *schedulingv1beta1.PodGroup) *GroupNode {
	return &GroupNode{Key: GroupKey{Kind: PodGroupKind, Namespace: pg.Namespace, Name: pg.Name}, PodGroup: pg}
}

// CompositeNode returns the node of a CompositePodGroup with its children,
// which it orders as kube-scheduler does.
func CompositeNode(cpg *schedulingv1alpha3.CompositePodGroup, children []*GroupNode) *GroupNode {
	n := &GroupNode{Key: GroupKey{Kind: CompositePodGroupKind, Namespace: cpg.Namespace, Name: cpg.Name}, Composite: cpg, Children: children}
	slices.SortStableFunc(n.Children, func(a, b *GroupNode) int {
		if c := a.created().Compare(b.created().Time); c != 0 {
			return c
		}
		return strings.Compare(a.Key.Name, b.Key.Name)
	})
	return n
}

func (n *GroupNode) created() metav1.Time {
	if n.PodGroup != nil {
		return n.PodGroup.CreationTimestamp
	}
	return n.Composite.CreationTimestamp
}

// IsLeaf reports whether the node is a PodGroup.
func (n *GroupNode) IsLeaf() bool { return n.PodGroup != nil }

// Ref returns the reference of a leaf's PodGroup.
func (n *GroupNode) Ref() GroupRef { return RefOf(n.PodGroup) }

// Leaves returns the PodGroups at and below the node, in the order their
// hierarchy's cycle evaluates them.
func (n *GroupNode) Leaves() []*GroupNode {
	if n.IsLeaf() {
		return []*GroupNode{n}
	}
	var out []*GroupNode
	for _, c := range n.Children {
		out = append(out, c.Leaves()...)
	}
	return out
}

// MinCount returns what the node needs at once: a PodGroup's members (its
// gang's minCount, 1 for a basic group), or a CompositePodGroup's children
// (its gang's minGroupCount, 1 for a basic one).
func (n *GroupNode) MinCount() int {
	if n.PodGroup != nil {
		return MinCount(n.PodGroup)
	}
	if g := n.Composite.Spec.SchedulingPolicy.Gang; g != nil {
		return int(g.MinGroupCount)
	}
	return 1
}

// TopologyKey returns the node label whose domains the node must keep its
// members in, if it has such a constraint.
func (n *GroupNode) TopologyKey() (string, bool) {
	if n.PodGroup != nil {
		return TopologyKeyOf(n.PodGroup)
	}
	if c := n.Composite.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 && c.Topology[0].Key != "" {
		return c.Topology[0].Key, true
	}
	return "", false
}

// Priority returns the node's spec.priority, 0 when unset, as
// kube-scheduler reads the priority of a hierarchy's root.
func (n *GroupNode) Priority() int32 {
	var p *int32
	if n.PodGroup != nil {
		p = n.PodGroup.Spec.Priority
	} else {
		p = n.Composite.Spec.Priority
	}
	if p == nil {
		return 0
	}
	return *p
}

// HierarchyError says why the root of a PodGroup's hierarchy cannot be
// found: a CompositePodGroup above it does not exist (yet), the parents form
// a cycle, or there are more than MaxCompositeLevels of them. The group's
// members wait, with nothing written, as kube-scheduler's do.
type HierarchyError struct {
	// Reason is the reason in kube-scheduler's words.
	Reason string
}

func (e *HierarchyError) Error() string { return e.Reason }

// UnreadGroupError says why a pod's scheduling.k8s.io PodGroup cannot be
// read: the apiserver serves PodGroups only in versions the scheduler does
// not read (Served), or in none.
type UnreadGroupError struct {
	// Read is the group version the scheduler reads.
	Read string
	// Served are the group versions the apiserver serves PodGroups in.
	Served []string
}

func (e *UnreadGroupError) Error() string {
	if len(e.Served) == 0 {
		return fmt.Sprintf("the apiserver does not serve %s PodGroups", e.Read)
	}
	return fmt.Sprintf("the apiserver serves PodGroups as %s, which this scheduler does not read (it reads %s)", strings.Join(e.Served, ", "), e.Read)
}

// HierarchyLister reads the hierarchies Kubernetes' PodGroups form with
// CompositePodGroups (scheduling.k8s.io/v1alpha3).
type HierarchyLister interface {
	// Hierarchical reports whether the scheduler follows PodGroups'
	// spec.parentCompositePodGroupName: the apiserver serves
	// CompositePodGroups and the scheduler composes groups.
	Hierarchical() bool
	// Hierarchy returns the hierarchy of the PodGroup ref names, from its
	// root down: the PodGroup alone when it has no parent or when the
	// scheduler is not Hierarchical. The error is a *HierarchyError when
	// the root cannot be found, and another error when the PodGroup is
	// unknown.
	Hierarchy(ref GroupRef) (*GroupNode, error)
	// RootOf returns the key of the root above the PodGroup or
	// CompositePodGroup key names, however deep; false when a node on the
	// way up is missing or the parents form a cycle.
	RootOf(key GroupKey) (GroupKey, bool)
	// Ancestors returns the PodGroup ref names and the CompositePodGroups
	// above it, nearest first, at most MaxTreeDepth nodes, as kube-scheduler's
	// preemption walks up a hierarchy: the walk ends at a root, at a parent
	// that does not exist and where the parents form a cycle. The nodes
	// carry no children. It is empty when the PodGroup is unknown.
	Ancestors(ref GroupRef) []*GroupNode
}

// MaxTreeDepth is how many nodes of a hierarchy, its PodGroup included,
// kube-scheduler v1.37's preemption visits on its way up.
const MaxTreeDepth = schedulingv1beta1.WorkloadMaxTreeDepth

// DisruptsAll reports whether the node's disruption mode is All: its
// members are evicted together or not at all.
func (n *GroupNode) DisruptsAll() bool {
	if n.PodGroup != nil {
		return n.PodGroup.Spec.DisruptionMode != nil && n.PodGroup.Spec.DisruptionMode.All != nil
	}
	return n.Composite.Spec.DisruptionMode != nil && n.Composite.Spec.DisruptionMode.All != nil
}

// HierarchyOf returns the lister's hierarchies when it reads them and the
// scheduler composes groups.
func HierarchyOf(l WorkloadLister) (HierarchyLister, bool) {
	h, ok := l.(HierarchyLister)
	if !ok || !h.Hierarchical() {
		return nil, false
	}
	return h, true
}
