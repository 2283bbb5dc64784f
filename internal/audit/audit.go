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

// Package audit checks a snapshot of a cluster for bound pods whose
// placement violates a hard scheduling constraint and for gangs bound below
// their minCount. It reads plain API objects and judges them by the
// Kubernetes API's own semantics, written here: it shares no code with
// Berth's scheduler, so that it can judge any scheduler's placements,
// Berth's and kube-scheduler's alike. `berth audit` runs it on a live
// cluster; docs/audit.md says what it checks and what it does not.
package audit

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Constraint names the kind of constraint a Violation breaks; its values
// are stable, for scripts to match on.
type Constraint string

// The constraints Check verifies.
const (
	// NodeSelector is spec.nodeSelector against the node's labels.
	NodeSelector Constraint = "NodeSelector"
	// NodeAffinity is the pod's required node affinity.
	NodeAffinity Constraint = "NodeAffinity"
	// TaintToleration is a NoSchedule or NoExecute taint the pod does not tolerate.
	TaintToleration Constraint = "TaintToleration"
	// PodAffinity is a term of the pod's required pod affinity.
	PodAffinity Constraint = "PodAffinity"
	// PodAntiAffinity is a term of the pod's required pod anti-affinity.
	PodAntiAffinity Constraint = "PodAntiAffinity"
	// PodTopologySpread is a topology spread constraint with whenUnsatisfiable: DoNotSchedule.
	PodTopologySpread Constraint = "PodTopologySpread"
	// NodeResources is the bound pods' requests against the node's allocatable.
	NodeResources Constraint = "NodeResources"
	// HostPorts is a host port two pods of one node both use.
	HostPorts Constraint = "HostPorts"
	// GangMinCount is a gang with fewer members bound than its minCount.
	GangMinCount Constraint = "GangMinCount"
)

// The kinds of object a Violation is about.
const (
	// KindPod is a pod.
	KindPod = "Pod"
	// KindNode is a node, for what its pods break together (NodeResources).
	KindNode = "Node"
	// KindPodGroup is a scheduling.k8s.io PodGroup.
	KindPodGroup = "PodGroup"
	// KindBerthPodGroup is one of Berth's own PodGroups (scheduling.berth.io).
	KindBerthPodGroup = "PodGroup.scheduling.berth.io"
)

// Cluster is the snapshot Check reads: the cluster's objects as listed at
// one moment. Pods may be bound or not, live or terminated: Check picks the
// bound ones that have not terminated.
type Cluster struct {
	// Nodes are the cluster's nodes.
	Nodes []*corev1.Node
	// Pods are the cluster's pods, in every namespace.
	Pods []*corev1.Pod
	// Namespaces are the cluster's namespaces, whose labels the
	// namespaceSelectors of pod (anti-)affinity terms match. When nil,
	// every namespace is taken to have only the label the apiserver gives
	// them all, kubernetes.io/metadata.name=<name>, so a namespaceSelector
	// on other labels selects no namespace.
	Namespaces []*corev1.Namespace
	// PodGroups are Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1),
	// which pods join through spec.schedulingGroup.podGroupName.
	PodGroups []*schedulingv1beta1.PodGroup
	// BerthPodGroups are Berth's own PodGroups (scheduling.berth.io/v1alpha1),
	// which pods join through the scheduling.berth.io/pod-group label.
	BerthPodGroups []*v1alpha1.PodGroup
}

// Violation is one constraint a placement breaks.
type Violation struct {
	// Kind is the kind of object at fault: Pod, Node, PodGroup or
	// PodGroup.scheduling.berth.io.
	Kind string `json:"kind"`
	// Namespace is the object's namespace; empty for a node.
	Namespace string `json:"namespace,omitempty"`
	// Name is the object's name.
	Name string `json:"name"`
	// Node is the node the pod is bound to, or the node at fault; empty for a group.
	Node string `json:"node,omitempty"`
	// Constraint is the kind of constraint broken.
	Constraint Constraint `json:"constraint"`
	// Message says what is wrong, naming the objects involved.
	Message string `json:"message"`
}

// Check returns the violations in the cluster, sorted by namespace, name,
// kind, constraint, node and message.
func Check(c Cluster) []Violation {
	s := newSnapshot(c)
	var out []Violation
	for _, p := range s.bound {
		node := s.nodes[p.Spec.NodeName]
		if node == nil {
			// The node is gone: its pods are garbage collected soon, and
			// there is nothing to hold them against.
			continue
		}
		out = append(out, checkNodeSelection(p, node)...)
		out = append(out, checkTaints(p, node)...)
		out = append(out, s.checkInterPod(p, node)...)
	}
	out = append(out, s.checkSpread()...)
	out = append(out, s.checkResources()...)
	out = append(out, s.checkHostPorts()...)
	out = append(out, checkGangs(c)...)
	slices.SortFunc(out, func(a, b Violation) int {
		return cmp.Or(
			strings.Compare(a.Namespace, b.Namespace),
			strings.Compare(a.Name, b.Name),
			strings.Compare(a.Kind, b.Kind),
			strings.Compare(string(a.Constraint), string(b.Constraint)),
			strings.Compare(a.Node, b.Node),
			strings.Compare(a.Message, b.Message),
		)
	})
	return out
}

// snapshot indexes a Cluster for the checks.
type snapshot struct {
	// nodes are the nodes by name.
	nodes map[string]*corev1.Node
	// nodeNames are the nodes' names, sorted.
	nodeNames []string
	// bound are the bound pods that have not terminated, sorted by namespace and name.
	bound []*corev1.Pod
	// byNode are the bound pods of each node, sorted as bound.
	byNode map[string][]*corev1.Pod
	// nsLabels are the namespaces' labels; nil when the snapshot has no namespaces.
	nsLabels map[string]labels.Set
	// domains are, per topology key, the bound pods on the nodes of each
	// value of that key; filled as keys are asked for.
	domains map[string]map[string][]*corev1.Pod
}

func newSnapshot(c Cluster) *snapshot {
	s := &snapshot{
		nodes:   make(map[string]*corev1.Node, len(c.Nodes)),
		byNode:  make(map[string][]*corev1.Pod, len(c.Nodes)),
		domains: map[string]map[string][]*corev1.Pod{},
	}
	for _, n := range c.Nodes {
		if n != nil {
			s.nodes[n.Name] = n
			s.nodeNames = append(s.nodeNames, n.Name)
		}
	}
	slices.Sort(s.nodeNames)
	for _, p := range c.Pods {
		if p != nil && isBoundAndLive(p) {
			s.bound = append(s.bound, p)
		}
	}
	slices.SortFunc(s.bound, comparePods)
	for _, p := range s.bound {
		s.byNode[p.Spec.NodeName] = append(s.byNode[p.Spec.NodeName], p)
	}
	if c.Namespaces != nil {
		s.nsLabels = make(map[string]labels.Set, len(c.Namespaces))
		for _, ns := range c.Namespaces {
			if ns != nil {
				s.nsLabels[ns.Name] = labels.Set(ns.Labels)
			}
		}
	}
	return s
}

// isBoundAndLive reports whether the pod is bound to a node and has not
// terminated. A pod being deleted is still there until it is gone.
func isBoundAndLive(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && !isTerminated(p)
}

// isTerminated reports whether the pod has finished, successfully or not.
func isTerminated(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func comparePods(a, b *corev1.Pod) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// namespaceLabels returns the labels of the namespace, with the
// kubernetes.io/metadata.name label the apiserver sets on every namespace.
func (s *snapshot) namespaceLabels(ns string) labels.Set {
	set := labels.Set{corev1.LabelMetadataName: ns}
	for k, v := range s.nsLabels[ns] {
		set[k] = v
	}
	return set
}

// domainPods returns the bound pods on the nodes whose label key has the value.
func (s *snapshot) domainPods(key, value string) []*corev1.Pod {
	byValue, ok := s.domains[key]
	if !ok {
		byValue = map[string][]*corev1.Pod{}
		for _, name := range s.nodeNames {
			if v, ok := s.nodes[name].Labels[key]; ok {
				byValue[v] = append(byValue[v], s.byNode[name]...)
			}
		}
		s.domains[key] = byValue
	}
	return byValue[value]
}

// podName is the pod's namespace/name.
func podName(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// podViolation is a violation of the pod on its node.
func podViolation(p *corev1.Pod, c Constraint, msg string) Violation {
	return Violation{Kind: KindPod, Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Constraint: c, Message: msg}
}
