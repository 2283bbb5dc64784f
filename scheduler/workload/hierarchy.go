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

package workload

import (
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
)

// CompositeGroupVersion is the API version of Kubernetes' CompositePodGroups.
var CompositeGroupVersion = schedulingv1alpha3.SchemeGroupVersion

// ParentIndex is the name of the PodGroup and CompositePodGroup informer
// index that maps namespace/name of a CompositePodGroup to its children.
const ParentIndex = "berth.io/parent-composite-pod-group"

// CompositeServed reports whether the apiserver serves
// scheduling.k8s.io/v1alpha3 CompositePodGroups (its CompositePodGroup
// feature gate and that API version are on).
func CompositeServed(d discovery.DiscoveryInterface) (bool, error) {
	return servesResource(d, CompositeGroupVersion.String(), "compositepodgroups")
}

// indexParent is the index function of ParentIndex.
func indexParent(obj any) ([]string, error) {
	var parent *string
	var ns string
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		parent, ns = o.Spec.ParentCompositePodGroupName, o.Namespace
	case *schedulingv1alpha3.CompositePodGroup:
		parent, ns = o.Spec.ParentCompositePodGroupName, o.Namespace
	}
	if parent == nil || *parent == "" {
		return nil, nil
	}
	return []string{ns + "/" + *parent}, nil
}

// addParentIndex adds ParentIndex to the informer unless it has it.
func addParentIndex(inf cache.SharedIndexInformer) error {
	if _, ok := inf.GetIndexer().GetIndexers()[ParentIndex]; ok {
		return nil
	}
	return inf.AddIndexers(cache.Indexers{ParentIndex: indexParent})
}

// WithCompositeInformerFactory follows PodGroups' parentCompositePodGroupName
// to the CompositePodGroups the factory's informer watches, as
// kube-scheduler does with its CompositePodGroup gate on. It needs
// WithInformerFactory of the same factory; without it every PodGroup is
// the root of its own hierarchy.
func WithCompositeInformerFactory(f informers.SharedInformerFactory) Option {
	return func(g *Groups) {
		inf := f.Scheduling().V1alpha3().CompositePodGroups()
		g.composite = inf.Informer()
		g.compositeLister = inf.Lister()
		if err := addParentIndex(g.composite); err != nil {
			g.hierarchyErr = fmt.Errorf("indexing CompositePodGroups by parent: %w", err)
		}
		if err := addParentIndex(f.Scheduling().V1beta1().PodGroups().Informer()); err != nil {
			g.hierarchyErr = fmt.Errorf("indexing PodGroups by parent: %w", err)
		}
	}
}

// Err returns why the options could not be applied, if they could not:
// the informers could not be indexed by parent.
func (g *Groups) Err() error { return g.hierarchyErr }

// CompositeInformer returns the informer of CompositePodGroups, or nil when
// they are not followed.
func (g *Groups) CompositeInformer() cache.SharedIndexInformer { return g.composite }

// Hierarchical reports whether PodGroups' parents are followed.
func (g *Groups) Hierarchical() bool { return g.composite != nil && g.native != nil }

var _ framework.HierarchyLister = (*Groups)(nil)

// Hierarchy returns the hierarchy of the PodGroup ref names, from its root
// down, as kube-scheduler v1.37 resolves it: the parents are followed up to
// MaxCompositeLevels CompositePodGroups; a parent that does not exist, a
// cycle, or more levels leave the hierarchy unresolved (a
// *framework.HierarchyError). One of Berth's PodGroups has no parent.
func (g *Groups) Hierarchy(ref framework.GroupRef) (*framework.GroupNode, error) {
	pg, err := g.PodGroup(ref)
	if err != nil {
		return nil, err
	}
	if ref.Berth || !g.Hierarchical() || pg.Spec.ParentCompositePodGroupName == nil {
		return framework.PodGroupNode(pg), nil
	}
	root, err := g.rootAbove(pg)
	if err != nil {
		return nil, err
	}
	return g.subtree(root), nil
}

// RootOf returns the key of the root of the hierarchy that the PodGroup or
// CompositePodGroup key names belongs to, following parents however many
// there are, as kube-scheduler's requeueing does; false when a node on the
// way up does not exist or the parents form a cycle. Without hierarchies a
// PodGroup is its own root.
func (g *Groups) RootOf(key framework.GroupKey) (framework.GroupKey, bool) {
	visited := sets.New[framework.GroupKey]()
	for {
		if visited.Has(key) {
			return framework.GroupKey{}, false
		}
		visited.Insert(key)
		var parent *string
		switch key.Kind {
		case framework.PodGroupKind:
			if g.lister == nil {
				return framework.GroupKey{}, false
			}
			pg, err := g.lister.PodGroups(key.Namespace).Get(key.Name)
			if err != nil {
				return framework.GroupKey{}, false
			}
			parent = pg.Spec.ParentCompositePodGroupName
			if !g.Hierarchical() {
				parent = nil
			}
		case framework.CompositePodGroupKind:
			if g.compositeLister == nil {
				return framework.GroupKey{}, false
			}
			cpg, err := g.compositeLister.CompositePodGroups(key.Namespace).Get(key.Name)
			if err != nil {
				return framework.GroupKey{}, false
			}
			parent = cpg.Spec.ParentCompositePodGroupName
		}
		if parent == nil {
			return key, true
		}
		key = framework.GroupKey{Kind: framework.CompositePodGroupKind, Namespace: key.Namespace, Name: *parent}
	}
}

// Ancestors returns the PodGroup ref names and the CompositePodGroups above
// it, nearest first, at most framework.MaxTreeDepth nodes; the walk ends
// at a root, a missing parent or a cycle. Without hierarchies, or for one
// of Berth's PodGroups, it is the PodGroup alone.
func (g *Groups) Ancestors(ref framework.GroupRef) []*framework.GroupNode {
	pg, err := g.PodGroup(ref)
	if err != nil {
		return nil
	}
	out := []*framework.GroupNode{framework.PodGroupNode(pg)}
	if ref.Berth || !g.Hierarchical() {
		return out
	}
	visited := sets.New[string]()
	for parent := pg.Spec.ParentCompositePodGroupName; parent != nil && len(out) < framework.MaxTreeDepth && !visited.Has(*parent); {
		visited.Insert(*parent)
		cpg, err := g.compositeLister.CompositePodGroups(pg.Namespace).Get(*parent)
		if err != nil {
			break
		}
		out = append(out, framework.CompositeNode(cpg, nil))
		parent = cpg.Spec.ParentCompositePodGroupName
	}
	return out
}

// rootAbove walks up from a PodGroup's parent to the root CompositePodGroup.
func (g *Groups) rootAbove(pg *schedulingv1beta1.PodGroup) (*schedulingv1alpha3.CompositePodGroup, error) {
	ns, first := pg.Namespace, *pg.Spec.ParentCompositePodGroupName
	key := func(name string) string {
		return framework.GroupKey{Kind: framework.CompositePodGroupKind, Namespace: ns, Name: name}.String()
	}
	visited := sets.New[string]()
	for name := first; ; {
		if visited.Has(name) {
			return nil, &framework.HierarchyError{Reason: "cycle detected in composite pod group hierarchy: " + key(name)}
		}
		visited.Insert(name)
		if visited.Len() > framework.MaxCompositeLevels {
			return nil, &framework.HierarchyError{Reason: "failed to build hierarchy snapshot: composite pod group object not found in state for " + key(first)}
		}
		cpg, err := g.compositeLister.CompositePodGroups(ns).Get(name)
		if apierrors.IsNotFound(err) {
			return nil, &framework.HierarchyError{Reason: "failed to build hierarchy snapshot: composite pod group object not found in state for " + key(name)}
		}
		if err != nil {
			return nil, fmt.Errorf("reading CompositePodGroup %s/%s: %w", ns, name, err)
		}
		if cpg.Spec.ParentCompositePodGroupName == nil {
			return cpg, nil
		}
		name = *cpg.Spec.ParentCompositePodGroupName
	}
}

// subtree builds the node of a CompositePodGroup and everything under it.
// Every node has one parent, so the walk down from a root ends.
func (g *Groups) subtree(cpg *schedulingv1alpha3.CompositePodGroup) *framework.GroupNode {
	key := cpg.Namespace + "/" + cpg.Name
	var children []*framework.GroupNode
	if objs, err := g.native.GetIndexer().ByIndex(ParentIndex, key); err == nil {
		for _, o := range objs {
			if pg, ok := o.(*schedulingv1beta1.PodGroup); ok {
				children = append(children, framework.PodGroupNode(pg))
			}
		}
	}
	if objs, err := g.composite.GetIndexer().ByIndex(ParentIndex, key); err == nil {
		for _, o := range objs {
			if child, ok := o.(*schedulingv1alpha3.CompositePodGroup); ok {
				children = append(children, g.subtree(child))
			}
		}
	}
	return framework.CompositeNode(cpg, children)
}
