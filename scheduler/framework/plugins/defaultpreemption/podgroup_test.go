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

package defaultpreemption

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	fwkruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// gangSimulation is a PodGroupSimulation over the test's snapshot: its
// cycle places the members one after another, each on the feasible node
// with the fewest pods (the first of those in list order), as a least
// allocated scoring of equal pods would.
type gangSimulation struct {
	fwk      *fwkruntime.Framework
	snapshot *cache.Snapshot
	members  []*v1.Pod
	runs     int
}

func (g *gangSimulation) RemovePod(pod *v1.Pod, node string) error {
	return g.snapshot.RemovePod(pod, node)
}

func (g *gangSimulation) AddPod(pi *framework.PodInfo, node string) error {
	return g.snapshot.AddPod(pi, node)
}

func (g *gangSimulation) TriedMembers() map[types.UID]*framework.CycleState { return nil }

func (g *gangSimulation) ScheduleGroup(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
	g.runs++
	out := &framework.PodGroupAssignments{}
	var placed []*v1.Pod
	defer func() {
		for _, p := range placed {
			_ = g.snapshot.RemovePod(p, p.Spec.NodeName)
		}
	}()
	for _, m := range g.members {
		state := framework.NewCycleState()
		if _, s, _ := g.fwk.RunPreFilterPlugins(ctx, state, m); !s.IsSuccess() {
			return out, s
		}
		nodes, _ := g.snapshot.List()
		feasible, _, _, err := g.fwk.FindFeasibleNodes(ctx, state, m, nodes, 0)
		if err != nil {
			return out, framework.AsStatus(err)
		}
		if len(feasible) == 0 {
			return out, framework.NewStatus(framework.Unschedulable, fmt.Sprintf("member %s fits nowhere", m.Name))
		}
		best := feasible[0]
		for _, ni := range feasible[1:] {
			if len(ni.Pods) < len(best.Pods) || (len(ni.Pods) == len(best.Pods) && ni.SnapshotIndex() < best.SnapshotIndex()) {
				best = ni
			}
		}
		p := m.DeepCopy()
		p.Spec.NodeName = best.Node().Name
		pi, _ := framework.NewPodInfo(p)
		if err := g.snapshot.AddPod(pi, p.Spec.NodeName); err != nil {
			return out, framework.AsStatus(err)
		}
		placed = append(placed, p)
		out.Assignments = append(out.Assignments, framework.ProposedAssignment{Pod: m, NodeName: p.Spec.NodeName, State: state})
	}
	return out, nil
}

func TestPodGroupPostFilter(t *testing.T) {
	cpu := func(name, node string, priority int32) *st.PodBuilder {
		return st.Pod(name).UID(name).Req("cpu", "2").Priority(priority).NodeName(node)
	}
	crew := func(priority int32) *schedulingv1beta1.PodGroup {
		return st.WorkloadGroup("crew").UID("crew-uid").Gang(2).Priority(priority).Obj()
	}
	member := func(name string) *st.PodBuilder {
		return st.Pod(name).UID(name).Req("cpu", "2").SchedulingGroup("crew")
	}
	twoNodes := []*v1.Node{makeNode("node-1", "4"), makeNode("node-2", "4")}
	fourLow := []*v1.Pod{cpu("low-1", "node-1", 100).Obj(), cpu("low-2", "node-1", 100).Obj(), cpu("low-3", "node-2", 100).Obj(), cpu("low-4", "node-2", 100).Obj()}

	tests := []struct {
		name    string
		nodes   []*v1.Node
		running []*v1.Pod
		groups  []*schedulingv1beta1.PodGroup // besides crew
		pdbs    []*policy.PodDisruptionBudget
		group   *schedulingv1beta1.PodGroup
		members []*v1.Pod

		wantCode      framework.Code
		wantMsg       string
		wantDeleted   []string
		wantNominated map[string]string
		wantSimulated bool
	}{
		{
			name: "no pod of lower priority: no victims", nodes: twoNodes, group: crew(0),
			running:  fourLow[:1],
			members:  []*v1.Pod{member("m-1").Obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "pod group preemption: No preemption victims found for incoming preemptor",
		},
		{
			name: "a member that may not preempt", nodes: twoNodes, group: crew(1000), running: fourLow,
			members:  []*v1.Pod{member("m-1").PreemptionPolicy(v1.PreemptNever).Obj()},
			wantCode: framework.Unschedulable, wantMsg: "pod group preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "a running member of a group counts at its group's priority", nodes: twoNodes, group: crew(1000),
			running:  []*v1.Pod{cpu("r", "node-1", 5).SchedulingGroup("big").Obj()},
			groups:   []*schedulingv1beta1.PodGroup{st.WorkloadGroup("big").Priority(2000).Obj()},
			members:  []*v1.Pod{member("m-1").Obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "pod group preemption: No preemption victims found for incoming preemptor",
		},
		{
			name: "two full nodes: one victim on each, the later one", nodes: twoNodes, group: crew(1000), running: fourLow,
			members:       []*v1.Pod{member("high-1").Obj(), member("high-2").Obj()},
			wantCode:      framework.Success,
			wantMsg:       "pod group preemption: found a placement for podgroup, preempting 2 victims",
			wantDeleted:   []string{"low-2", "low-4"},
			wantNominated: map[string]string{"high-1": "node-1", "high-2": "node-2"},
			wantSimulated: true,
		},
		{
			name: "a group in disruption mode All goes whole, even from a node the members do not use", nodes: twoNodes, group: crew(1000),
			running: []*v1.Pod{
				cpu("old-1", "node-1", 100).SchedulingGroup("old").Obj(), cpu("old-2", "node-2", 100).SchedulingGroup("old").Obj(),
				cpu("lone-1", "node-1", 100).Obj(), cpu("lone-2", "node-2", 100).Obj(),
			},
			groups:        []*schedulingv1beta1.PodGroup{st.WorkloadGroup("old").Priority(100).DisruptAll().Obj()},
			members:       []*v1.Pod{member("big").Req("cpu", "4").Obj()},
			wantCode:      framework.Success,
			wantMsg:       "pod group preemption: found a placement for podgroup, preempting 3 victims",
			wantDeleted:   []string{"lone-1", "old-1", "old-2"},
			wantNominated: map[string]string{"big": "node-1"},
			wantSimulated: true,
		},
		{
			name: "a victim a budget protects is given back first", nodes: []*v1.Node{makeNode("node-1", "4")}, group: crew(1000),
			running:       []*v1.Pod{cpu("free", "node-1", 100).Obj(), cpu("kept", "node-1", 100).Label("app", "kept").Obj()},
			pdbs:          []*policy.PodDisruptionBudget{makePDB("kept", 0)},
			members:       []*v1.Pod{member("m-1").Obj()},
			wantCode:      framework.Success,
			wantMsg:       "pod group preemption: found a placement for podgroup, preempting 1 victims",
			wantDeleted:   []string{"free"},
			wantNominated: map[string]string{"m-1": "node-1"},
			wantSimulated: true,
		},
		{
			name: "the group does not fit even without every victim", nodes: []*v1.Node{makeNode("node-1", "2")}, group: crew(1000),
			running:       []*v1.Pod{cpu("low", "node-1", 100).Obj()},
			members:       []*v1.Pod{member("m-1").Req("cpu", "4").Obj()},
			wantCode:      framework.Unschedulable,
			wantMsg:       "pod group preemption: member m-1 fits nowhere",
			wantSimulated: true,
		},
		{
			name: "members nominated where their victims are still going: no new victims", nodes: twoNodes, group: crew(1000),
			running: []*v1.Pod{
				cpu("going", "node-1", 100).Terminating(t0).Condition(preemptedByScheduler).Obj(), cpu("low-3", "node-2", 100).Obj(),
			},
			members:       []*v1.Pod{member("high-1").Nominated("node-1").Obj(), member("high-2").Obj()},
			wantCode:      framework.Success,
			wantMsg:       "pod group preemption: ongoing preemption on nominated nodes",
			wantNominated: map[string]string{"high-1": "node-1", "high-2": ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups := append([]*schedulingv1beta1.PodGroup{tc.group}, tc.groups...)
			e := newEnv(t, cluster{nodes: tc.nodes, pods: append(slices.Clone(tc.running), tc.members...), pdbs: tc.pdbs, groups: groups, sync: true})
			before := e.snapshotState(t)
			sim := &gangSimulation{fwk: e.fwk, snapshot: e.snapshot, members: tc.members}
			result, s := e.plugin.PodGroupPostFilter(context.Background(), framework.PodGroupNode(tc.group), tc.members, sim)
			e.snapshot.Restore()
			if s.Code() != tc.wantCode || s.Message() != tc.wantMsg {
				t.Fatalf("PodGroupPostFilter = %v %q, want %v %q", s.Code(), s.Message(), tc.wantCode, tc.wantMsg)
			}
			if got := e.deleted(); !slices.Equal(got, tc.wantDeleted) {
				t.Errorf("deleted %v, want %v", got, tc.wantDeleted)
			}
			if got := nominations(result); !mapsEqual(got, tc.wantNominated) {
				t.Errorf("nominated %v, want %v", got, tc.wantNominated)
			}
			if (sim.runs > 0) != tc.wantSimulated {
				t.Errorf("simulated the group's cycle %d times, want it run: %v", sim.runs, tc.wantSimulated)
			}
			if after := e.snapshotState(t); after != before {
				t.Errorf("the snapshot changed under the plugin:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestPodGroupPostFilterMarksVictims checks what a group's victims are told,
// in upstream's words.
func TestPodGroupPostFilterMarksVictims(t *testing.T) {
	group := st.WorkloadGroup("crew").UID("crew-uid").Gang(1).Priority(1000).Obj()
	member := st.Pod("m").UID("m").Req("cpu", "2").SchedulingGroup("crew").SchedulerName(v1.DefaultSchedulerName).Obj()
	e := newEnv(t, cluster{
		nodes:  []*v1.Node{makeNode("node-1", "2")},
		pods:   []*v1.Pod{st.Pod("low").UID("low").Req("cpu", "2").Priority(1).NodeName("node-1").Obj(), member},
		groups: []*schedulingv1beta1.PodGroup{group}, sync: true,
	})
	sim := &gangSimulation{fwk: e.fwk, snapshot: e.snapshot, members: []*v1.Pod{member}}
	if _, s := e.plugin.PodGroupPostFilter(context.Background(), framework.PodGroupNode(group), []*v1.Pod{member}, sim); !s.IsSuccess() {
		t.Fatalf("PodGroupPostFilter: %v", s)
	}
	var patch string
	for _, a := range e.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && p.GetName() == "low" && p.GetSubresource() == "status" {
			patch = string(p.GetPatch())
		}
	}
	if want := `"message":"default-scheduler: preempting to accommodate a higher priority podgroup"`; !strings.Contains(patch, want) {
		t.Errorf("the victim's status patch %s does not carry %s", patch, want)
	}
}

// snapshotState summarizes every node's pods and requested CPU.
func (e *env) snapshotState(t *testing.T) string {
	t.Helper()
	nodes, _ := e.snapshot.List()
	var b strings.Builder
	for _, ni := range nodes {
		names := make([]string, 0, len(ni.Pods))
		for _, pi := range ni.Pods {
			names = append(names, pi.Pod.Name)
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "%s%v cpu=%d; ", ni.Node().Name, names, ni.Requested.MilliCPU)
	}
	return b.String()
}

// nominations lists a result's nominated nodes by pod name.
func nominations(r *framework.PodGroupPostFilterResult) map[string]string {
	if r == nil {
		return nil
	}
	out := map[string]string{}
	for key, n := range r.NominatingInfos {
		if n.Mode() != framework.ModeOverride {
			continue
		}
		out[key.Name] = n.NominatedNodeName
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
