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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	schedulingclient "k8s.io/client-go/kubernetes/typed/scheduling/v1beta1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// constrained returns n members of group g asking for one CPU each,
// labelled app=g, each changed by with.
func constrained(g string, n int, with func(*st.PodBuilder) *st.PodBuilder) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range n {
		b := st.Pod(fmt.Sprintf("%s-%d", g, i)).SchedulerName(v1.DefaultSchedulerName).SchedulingGroup(g).Label("app", g).Req("cpu", "1")
		out[i] = with(b).Obj()
	}
	return out
}

// hostNode returns a node of rack with cpu CPUs and its hostname label.
func hostNode(name, rack, cpu string) *v1.Node {
	return rackNode(name, rack, cpu).Hostname().Obj()
}

// TestGroupMembersConstrainEachOther checks that a member placed earlier in
// a group's cycle counts for the later members' Filter as a bound pod
// does: required anti-affinity and hard topology spread among the members
// hold in a lone PodGroup, in a rack placement and in a CompositePodGroup's
// hierarchy. kube-scheduler v1.37.1 turns such a gang down as a whole.
func TestGroupMembersConstrainEachOther(t *testing.T) {
	antiAffinity := func(g string) func(*st.PodBuilder) *st.PodBuilder {
		return func(b *st.PodBuilder) *st.PodBuilder {
			return b.PodAntiAffinity(st.Term(v1.LabelHostname, "app", g))
		}
	}
	spread := func(g string) func(*st.PodBuilder) *st.PodBuilder {
		return func(b *st.PodBuilder) *st.PodBuilder {
			return b.Spread(1, v1.LabelHostname, v1.DoNotSchedule, &metav1.LabelSelector{MatchLabels: map[string]string{"app": g}})
		}
	}
	tests := []struct {
		name  string
		nodes []*v1.Node
		cpgs  []*schedulingv1alpha3.CompositePodGroup
		pgs   []*schedulingv1beta1.PodGroup
		pods  []*v1.Pod
		// wantPerNode is how many pods bind on each node; nil when none binds.
		wantPerNode map[string]int
		// group and wantMessage are a PodGroup that fails and the start of its message.
		group, wantMessage string
		// member and wantMemberMessage are a member that did not fit and the start of its message.
		member, wantMemberMessage string
	}{
		{
			name:              "a gang of 3 with required anti-affinity on 2 nodes",
			nodes:             []*v1.Node{hostNode("n1", "r", "8"), hostNode("n2", "r", "8")},
			pgs:               []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Gang(3).Obj()},
			pods:              constrained("crew", 3, antiAffinity("crew")),
			group:             "crew",
			wantMessage:       "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining",
			member:            "crew-2",
			wantMemberMessage: "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
		},
		{
			name:        "a gang of 4 with a hard spread on nodes of unequal room",
			nodes:       []*v1.Node{hostNode("n1", "r", "3"), hostNode("n2", "r", "1")},
			pgs:         []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Gang(4).Obj()},
			pods:        constrained("crew", 4, spread("crew")),
			group:       "crew",
			wantMessage: "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (4) cannot be satisfied: 3 scheduled, 0 remaining",
			member:      "crew-3",
		},
		{
			name:        "a basic group binds the members the spread allows",
			nodes:       []*v1.Node{hostNode("n1", "r", "3"), hostNode("n2", "r", "1")},
			pgs:         []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Obj()},
			pods:        constrained("crew", 4, spread("crew")),
			wantPerNode: map[string]int{"n1": 2, "n2": 1},
			member:      "crew-3",
		},
		{
			name: "a gang with required anti-affinity in a rack placement",
			nodes: []*v1.Node{
				hostNode("a1", "a", "8"), hostNode("a2", "a", "8"),
				hostNode("b1", "b", "8"), hostNode("b2", "b", "8"), hostNode("b3", "b", "8"),
			},
			pgs:         []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Gang(3).Topology(testRack).Obj()},
			pods:        constrained("crew", 3, antiAffinity("crew")),
			wantPerNode: map[string]int{"b1": 1, "b2": 1, "b3": 1},
		},
		{
			name:  "a CompositePodGroup's gang with required anti-affinity",
			nodes: []*v1.Node{hostNode("n1", "r", "8"), hostNode("n2", "r", "8")},
			cpgs:  []*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj()},
			pgs:   []*schedulingv1beta1.PodGroup{child("crew", "root", 3)},
			pods:  constrained("crew", 3, antiAffinity("crew")),
			group: "crew",
			// The PodGroup reads the hierarchy's outcome; the member its own.
			member:            "crew-2",
			wantMemberMessage: "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHierarchyHarness(t, tt.nodes)
			h.run(tt.cpgs, tt.pgs, tt.pods)
			perNode := map[string]int{}
			for _, node := range h.bound() {
				perNode[node]++
			}
			if len(perNode) == 0 {
				perNode = nil
			}
			if fmt.Sprint(perNode) != fmt.Sprint(tt.wantPerNode) {
				t.Errorf("pods bound per node %v, want %v", perNode, tt.wantPerNode)
			}
			if tt.group != "" {
				c := h.groupCondition(tt.group)
				if c == nil || c.Status != metav1.ConditionFalse || !strings.HasPrefix(c.Message, tt.wantMessage) {
					t.Errorf("PodGroup %s reads %v, want False with %q", tt.group, c, tt.wantMessage)
				}
			}
			if tt.member != "" {
				got := h.podMessage(tt.member)
				if got == "" || !strings.HasPrefix(got, tt.wantMemberMessage) {
					t.Errorf("%s reads %q, want %q", tt.member, got, tt.wantMemberMessage)
				}
			}
		})
	}
}

// TestGroupMemberOrder checks which members a group places when not all
// fit: kube-scheduler's order, earlier arrival in the queue first, whatever
// the names or creation times say. (Priority comes first in that order, but
// a group's members all have its priority, or its cycle refuses them.)
func TestGroupMemberOrder(t *testing.T) {
	member := func(name string) *v1.Pod {
		return st.Pod(name).SchedulerName(v1.DefaultSchedulerName).SchedulingGroup("crew").Req("cpu", "1").Obj()
	}
	tests := []struct {
		name string
		pg   *schedulingv1beta1.PodGroup
		// pods arrive in the queue in this order.
		pods []*v1.Pod
		want []string
	}{
		{
			name: "a basic group places the first arrivals, not the first names",
			pg:   st.WorkloadGroup("crew").Obj(),
			pods: []*v1.Pod{member("crew-c"), member("crew-b"), member("crew-a")},
			want: []string{"crew-b", "crew-c"},
		},
		{
			name: "a gang above minCount places the first arrivals",
			pg:   st.WorkloadGroup("crew").Gang(2).Obj(),
			pods: []*v1.Pod{member("crew-z"), member("crew-y"), member("crew-x")},
			want: []string{"crew-y", "crew-z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHierarchyHarness(t, []*v1.Node{hostNode("n1", "r", "2")})
			h.run(nil, []*schedulingv1beta1.PodGroup{tt.pg}, tt.pods)
			var got []string
			for pod := range h.bound() {
				got = append(got, pod)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("bound %v, want %v", got, tt.want)
			}
		})
	}
}

// TestUnreadGroupMemberIsNeverScheduledAlone checks the cycle's own guard:
// on an apiserver that does not serve the PodGroups the scheduler reads, a
// pod that joins one through spec.schedulingGroup is not bound on its own,
// even under a profile without GangScheduling, whose PreEnqueue would
// otherwise hold it.
func TestUnreadGroupMemberIsNeverScheduledAlone(t *testing.T) {
	noGang := &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: names.GangScheduling}}}
	spec := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{PreEnqueue: noGang, Permit: noGang, Reserve: noGang}}
	h := newHarness(t, withProfile(v1.DefaultSchedulerName, "default", spec), withNodes(hostNode("n1", "r", "8")))
	s := h.s
	pod := constrained("crew", 1, func(b *st.PodBuilder) *st.PodBuilder { return b })[0]
	h.addPods(pod)
	h.scheduleOne(pod)
	for _, a := range h.client.Actions() {
		if a.GetSubresource() == "binding" {
			t.Fatalf("the member was bound alone: %v", a)
		}
	}
	if st := s.queue.Stats(); st.Unschedulable+st.Gated != 1 {
		t.Errorf("queue %+v, want the member waiting in the unschedulable set", st)
	}
}

// TestGroupConditionWritesLandInOrder plays the first two cycles of the
// workloads scenario cpg-basic-partial on an apiserver slow to take b's
// first condition: a basic CompositePodGroup's cycle places gang a and
// leaves b's members out, and their cycle, run at once, finds b
// unschedulable again, with the PodGroupPostFilter plugins' answer. b
// ends reading the second cycle's condition, as kube-scheduler v1.37.1
// leaves it: it writes each cycle's condition before the next cycle.
func TestGroupConditionWritesLandInOrder(t *testing.T) {
	h := newHierarchyHarness(t, slots(3))
	held := holdFirstGroupStatus(h, "b")
	a, b := members("a", 2, "1"), members("b", 2, "1")
	h.add([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj()},
		[]*schedulingv1beta1.PodGroup{child("a", "root", 2), child("b", "root", 2)}, concat(a, b))
	for _, p := range concat(a, b) {
		h.s.queue.Add(logr.Discard(), p)
	}
	firstMsg := "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"

	h.startCycle()
	select {
	case <-held.arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the first cycle wrote no condition on b")
	}
	if got := held.first; !strings.Contains(got, firstMsg) {
		t.Fatalf("the first cycle wrote %s on b, want %q", got, firstMsg)
	}
	h.startCycle()
	// A write sent beside the held one lands first.
	select {
	case <-held.passed:
	case <-time.After(200 * time.Millisecond):
	}
	close(held.release)
	h.s.bindings.Wait()

	c := h.groupCondition("b")
	if c == nil || !strings.HasPrefix(c.Message, firstMsg+", pod group preemption: ") {
		t.Errorf("b reads %+v, want the second cycle's %q with the PodGroupPostFilter plugins' answer", c, firstMsg)
	}
}

// heldGroupStatus holds the first status write of one PodGroup at the
// apiserver until released, as a busy apiserver may, and lets the others
// through.
type heldGroupStatus struct {
	name  string
	calls atomic.Int32
	// first is the held write, set before arrived is closed.
	first   string
	arrived chan struct{}
	release chan struct{}
	// passed receives once each write let through has landed.
	passed chan struct{}
}

// holdFirstGroupStatus makes h's scheduler write PodGroups' statuses
// through a client that holds the first write of PodGroup name.
func holdFirstGroupStatus(h *harness, name string) *heldGroupStatus {
	held := &heldGroupStatus{name: name, arrived: make(chan struct{}), release: make(chan struct{}), passed: make(chan struct{}, 16)}
	h.s.client = holdingClient{Interface: h.s.client, held: held}
	return held
}

type holdingClient struct {
	kubernetes.Interface
	held *heldGroupStatus
}

func (c holdingClient) SchedulingV1beta1() schedulingclient.SchedulingV1beta1Interface {
	return holdingScheduling{SchedulingV1beta1Interface: c.Interface.SchedulingV1beta1(), held: c.held}
}

type holdingScheduling struct {
	schedulingclient.SchedulingV1beta1Interface
	held *heldGroupStatus
}

func (c holdingScheduling) PodGroups(namespace string) schedulingclient.PodGroupInterface {
	return holdingPodGroups{PodGroupInterface: c.SchedulingV1beta1Interface.PodGroups(namespace), held: c.held}
}

type holdingPodGroups struct {
	schedulingclient.PodGroupInterface
	held *heldGroupStatus
}

func (c holdingPodGroups) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*schedulingv1beta1.PodGroup, error) {
	if h := c.held; name == h.name {
		if h.calls.Add(1) == 1 {
			h.first = string(data)
			close(h.arrived)
			<-h.release
		} else {
			defer func() { h.passed <- struct{}{} }()
		}
	}
	return c.PodGroupInterface.Patch(ctx, name, pt, data, opts, subresources...)
}

const testRack = "test.berth.io/rack"

// newGroupHarness is a scheduler that serves scheduling.k8s.io PodGroups,
// with the live profile spec, whose group cycles are driven by the test.
func newGroupHarness(t testing.TB, live *v1alpha1.SchedulingProfileSpec, nodes []*v1.Node, bound ...*v1.Pod) *harness {
	t.Helper()
	return newHarness(t, servingPodGroups(false), withProfile(v1.DefaultSchedulerName, "default", live), withNodes(nodes...), withBound(bound...))
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

// TestGroupCycleRecordsItsDecision checks what a recording profile's group
// cycle keeps for its members' decisions, and that nothing is kept when
// the profile does not record.
func TestGroupCycleRecordsItsDecision(t *testing.T) {
	nodes := []*v1.Node{rackNode("a1", "a", "2").Obj(), rackNode("a2", "a", "2").Obj(), rackNode("b1", "b", "2").Obj(), rackNode("c1", "c", "4").Obj()}
	for _, record := range []bool{true, false} {
		t.Run(fmt.Sprintf("record=%v", record), func(t *testing.T) {
			h := newGroupHarness(t, &v1alpha1.SchedulingProfileSpec{}, nodes)
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
