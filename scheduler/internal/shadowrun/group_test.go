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

package shadowrun

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/shadow"
)

const testRack = "test.berth.io/rack"

// groupLoop is a loop whose PodGroups the test lists, with a shadow of the
// live profile, whose group cycles are driven by the test.
type groupLoop struct {
	*loop
	workloads *st.Workloads
}

func newGroupLoop(t *testing.T, live, candidate *v1alpha1.SchedulingProfileSpec, nodes []*v1.Node, bound ...*v1.Pod) *groupLoop {
	t.Helper()
	workloads := &st.Workloads{Pods: bound, Assumed: map[string]string{}}
	g := &groupLoop{loop: newLoop(t, 1, live, workloads), workloads: workloads}
	g.install(candidate)
	for _, n := range nodes {
		g.cache.AddNode(logr.Discard(), n)
	}
	for _, p := range bound {
		if err := g.cache.AddPod(logr.Discard(), p); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// cycle runs the cycle of a PodGroup alone as the loop does, up to the
// choice of its placement and the members assumed (no Reserve, Permit or
// binding), recording its decision, and returns the placement's try, the
// status, and the job handed to the worker, if any.
func (g *groupLoop) cycle(pg *schedulingv1beta1.PodGroup, pods ...*v1.Pod) (*algorithm.PlacementResult, algorithm.Status, *job) {
	g.t.Helper()
	root := framework.PodGroupNode(pg)
	res, j := g.tree(root, []*schedulingv1beta1.PodGroup{pg}, pods)
	return res[root.Key].Try, *res[root.Key].Status, j
}

// tree runs the cycle of the group under root, whose PodGroups are pgs
// and members pods, as cycle does, and returns every node's outcome and
// the job handed to the worker, if any.
func (g *groupLoop) tree(root *framework.GroupNode, pgs []*schedulingv1beta1.PodGroup, pods []*v1.Pod) (algorithm.Outcomes, *job) {
	g.t.Helper()
	g.workloads.Groups = append(g.workloads.Groups, pgs...)
	g.workloads.Pods = append(g.workloads.Pods, pods...)
	members := map[framework.GroupKey][]*framework.QueuedPodInfo{}
	for _, leaf := range root.Leaves() {
		for _, p := range pods {
			if ref, ok := framework.GroupRefOf(p); ok && ref == leaf.Ref() {
				pi, err := framework.NewPodInfo(p)
				if err != nil {
					g.t.Fatal(err)
				}
				members[leaf.Key] = append(members[leaf.Key], &framework.QueuedPodInfo{PodInfo: pi})
			}
		}
	}
	g.r.BeginGroup(pods[0], g.live, g.next, root, members, map[framework.GroupKey]int{})
	g.updateSnapshot()
	c := &algorithm.Cycle{
		Env:     algorithm.Env{Framework: g.live, Snapshot: g.snap, Rand: g.rng.IntN, Next: &g.next, Record: true},
		Root:    root,
		Members: members,
	}
	res := c.Run(g.ctx)
	g.r.EndGroup(res)
	for _, leaf := range root.Leaves() {
		o := res[leaf.Key]
		if !o.Status.Success() || o.Try == nil {
			continue
		}
		// The live members are assumed, as the loop does, before the
		// worker runs: the shadows must see the group as it was before.
		for _, m := range o.Try.Members {
			if m.Err == nil {
				if err := g.cache.AssumePod(logr.Discard(), algorithm.AssumedCopy(m.QPI.Pod, m.Result.Host)); err != nil {
					g.t.Fatal(err)
				}
				g.workloads.Assumed[m.QPI.Pod.Name] = m.Result.Host
			}
		}
	}
	select {
	case j := <-g.r.jobs:
		return res, j
	default:
		return res, nil
	}
}

// members returns n gang members of group g asking for cpu each.
func members(g string, n int, cpu string) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range n {
		out[i] = st.Pod(fmt.Sprintf("%s-%d", g, i)).UID(fmt.Sprintf("%s-%d", g, i)).SchedulerName(v1.DefaultSchedulerName).SchedulingGroup(g).Req("cpu", cpu).Obj()
	}
	return out
}

func rackNode(name, rack, cpu string) *st.NodeBuilder {
	return st.Node(name).Label(testRack, rack).Alloc("cpu", cpu, "memory", "16Gi", "pods", "110")
}

func TestGroupShadowComparesTheGroupCycle(t *testing.T) {
	// Rack a holds four 1-CPU members, rack b two.
	racks := func(taintA bool) []*v1.Node {
		a1, a2 := rackNode("a1", "a", "2"), rackNode("a2", "a", "2")
		if taintA {
			a1.Taint("dedicated", "x", v1.TaintEffectNoSchedule)
			a2.Taint("dedicated", "x", v1.TaintEffectNoSchedule)
		}
		return []*v1.Node{a1.Obj(), a2.Obj(), rackNode("b1", "b", "2").Obj()}
	}
	noTaintFilter := st.Profile("p").Disable("filter", "TaintToleration").Disable("score", "TaintToleration").Obj().Spec
	tests := []struct {
		name            string
		live, candidate v1alpha1.SchedulingProfileSpec
		nodes           []*v1.Node
		bound           []*v1.Pod
		group           *schedulingv1beta1.PodGroup
		pods            []*v1.Pod
		livePlaced      bool
		want            shadow.Decision
		wantPod         string
	}{{
		name:       "an identical shadow agrees on the rack and every member's node",
		nodes:      racks(false),
		group:      st.WorkloadGroup("g").Gang(3).Topology(testRack).Obj(),
		pods:       members("g", 3, "1"),
		livePlaced: true,
		wantPod:    "default/g-0",
		want:       shadow.Decision{Outcome: shadow.OutcomeAgreed, PodGroup: "default/g", LivePlacement: "a", ShadowPlacement: "a"},
	}, {
		name:       "without TopologyPlacementGenerator the shadow spreads the group over every node",
		candidate:  st.Profile("p").Disable("placementGenerate", "TopologyPlacementGenerator").Obj().Spec,
		nodes:      racks(false),
		group:      st.WorkloadGroup("g").Gang(3).Topology(testRack).Obj(),
		pods:       members("g", 3, "1"),
		livePlaced: true,
		wantPod:    "default/g-0",
		want: shadow.Decision{Outcome: shadow.OutcomeDisagreed, PodGroup: "default/g", LivePlacement: "a",
			Deciding: []string{"TopologyPlacementGenerator"}},
	}, {
		name:       "a filter that keeps the shadow out of the live rack moves the group to the other",
		live:       noTaintFilter,
		nodes:      racks(true),
		group:      st.WorkloadGroup("g").Gang(2).Topology(testRack).Obj(),
		pods:       members("g", 4, "1"),
		livePlaced: true,
		wantPod:    "default/g-0",
		want: shadow.Decision{Outcome: shadow.OutcomeDisagreed, PodGroup: "default/g", LivePlacement: "a", ShadowPlacement: "b",
			Deciding: []string{"TaintToleration"}},
	}, {
		name:      "the live profile places no member, the shadow the whole group",
		candidate: noTaintFilter,
		nodes:     racks(true),
		group:     st.WorkloadGroup("g").Gang(3).Topology(testRack).Obj(),
		pods:      members("g", 3, "1"),
		wantPod:   "default/g-0",
		want: shadow.Decision{Outcome: shadow.OutcomeLiveUnschedulable, PodGroup: "default/g", ShadowPlacement: "a",
			Deciding: []string{"TaintToleration"}},
	}, {
		name:    "neither fits a gang of three in room for two",
		nodes:   []*v1.Node{rackNode("a1", "a", "2").Obj()},
		group:   st.WorkloadGroup("g").Gang(3).Obj(),
		pods:    members("g", 3, "1"),
		wantPod: "default/g-0",
		want:    shadow.Decision{Outcome: shadow.OutcomeAgreed, PodGroup: "default/g"},
	}, {
		name:       "MostAllocated puts a member on another node of the same placement",
		live:       st.Profile("p").Disable("score", "NodeResourcesBalancedAllocation").Obj().Spec,
		candidate:  st.Profile("p").Disable("score", "NodeResourcesBalancedAllocation").PluginArgs("NodeResourcesFit", mostAllocated).Obj().Spec,
		nodes:      []*v1.Node{st.Node("n1").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj(), st.Node("n2").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj()},
		bound:      []*v1.Pod{st.Pod("load").Req("cpu", "2").NodeName("n1").Obj()},
		group:      st.WorkloadGroup("g").Gang(2).Obj(),
		pods:       members("g", 2, "1"),
		livePlaced: true,
		wantPod:    "default/g-0",
		want: shadow.Decision{Outcome: shadow.OutcomeDisagreed, PodGroup: "default/g",
			LiveNode: "n2", ShadowNode: "n1", Deciding: []string{"NodeResourcesFit"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			candidate := tc.candidate
			candidate.ShadowOf = v1.DefaultSchedulerName
			g := newGroupLoop(t, &tc.live, &candidate, tc.nodes, tc.bound...)
			best, status, j := g.cycle(tc.group, tc.pods...)
			if status.Success() != tc.livePlaced {
				t.Fatalf("live cycle: success = %v (%s), want %v", status.Success(), status.Message(), tc.livePlaced)
			}
			if j == nil || j.group == nil {
				t.Fatal("no group job for the shadow although the worker was free")
			}
			if tc.livePlaced && best.Placement.Name != tc.want.LivePlacement {
				t.Fatalf("live placement = %q, want %q", best.Placement.Name, tc.want.LivePlacement)
			}
			g.r.work(g.ctx, j)
			if g.r.Snapshot().Simulating() {
				t.Error("the dry run left members on the shadows' snapshot")
			}
			stats := g.stats()
			if got := stats.Evaluated(); got != 1 {
				t.Fatalf("evaluated = %d, want one per group cycle: %+v", got, stats.Outcomes)
			}
			if got := stats.Outcomes[tc.want.Outcome]; got != 1 {
				t.Fatalf("outcomes = %v, want one %s", stats.Outcomes, tc.want.Outcome)
			}
			if tc.want.Outcome == shadow.OutcomeAgreed {
				return
			}
			if len(stats.Recent) != 1 {
				t.Fatalf("recent disagreements = %+v, want one", stats.Recent)
			}
			got := stats.Recent[0]
			if got.Pod != tc.wantPod {
				t.Errorf("pod = %q, want %q", got.Pod, tc.wantPod)
			}
			if diff := cmp.Diff(tc.want, got.Decision); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGroupShadowComparesAHierarchy checks the dry run of a
// CompositePodGroup's cycle: every PodGroup of the hierarchy is compared,
// and the first one on which the profiles disagree is recorded.
func TestGroupShadowComparesAHierarchy(t *testing.T) {
	nodes := []*v1.Node{rackNode("a1", "a", "2").Obj(), rackNode("a2", "a", "2").Obj(), rackNode("b1", "b", "2").Obj(), rackNode("b2", "b", "2").Obj()}
	tests := []struct {
		name      string
		candidate v1alpha1.SchedulingProfileSpec
		want      shadow.Decision
	}{{
		name: "an identical shadow agrees on every PodGroup",
		want: shadow.Decision{Outcome: shadow.OutcomeAgreed},
	}, {
		name:      "without TopologyPlacementGenerator the shadow spreads the first PodGroup",
		candidate: st.Profile("p").Disable("placementGenerate", "TopologyPlacementGenerator").Obj().Spec,
		want:      shadow.Decision{Outcome: shadow.OutcomeDisagreed, PodGroup: "default/x", Deciding: []string{"TopologyPlacementGenerator"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			candidate := tc.candidate
			candidate.ShadowOf = v1.DefaultSchedulerName
			g := newGroupLoop(t, &v1alpha1.SchedulingProfileSpec{}, &candidate, nodes)
			x := st.WorkloadGroup("x").Gang(2).Topology(testRack).Parent("job").Obj()
			y := st.WorkloadGroup("y").Gang(2).Topology(testRack).Parent("job").Obj()
			root := framework.CompositeNode(st.CompositeGroup("job").Obj(), []*framework.GroupNode{framework.PodGroupNode(x), framework.PodGroupNode(y)})
			res, j := g.tree(root, []*schedulingv1beta1.PodGroup{x, y}, append(members("x", 2, "1"), members("y", 2, "1")...))
			if !res[root.Key].Status.Success() {
				t.Fatalf("live cycle: %s, want the hierarchy placed", res[root.Key].Status.Message())
			}
			if j == nil || j.group == nil {
				t.Fatal("no group job for the shadow although the worker was free")
			}
			g.r.work(g.ctx, j)
			if g.r.Snapshot().Simulating() {
				t.Error("the dry run left members on the shadows' snapshot")
			}
			stats := g.stats()
			if got := stats.Evaluated(); got != 1 {
				t.Fatalf("evaluated = %d, want one per hierarchy cycle: %+v", got, stats.Outcomes)
			}
			if stats.Outcomes[tc.want.Outcome] != 1 {
				t.Fatalf("outcomes = %v, want one %s", stats.Outcomes, tc.want.Outcome)
			}
			if tc.want.Outcome == shadow.OutcomeAgreed {
				return
			}
			got := stats.Recent[0].Decision
			if got.PodGroup != tc.want.PodGroup || !slices.Equal(got.Deciding, tc.want.Deciding) {
				t.Errorf("decision %+v, want PodGroup %s decided by %v", got, tc.want.PodGroup, tc.want.Deciding)
			}
		})
	}
}
