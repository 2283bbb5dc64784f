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

package scheduler

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/shadow"
	"github.com/berth-io/berth/scheduler/workload"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

const testRack = "test.berth.io/rack"

// groupHarness is a scheduler that serves scheduling.k8s.io PodGroups,
// with a live default profile and, optionally, a shadow of it, whose group
// cycles are driven by the test.
type groupHarness struct {
	t   *testing.T
	ctx context.Context
	s   *Scheduler
}

func newGroupHarness(t *testing.T, live, candidate *v1alpha1.SchedulingProfileSpec, nodes []*v1.Node, bound ...*v1.Pod) *groupHarness {
	t.Helper()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	client := fake.NewClientset()
	client.Resources = []*metav1.APIResourceList{{
		GroupVersion: workload.GroupVersion.String(),
		APIResources: []metav1.APIResource{{Name: "podgroups", Kind: "PodGroup", Namespaced: true}},
	}}
	s, err := New(ctx, client, WithSeed(1), inTree())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 1, live); err != nil {
		t.Fatal(err)
	}
	if candidate != nil {
		fwk, err := s.CompileShadow(ctx, "candidate", candidate)
		if err != nil {
			t.Fatal(err)
		}
		s.InstallShadow(ctx, &ShadowProfile{Framework: fwk, Source: "candidate", Generation: 1, Of: v1.DefaultSchedulerName, SampleRatePercent: 100})
	}
	for _, n := range nodes {
		s.cache.AddNode(logr.Discard(), n)
	}
	for _, p := range bound {
		if err := s.cache.AddPod(logr.Discard(), p); err != nil {
			t.Fatal(err)
		}
	}
	return &groupHarness{t: t, ctx: ctx, s: s}
}

// cycle runs the group's cycle as scheduleGroup does, up to the choice of
// its placement and the members assumed (no Reserve, Permit or binding),
// recording its decision, and returns the best placement's try, the status, and the shadows' job
// if one was handed to the worker.
func (h *groupHarness) cycle(pg *schedulingv1beta1.PodGroup, pods ...*v1.Pod) (*algorithm.PlacementResult, algorithm.Status, *shadowJob) {
	h.t.Helper()
	s := h.s
	if err := s.workloads.Informer().GetStore().Add(pg); err != nil {
		h.t.Fatal(err)
	}
	indexer := s.informerFactory.Core().V1().Pods().Informer().GetIndexer()
	members := make([]*framework.QueuedPodInfo, 0, len(pods))
	for _, p := range pods {
		if err := indexer.Add(p); err != nil {
			h.t.Fatal(err)
		}
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			h.t.Fatal(err)
		}
		members = append(members, &framework.QueuedPodInfo{PodInfo: pi})
	}
	fwk := s.profiles.Get(v1.DefaultSchedulerName).Framework
	s.beginGroupShadow(pods[0], fwk, pg, members)
	best, status := s.runLoneGroup(h.ctx, fwk, pg, members, true)
	s.endGroupShadow(best, status)
	if status.Success() {
		// The live members are assumed, as admitGroup does, before the
		// worker runs: the shadows must see the group as it was before.
		for _, m := range best.Members {
			if m.Err == nil {
				if err := s.cache.AssumePod(logr.Discard(), algorithm.AssumedCopy(m.QPI.Pod, m.Result.Host)); err != nil {
					h.t.Fatal(err)
				}
			}
		}
	}
	select {
	case job := <-s.shadows.jobs:
		return best, status, job
	default:
		return best, status, nil
	}
}

// work runs a job as the worker does and frees the worker.
func (h *groupHarness) work(job *shadowJob) {
	for _, p := range job.profiles {
		h.s.evaluateGroupShadow(h.ctx, p, job)
	}
	h.s.shadows.idle <- struct{}{}
}

// members returns n gang members of group g asking for cpu each.
func members(g string, n int, cpu string) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range n {
		out[i] = st.Pod(fmt.Sprintf("%s-%d", g, i)).SchedulerName(v1.DefaultSchedulerName).SchedulingGroup(g).Req("cpu", cpu).Obj()
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
			h := newGroupHarness(t, &tc.live, &candidate, tc.nodes, tc.bound...)
			best, status, job := h.cycle(tc.group, tc.pods...)
			if status.Success() != tc.livePlaced {
				t.Fatalf("live cycle: success = %v (%s), want %v", status.Success(), status.Message(), tc.livePlaced)
			}
			if job == nil || job.group == nil {
				t.Fatal("no group job for the shadow although the worker was free")
			}
			if tc.livePlaced && best.Placement.Name != tc.want.LivePlacement {
				t.Fatalf("live placement = %q, want %q", best.Placement.Name, tc.want.LivePlacement)
			}
			h.work(job)
			if h.s.shadows.snapshot.Simulating() {
				t.Error("the dry run left members on the shadows' snapshot")
			}
			stats, _ := h.s.ShadowStats("candidate")
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

// TestGroupCycleRecordsItsDecision checks what a recording profile's group
// cycle keeps for its members' decisions, and that nothing is kept when
// the profile does not record.
func TestGroupCycleRecordsItsDecision(t *testing.T) {
	nodes := []*v1.Node{rackNode("a1", "a", "2").Obj(), rackNode("a2", "a", "2").Obj(), rackNode("b1", "b", "2").Obj(), rackNode("c1", "c", "4").Obj()}
	for _, record := range []bool{true, false} {
		t.Run(fmt.Sprintf("record=%v", record), func(t *testing.T) {
			h := newGroupHarness(t, &v1alpha1.SchedulingProfileSpec{}, nil, nodes)
			pg := st.WorkloadGroup("g").Gang(2).Topology(testRack).Obj()
			pods := members("g", 4, "1")
			if err := h.s.workloads.Informer().GetStore().Add(pg); err != nil {
				t.Fatal(err)
			}
			var qpis []*framework.QueuedPodInfo
			for _, p := range pods {
				pi, _ := framework.NewPodInfo(p)
				qpis = append(qpis, &framework.QueuedPodInfo{PodInfo: pi})
			}
			fwk := h.s.profiles.Get(v1.DefaultSchedulerName).Framework
			best, status := h.s.runLoneGroup(h.ctx, fwk, pg, qpis, record)
			if !status.Success() {
				t.Fatalf("the group does not fit: %s", status.Message())
			}
			if !record {
				if best.Group != nil {
					t.Errorf("group decision = %+v, want none without recording", best.Group)
				}
				for _, m := range best.Members {
					if m.Result.Top != nil {
						t.Errorf("member %s kept scores without recording", m.QPI.Pod.Name)
					}
				}
				return
			}
			// Rack a and rack c hold all four members, rack b two:
			// PodGroupPodsCount scores a and c alike and b half; the other
			// PlacementScore plugins (NodeResourcesFit) add their share.
			g := best.Group
			if g == nil {
				t.Fatal("no group decision while recording")
			}
			if g.PodGroup != "default/g" || g.TopologyKey != testRack || g.Tried != 3 || g.Feasible != 3 {
				t.Errorf("group decision = %+v, want default/g over %s, 3 tried, 3 feasible", g, testRack)
			}
			if g.Placement != best.Placement.Name || len(g.Placements) != 3 || g.Placements[0].Name != g.Placement {
				t.Fatalf("placement = %q (best %q), ranking %+v: want the chosen one first of 3", g.Placement, best.Placement.Name, g.Placements)
			}
			counts := map[string]int64{}
			for i, p := range g.Placements {
				var sum int64
				for _, ps := range p.Scores {
					sum += ps.Score
					if ps.Name == "PodGroupPodsCount" {
						counts[p.Name] = ps.Score
					}
				}
				if sum != p.TotalScore {
					t.Errorf("placement %s: total %d, want the sum of its scores %d", p.Name, p.TotalScore, sum)
				}
				if i > 0 && p.TotalScore > g.Placements[i-1].TotalScore {
					t.Errorf("ranking %+v is not by total, highest first", g.Placements)
				}
			}
			if want := map[string]int64{"a": 100, "b": 50, "c": 100}; !cmp.Equal(counts, want) {
				t.Errorf("PodGroupPodsCount's scores = %v, want %v", counts, want)
			}
			for _, m := range best.Members {
				// A single feasible node is not scored, so it keeps no scores.
				if m.Result.FeasibleNodes > 1 && (len(m.Result.Top) == 0 || m.Result.Top[0].Name != m.Result.Host) {
					t.Errorf("member %s on %s: recorded nodes %+v, want the chosen node first", m.QPI.Pod.Name, m.Result.Host, m.Result.Top)
				}
			}
		})
	}
}

// runLoneGroup runs the cycle of a PodGroup with no CompositePodGroup above
// it on the snapshot, as scheduleHierarchy does once its members are
// gathered, and returns the try reported and the group's status.
func (s *Scheduler) runLoneGroup(ctx context.Context, fwk *runtime.Framework, pg *schedulingv1beta1.PodGroup, members []*framework.QueuedPodInfo, record bool) (*algorithm.PlacementResult, algorithm.Status) {
	root := framework.PodGroupNode(pg)
	c := &algorithm.Cycle{
		Env: s.env(fwk, record), Root: root,
		Members:   map[framework.GroupKey][]*framework.QueuedPodInfo{root.Key: members},
		Scheduled: map[framework.GroupKey]int{root.Key: len(framework.ScheduledMembers(s.workloads, root.Ref()))},
	}
	if err := s.updateSnapshot(ctx); err != nil {
		return nil, algorithm.Errorf("updating the snapshot: %v", err)
	}
	o := c.Run(ctx)[root.Key]
	return o.Try, *o.Status
}
