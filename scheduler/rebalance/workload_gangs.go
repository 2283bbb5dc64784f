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

package rebalance

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// WorkloadGangs tells the gangs of the PodGroups a WorkloadLister serves,
// Kubernetes' own and Berth's, with the CompositePodGroups above them.
type WorkloadGangs struct {
	// Workloads lists the PodGroups and their members; nil knows no gang.
	Workloads framework.WorkloadLister
}

var _ Gangs = WorkloadGangs{}

// GangOf returns the gang pod is a member of: the
// group's kind and namespace/name, how many members it needs placed
// together, its members that are bound and not being deleted, whether its
// disruption mode is All, and the CompositePodGroups above it. A member of
// a PodGroup with a gang policy, or whose disruption mode is All,
// Kubernetes' own or Berth's, is in a gang, and so is a member of any
// PodGroup under a CompositePodGroup with a gang policy or a disruption
// mode of All; another basic PodGroup's member, or a pod whose group is
// unknown, is not.
func (w WorkloadGangs) GangOf(pod *v1.Pod) (Gang, bool) {
	ref, ok := framework.GroupRefOf(pod)
	if !ok || w.Workloads == nil {
		return Gang{}, false
	}
	pg, err := w.Workloads.PodGroup(ref)
	if err != nil {
		return Gang{}, false
	}
	node := framework.PodGroupNode(pg)
	gang := Gang{
		Name: gangName(node, ref.Berth), MinCount: framework.MinCount(pg),
		Bound: boundOf(w.Workloads.Members(ref)), Whole: node.DisruptsAll(),
	}
	if h, ok := framework.HierarchyOf(w.Workloads); ok && !ref.Berth && pg.Spec.ParentCompositePodGroupName != nil {
		if root, err := h.Hierarchy(ref); err == nil && !root.IsLeaf() && keepsWhole(root) {
			above := map[framework.GroupKey]*Composite{}
			w.composite(root, nil, above)
			gang.Parent = above[node.Key]
		}
	}
	if pg.Spec.SchedulingPolicy.Gang == nil && !gang.Whole && gang.Parent == nil {
		return Gang{}, false
	}
	return gang, true
}

// gangName names a group for the rebalancer's messages: its kind and
// namespace/name.
func gangName(n *framework.GroupNode, berth bool) string {
	kind := "podgroup.scheduling.k8s.io/"
	switch {
	case n.Composite != nil:
		kind = "compositepodgroup.scheduling.k8s.io/"
	case berth:
		kind = "podgroup.scheduling.berth.io/"
	}
	return kind + n.Key.Namespace + "/" + n.Key.Name
}

// keepsWhole reports whether a CompositePodGroup at or below n has a gang
// policy or a disruption mode of All: only then does the rebalancer need
// the hierarchy.
func keepsWhole(n *framework.GroupNode) bool {
	if n.IsLeaf() {
		return false
	}
	if n.DisruptsAll() || n.Composite.Spec.SchedulingPolicy.Gang != nil {
		return true
	}
	return slices.ContainsFunc(n.Children, keepsWhole)
}

// composite returns the view of the CompositePodGroup n and
// its subtree, whose parent is parent, and records in above the
// CompositePodGroup directly above each PodGroup of the subtree.
func (w WorkloadGangs) composite(n *framework.GroupNode, parent *Composite, above map[framework.GroupKey]*Composite) *Composite {
	c := &Composite{Name: gangName(n, false), Whole: n.DisruptsAll(), Parent: parent}
	if g := n.Composite.Spec.SchedulingPolicy.Gang; g != nil {
		c.MinGroupCount = int(g.MinGroupCount)
	}
	for _, child := range n.Children {
		if !child.IsLeaf() {
			sub := w.composite(child, c, above)
			c.Children = append(c.Children, Child{Name: sub.Name, Composite: sub})
			continue
		}
		c.Children = append(c.Children, Child{
			Name: gangName(child, false), MinCount: child.MinCount(),
			Bound: boundOf(w.Workloads.Members(child.Ref())),
		})
		above[child.Key] = c
	}
	return c
}

// boundOf keeps the pods bound to a node and not being deleted.
func boundOf(pods []*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}
