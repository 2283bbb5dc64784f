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

package extender

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// MaxPriority is the highest score an extender may give a node; scores are
// scaled from [0, MaxPriority] to the framework's [0, MaxNodeScore].
const MaxPriority int64 = 10

// Args is the body of filter and prioritize calls. Like all wire types here it
// has no JSON tags, so its fields travel under their Go names, as upstream's
// k8s.io/kube-scheduler/extender/v1 types do; it matches ExtenderArgs.
type Args struct {
	// Pod is the pod being scheduled.
	Pod *v1.Pod
	// Nodes are the candidate nodes, sent when the extender does not cache nodes.
	Nodes *v1.NodeList
	// NodeNames are the candidate nodes' names, sent when the extender caches nodes.
	NodeNames *[]string
}

// FilterResult is the answer to a filter call, as upstream's ExtenderFilterResult.
type FilterResult struct {
	// Nodes are the nodes that passed, for extenders that do not cache nodes.
	Nodes *v1.NodeList
	// NodeNames are the names of the nodes that passed, for extenders that cache nodes.
	NodeNames *[]string
	// FailedNodes maps rejected nodes to why; preemption may still help there.
	FailedNodes map[string]string
	// FailedAndUnresolvableNodes maps rejected nodes to why; preemption cannot help there.
	FailedAndUnresolvableNodes map[string]string
	// Error is a failure of the extender itself.
	Error string
}

// HostPriority is one node's score from a prioritize call.
type HostPriority struct {
	// Host is the node's name.
	Host string
	// Score is in [0, MaxPriority].
	Score int64
}

// HostPriorityList is the answer to a prioritize call.
type HostPriorityList []HostPriority

// BindingArgs is the body of a bind call, as upstream's ExtenderBindingArgs.
type BindingArgs struct {
	// PodName is the pod's name.
	PodName string
	// PodNamespace is the pod's namespace.
	PodNamespace string
	// PodUID is the pod's UID.
	PodUID types.UID
	// Node is the node to bind the pod to.
	Node string
}

// BindingResult is the answer to a bind call.
type BindingResult struct {
	// Error is why the bind failed; empty on success.
	Error string
}

// PreemptionArgs is the body of a preempt call, as upstream's
// ExtenderPreemptionArgs: the pod and, per candidate node, the victims
// preemption chose there. Exactly one of the maps is set: full pods for an
// extender that does not cache nodes, pod UIDs for one that does.
type PreemptionArgs struct {
	// Pod is the pod that preempts.
	Pod *v1.Pod
	// NodeNameToVictims maps each candidate node to its victims, sent when the extender does not cache nodes.
	NodeNameToVictims map[string]*Victims
	// NodeNameToMetaVictims maps each candidate node to its victims' UIDs, sent when the extender caches nodes.
	NodeNameToMetaVictims map[string]*MetaVictims
}

// Victims are the pods to evict on one node, as upstream's Victims.
type Victims struct {
	// Pods are the victims, the most important first.
	Pods []*v1.Pod
	// NumPDBViolations counts the victims whose eviction a PodDisruptionBudget does not allow.
	NumPDBViolations int64
}

// MetaPod names a pod by its UID, as upstream's MetaPod.
type MetaPod struct {
	// UID is the pod's UID.
	UID string
}

// MetaVictims are the victims on one node named by UID, as upstream's MetaVictims.
type MetaVictims struct {
	// Pods are the victims' UIDs.
	Pods []*MetaPod
	// NumPDBViolations counts the victims whose eviction a PodDisruptionBudget does not allow.
	NumPDBViolations int64
}

// PreemptionResult is the answer to a preempt call, as upstream's
// ExtenderPreemptionResult: the nodes the extender keeps as candidates, each
// with the victims it accepts there, named by UID whatever the request held.
type PreemptionResult struct {
	// NodeNameToMetaVictims maps each node the extender keeps to its victims.
	NodeNameToMetaVictims map[string]*MetaVictims
}
