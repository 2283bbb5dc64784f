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

package algorithm

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// Evaluation is what one profile's scheduling cycle finds for a pod on a
// snapshot when every node is filtered: each node's Filter verdict and, for
// the feasible nodes, the scores. berth explain prints it.
type Evaluation struct {
	// Framework is the profile evaluated.
	Framework *runtime.Framework
	// Nodes lists the snapshot's node names, in the snapshot's order.
	Nodes []string
	// Feasible lists the nodes that passed PreFilter, Filter and the
	// extenders' filters, in the snapshot's order.
	Feasible []string
	// Diagnosis holds the status of every other node (a rejected node's
	// names the plugin) and the PreFilter message if PreFilter rejected the pod.
	Diagnosis framework.Diagnosis
	// Scores are the feasible nodes' weighted scores per plugin and their
	// totals, in the order of Feasible.
	Scores []framework.NodePluginScores
	// NominatedNodePasses reports that the pod has a nominated node that
	// passes Filter: the scheduler then takes that node without scoring.
	NominatedNodePasses bool
}

// Unschedulable returns the scheduler's message for a pod no node fits
// ("0/N nodes are available: …"), or "" when some node fits.
func (e *Evaluation) Unschedulable(pod *v1.Pod) string {
	if len(e.Feasible) > 0 {
		return ""
	}
	return (&framework.FitError{Pod: pod, NumAllNodes: len(e.Nodes), Diagnosis: e.Diagnosis}).Error()
}

// Evaluate runs one profile over every node of the snapshot, with the
// cycle's search (no nominated-node shortcut) and its scoring, for berth
// explain; nothing is assumed, reserved or bound.
func Evaluate(ctx context.Context, fwk *runtime.Framework, snap *schedcache.Snapshot, pod *v1.Pod) (*Evaluation, error) {
	state := framework.NewCycleState()
	feasible, diagnosis, err := FindFeasibleNodes(ctx, fwk, snap, state, pod, nil)
	if err != nil {
		return nil, err
	}
	e := &Evaluation{Framework: fwk, Diagnosis: diagnosis, Feasible: make([]string, len(feasible))}
	for i, ni := range feasible {
		e.Feasible[i] = ni.Name()
		if ni.Name() == pod.Status.NominatedNodeName {
			e.NominatedNodePasses = true
		}
	}
	if len(feasible) == 0 {
		return e, nil
	}
	// The scheduler does not score a single feasible node; its scores are
	// computed here all the same, for the reader.
	if e.Scores, err = PrioritizeNodes(ctx, fwk, state, pod, feasible); err != nil {
		return nil, err
	}
	return e, nil
}

// GroupEvaluation is a dry run of the cycle of the scheduling.k8s.io
// PodGroup a pod belongs to, placement by placement, for `berth explain`.
type GroupEvaluation struct {
	// Group is the PodGroup's namespace/name.
	Group string
	// Gang is true for a gang policy, false for a basic group.
	Gang bool
	// MinCount is how many members must be placed together (1 for basic).
	MinCount int
	// TopologyKey is the node label the group is kept in one value of, if any.
	TopologyKey string
	// Members counts the group's pods; Placed those bound or assumed.
	Members, Placed int
	// Waiting, when set, is why the members are held out of the queue
	// before any cycle: the group does not exist, or too few pods do.
	Waiting string
	// Root, when set, names (namespace/name) the CompositePodGroup at the
	// root of the hierarchy the PodGroup belongs to: the scheduling loop
	// places the whole hierarchy in one cycle, while the evaluation tries
	// this PodGroup alone.
	Root string
	// Placements are the placements the cycle tries, in its order.
	Placements []PlacementEvaluation
	// Status is the cycle's reason when the group fits nowhere; "" when it fits.
	Status string
}

// PlacementEvaluation is one placement's try in a GroupEvaluation.
type PlacementEvaluation struct {
	// Name names the placement: the topology value, or "cluster".
	Name string
	// Nodes counts the placement's nodes.
	Nodes int
	// Placed counts the pending members the try placed.
	Placed int
	// Status is why the group does not fit there; "" when it does.
	Status string
}

// EvaluatePlacements turns a group's tries (TryEachPlacement) into the
// placements berth explain prints and the group's status: "" when it fits
// somewhere, else why not, in the cycle's words.
func EvaluatePlacements(tries []*PlacementResult, status Status) ([]PlacementEvaluation, string) {
	var out []PlacementEvaluation
	fits := false
	for _, r := range tries {
		pe := PlacementEvaluation{Name: r.Placement.Name, Nodes: len(r.Placement.Nodes), Placed: len(r.Assignments().Assignments)}
		if r.Status.Success() {
			fits = true
		} else {
			pe.Status = r.Status.Message()
		}
		out = append(out, pe)
	}
	switch {
	case !status.Success():
		return out, status.Message()
	case !fits && len(tries) > 0:
		return out, NoPlacementFits(len(tries), tries[0].Status).Message()
	}
	return out, ""
}
