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

package podtopologyspread

import (
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/berth-io/berth/scheduler/framework"
)

// comparisonOperators mirrors upstream's TaintTolerationComparisonOperators
// feature gate, alpha and off by default in v1.37.
const comparisonOperators = false

// constraint is a topology spread constraint with its selector parsed and
// its optional fields resolved to their defaults.
type constraint struct {
	maxSkew     int32
	topologyKey string
	selector    labels.Selector
	// minDomains is at least 1; with fewer eligible domains the global minimum is 0.
	minDomains int32
	// honorAffinity counts only nodes that match the pod's required node affinity.
	honorAffinity bool
	// honorTaints counts only nodes whose hard taints the pod tolerates.
	honorTaints bool
	// sameSelectorAs is the index of an earlier constraint with an equal
	// selector, whose pod counts this one can reuse, or -1.
	sameSelectorAs int
}

// parseConstraints keeps the constraints with the action, parsing their
// selectors and merging in the values the pod has for matchLabelKeys.
func parseConstraints(in []v1.TopologySpreadConstraint, podLabels map[string]string, action v1.UnsatisfiableConstraintAction) ([]constraint, error) {
	var out []constraint
	for i := range in {
		c := &in[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("labelSelector of constraint on %q: %w", c.TopologyKey, err)
		}
		sel = withMatchLabelKeys(sel, c.MatchLabelKeys, podLabels)
		pc := constraint{
			maxSkew:        c.MaxSkew,
			topologyKey:    c.TopologyKey,
			selector:       sel,
			minDomains:     1,
			honorAffinity:  c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor,
			honorTaints:    c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor,
			sameSelectorAs: -1,
		}
		if c.MinDomains != nil {
			pc.minDomains = *c.MinDomains
		}
		out = append(out, pc)
	}
	linkEqualSelectors(out)
	return out, nil
}

// withMatchLabelKeys adds, for every key the pod has a label for, a
// requirement that the key equals the pod's value. A selector that selects
// nothing stays as it is.
func withMatchLabelKeys(sel labels.Selector, keys []string, podLabels map[string]string) labels.Selector {
	if len(keys) == 0 {
		return sel
	}
	own := labels.Set{}
	for _, k := range keys {
		if v, ok := podLabels[k]; ok {
			own[k] = v
		}
	}
	if len(own) == 0 {
		return sel
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return sel
	}
	return labels.SelectorFromSet(own).Add(reqs...)
}

// linkEqualSelectors points each constraint at the first earlier one with
// the same selector, so pods are matched once per distinct selector.
func linkEqualSelectors(cs []constraint) {
	if len(cs) < 2 {
		return
	}
	keys := make([]string, len(cs))
	for i := range cs {
		keys[i] = cs[i].selector.String()
		for j := 0; j < i; j++ {
			if keys[j] == keys[i] && cs[j].sameSelectorAs < 0 {
				cs[i].sameSelectorAs = j
				break
			}
		}
	}
}

// hasAllTopologyKeys reports whether the node labels carry every
// constraint's topology key.
func hasAllTopologyKeys(nodeLabels map[string]string, cs []constraint) bool {
	for i := range cs {
		if _, ok := nodeLabels[cs[i].topologyKey]; !ok {
			return false
		}
	}
	return true
}

// includesNode applies the constraint's node inclusion policies: whether the
// node's pods count towards the spread.
func (c *constraint) includesNode(logger logr.Logger, pod *v1.Pod, node *v1.Node, required nodeaffinity.RequiredNodeAffinity) bool {
	if c.honorAffinity {
		// A selector that does not parse matches nothing; the error itself is
		// NodeAffinity's to report.
		if ok, _ := required.Match(node); !ok {
			return false
		}
	}
	if c.honorTaints && hasUntoleratedHardTaint(logger, node.Spec.Taints, pod.Spec.Tolerations) {
		return false
	}
	return true
}

// hasUntoleratedHardTaint reports whether a NoSchedule or NoExecute taint
// is not tolerated; unlike FindMatchingUntoleratedTaint it does not allocate.
func hasUntoleratedHardTaint(logger logr.Logger, taints []v1.Taint, tolerations []v1.Toleration) bool {
	for i := range taints {
		t := &taints[i]
		if t.Effect != v1.TaintEffectNoSchedule && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(logger, tolerations, t, comparisonOperators) {
			return true
		}
	}
	return false
}

// countMatching counts the pods in namespace ns that the selector selects,
// leaving out pods being deleted. An empty selector counts nothing.
func countMatching(pods []*framework.PodInfo, sel labels.Selector, ns string) int {
	if sel.Empty() {
		return 0
	}
	n := 0
	for _, pi := range pods {
		p := pi.Pod
		if p.DeletionTimestamp != nil || p.Namespace != ns {
			continue
		}
		if sel.Matches(labels.Set(p.Labels)) {
			n++
		}
	}
	return n
}

// anySelects reports whether any constraint selects the labels.
func anySelects(cs []constraint, podLabels map[string]string) bool {
	for i := range cs {
		if cs[i].selector.Matches(labels.Set(podLabels)) {
			return true
		}
	}
	return false
}

// Controller kinds whose selectors default constraints borrow.
var (
	replicationControllerKind = v1.SchemeGroupVersion.WithKind("ReplicationController")
	replicaSetKind            = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	statefulSetKind           = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
)

// ownersSelector selects the pods that share the pod's Services and its
// controlling ReplicationController, ReplicaSet or StatefulSet. It is empty
// when the pod belongs to none of them.
func (pl *PodTopologySpread) ownersSelector(pod *v1.Pod) labels.Selector {
	set := labels.Set{}
	services, err := pl.services.ByIndex(cache.NamespaceIndex, pod.Namespace)
	if err != nil {
		// A store without the namespace index: the listers' fallback.
		services = services[:0]
		_ = cache.ListAllByNamespace(pl.services, pod.Namespace, labels.Everything(), func(obj any) { services = append(services, obj) })
	}
	for _, obj := range services {
		svc, ok := obj.(*v1.Service)
		// A Service without a selector selects no pods, not all.
		if !ok || svc.Spec.Selector == nil {
			continue
		}
		if labels.Set(svc.Spec.Selector).AsSelectorPreValidated().Matches(labels.Set(pod.Labels)) {
			set = labels.Merge(set, svc.Spec.Selector)
		}
	}
	sel := set.AsSelector()
	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil {
		return sel
	}
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return sel
	}
	var ls *metav1.LabelSelector
	switch gv.WithKind(owner.Kind) {
	case replicationControllerKind:
		rc, ok := stored[*v1.ReplicationController](pl.replicationControllers, pod.Namespace, owner.Name)
		if !ok {
			return sel
		}
		return labels.Merge(set, rc.Spec.Selector).AsSelector()
	case replicaSetKind:
		rs, ok := stored[*appsv1.ReplicaSet](pl.replicaSets, pod.Namespace, owner.Name)
		if !ok {
			return sel
		}
		ls = rs.Spec.Selector
	case statefulSetKind:
		ss, ok := stored[*appsv1.StatefulSet](pl.statefulSets, pod.Namespace, owner.Name)
		if !ok {
			return sel
		}
		ls = ss.Spec.Selector
	default:
		return sel
	}
	ownerSel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return sel
	}
	if reqs, ok := ownerSel.Requirements(); ok {
		sel = sel.Add(reqs...)
	}
	return sel
}

// stored returns the object an informer's store holds as namespace/name.
func stored[T any](store cache.Indexer, namespace, name string) (T, bool) {
	var zero T
	obj, ok, err := store.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return zero, false
	}
	t, ok := obj.(T)
	return t, ok
}

// defaultConstraints returns the configured default constraints with the
// action, all selecting the pods of the pod's owners; none when the pod
// has no owners.
func (pl *PodTopologySpread) defaultConstraints(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) []constraint {
	parsed := pl.softDefaults
	if action == v1.DoNotSchedule {
		parsed = pl.hardDefaults
	}
	if len(parsed) == 0 {
		return nil
	}
	sel := pl.ownersSelector(pod)
	if sel.Empty() {
		return nil
	}
	cs := slices.Clone(parsed)
	for i := range cs {
		cs[i].selector = sel
		cs[i].sameSelectorAs = -1
		if i > 0 {
			cs[i].sameSelectorAs = 0
		}
	}
	return cs
}

// constraintsFor returns the pod's constraints with the action: its own,
// or the defaults when it declares none.
func (pl *PodTopologySpread) constraintsFor(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]constraint, error) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		cs, err := parseConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, action)
		if err != nil {
			return nil, fmt.Errorf("topology spread constraints of pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		return cs, nil
	}
	return pl.defaultConstraints(pod, action), nil
}
