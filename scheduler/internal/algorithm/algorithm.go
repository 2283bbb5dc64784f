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

// Package algorithm is the scheduling algorithm without the loop around
// it: a pod's search for a node (PreFilter, Filter, the extenders' filters,
// PreScore, Score and the choice of a host), and a group's cycle (each
// placement tried member by member, the best placement kept, a hierarchy
// of PodGroups under CompositePodGroups evaluated down to its leaves).
//
// Nothing here pops a queue, writes to the apiserver, binds, or decides
// what becomes of a pod that does not fit: the scheduling loop does, and
// so do the shadow profiles and berth explain, which run the same code on
// their own snapshots. Every input is explicit in an Env.
package algorithm

import (
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// ErrNoNodes is the failure of a search that finds no node in the cluster at all.
var ErrNoNodes = errors.New("no nodes available to schedule pods")

// Env is what a search or a group's cycle runs with.
type Env struct {
	// Framework is the profile's compiled framework.
	Framework *runtime.Framework
	// Snapshot is the cluster searched; the caller brings it up to date.
	// A group's cycle changes it while it runs (members held on their
	// nodes) and leaves it as it found it.
	Snapshot *schedcache.Snapshot
	// Rand returns a number in [0, n); it breaks ties between placements,
	// and between nodes when extenders scored.
	Rand func(n int) int
	// Next is where the next search over every node starts; each such
	// search moves it on. With Next nil every search filters every node
	// and a pod's nominated node gets no shortcut (berth explain).
	Next *int
	// Record keeps, in each Result, the chosen node's scores and its best
	// runners-up, and the ranking of a group's placements.
	Record bool
	// SkipReserve places a group's members on the snapshot without running
	// Reserve, for an evaluation that must leave the plugins' state alone.
	SkipReserve bool
	// Prefer, when set, names the node a pod's search takes among the
	// nodes tied for the best score (and filters it when the search ended
	// before it), and the placement a group's cycle takes among those tied
	// for the best score; "" prefers nothing. Shadow profiles prefer the
	// live profile's choices, so that a tie is not counted as a
	// disagreement.
	Prefer Preference
	// Batch, when set, is the profile's opportunistic batching, and Cycle
	// the scheduling cycle searched in: a search is offered the best node
	// the previous search of a pod with the same signature left, and
	// leaves its own for the next. Only the scheduling loop sets it.
	Batch *runtime.Batch
	Cycle int64
	// OnSearch, when set, is told each pod search's outcome before the
	// host is chosen, with the placement searched (nil for a pod's own
	// cycle); the Search is valid only during the call.
	OnSearch func(pod *v1.Pod, p *framework.Placement, s Search)
}

// Preference names the choices an evaluation takes among equals.
type Preference interface {
	// Node is the node preferred for pod within placement p (nil for a
	// pod's own cycle).
	Node(pod *v1.Pod, p *framework.Placement) string
	// Placement is the placement preferred for the group at node n.
	Placement(n *framework.GroupNode) string
}

// Search is one pod's search as Env.OnSearch is told it.
type Search struct {
	// Feasible are the nodes that passed every filter.
	Feasible []*framework.NodeInfo
	// Diagnosis says why the other nodes searched did not.
	Diagnosis framework.Diagnosis
	// NumNodes counts the candidate nodes the search could have filtered.
	NumNodes int
	// Scores are the feasible nodes' scores, when there are two or more.
	Scores []framework.NodePluginScores
}

// Result is where a pod's search placed it.
type Result struct {
	// Host is the node chosen.
	Host string
	// EvaluatedNodes counts the nodes filtered; FeasibleNodes those that passed.
	EvaluatedNodes, FeasibleNodes int
	// Top are the scores of Host and its best runners-up, kept with
	// Env.Record when more than one node was feasible.
	Top []framework.NodePluginScores
	// Group is how the group's cycle that placed the pod chose its
	// placement, kept with Env.Record; nil for a pod's own cycle.
	Group *decisions.Group
}

// AssumedCopy returns the pod as assumed on host. The copy is shallow: it
// shares the informer's maps and slices, which nobody writes (the cache, the
// plugins and the binder only read a pod), so only spec.nodeName differs and
// no deep copy of every container is made per pod scheduled.
func AssumedCopy(pod *v1.Pod, host string) *v1.Pod {
	assumed := *pod
	assumed.Spec.NodeName = host
	return &assumed
}

// StatusError turns a rejection at Reserve, Permit or binding into a FitError
// for that node, so the pod is treated as unschedulable, and anything else
// into an error.
func StatusError(st *framework.Status, host string, numNodes int) error {
	if !st.IsRejected() {
		return st.AsError()
	}
	statuses := framework.NewNodeToStatus()
	statuses.Set(host, st)
	d := framework.Diagnosis{NodeToStatus: statuses}
	d.AddPluginStatus(st)
	return &framework.FitError{NumAllNodes: numNodes, Diagnosis: d}
}

// Isolate marks where a simulation on snap starts, and returns what ends
// it: the snapshot's placement goes back to what it is now and, when the
// snapshot had no simulated change at the start, every change since is
// undone. Nested simulations (a group's cycle run again by a
// PodGroupPostFilter plugin that took victims off their nodes) thus keep
// the changes of the one around them.
func Isolate(snap *schedcache.Snapshot) (end func()) {
	placement, changed := snap.Placement(), snap.Simulating()
	return func() {
		if !changed {
			snap.Restore()
		}
		snap.SetPlacement(placement)
	}
}
