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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/shadow"
	"github.com/berth-io/berth/scheduler/workload"
)

const testZone = "test.berth.io/zone"

// newHierarchyHarness is a scheduler that follows CompositePodGroups, with
// the default profile, whose hierarchy cycles are driven by the test.
func newHierarchyHarness(t *testing.T, nodes []*v1.Node, bound ...*v1.Pod) *harness {
	t.Helper()
	h := newHarness(t, servingPodGroups(true), withNodes(nodes...), withBound(bound...))
	if _, ok := framework.HierarchyOf(h.s.workloads); !ok {
		t.Fatal("the scheduler does not follow hierarchies")
	}
	return h
}

// slots returns n nodes that hold one 1-CPU member each.
func slots(n int) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range n {
		out[i] = rackNode(fmt.Sprintf("n%d", i), "r", "1").Obj()
	}
	return out
}

// child returns a PodGroup under parent: a gang of minCount, basic when 0.
func child(name, parent string, minCount int32) *schedulingv1beta1.PodGroup {
	b := st.WorkloadGroup(name).Parent(parent)
	if minCount > 0 {
		b.Gang(minCount)
	}
	pg := b.Obj()
	pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "workload", TemplateName: name}
	return pg
}

func concat(groups ...[]*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// TestBasicCompositeKeepsTheChildThatFits checks a basic CompositePodGroup
// (any child may fail) whose first PodGroup fits and second does not: the
// first binds and reads Scheduled, the second reads upstream's message.
func TestBasicCompositeKeepsTheChildThatFits(t *testing.T) {
	h := newHierarchyHarness(t, slots(3))
	a, b := members("a", 2, "1"), members("b", 2, "1")
	h.run([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj()},
		[]*schedulingv1beta1.PodGroup{child("a", "root", 2), child("b", "root", 2)}, concat(a, b))

	bound := h.bound()
	if got, want := sets.KeySet(bound), sets.New("a-0", "a-1"); !got.Equal(want) {
		t.Errorf("bound %v, want %v", sets.List(got), sets.List(want))
	}
	h.wantCondition("a", metav1.ConditionTrue, workload.ReasonScheduled, "")
	bMsg := "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
	h.wantCondition("b", metav1.ConditionFalse, schedulingv1beta1.PodGroupReasonUnschedulable, bMsg)
	if got, want := h.podMessage("b-0"), "pod group is unschedulable, "+bMsg; got != want {
		t.Errorf("b-0 reads %q, want %q", got, want)
	}
	if got := h.podMessage("b-1"); !strings.HasPrefix(got, "0/3 nodes are available") {
		t.Errorf("b-1 reads %q, want its own FitError", got)
	}
	// The rest of a hierarchy that scheduled is retried at once.
	for _, p := range b {
		if !h.s.queue.Has(p) {
			t.Errorf("%s is not back in the queue", p.Name)
		}
	}
}

// TestGangCompositeIsAllOrNothing checks a gang CompositePodGroup whose
// second PodGroup does not fit: nothing binds; the PodGroup that fitted
// reads its parent's failure, with the PodGroupPostFilter plugins' answer
// added twice (once for the CompositePodGroup, once for it), as upstream's
// shared statuses come out.
func TestGangCompositeIsAllOrNothing(t *testing.T) {
	h := newHierarchyHarness(t, slots(4))
	a, b := members("a", 2, "1"), members("b", 3, "1")
	h.run([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Gang(2).Obj()},
		[]*schedulingv1beta1.PodGroup{child("a", "root", 2), child("b", "root", 3)}, concat(a, b))

	if bound := h.bound(); len(bound) != 0 {
		t.Errorf("bound %v, want none", bound)
	}
	bc, ac := h.groupCondition("b"), h.groupCondition("a")
	if bc == nil || ac == nil {
		t.Fatalf("conditions a %v, b %v", ac, bc)
	}
	bPrefix := "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, "
	if !strings.HasPrefix(bc.Message, bPrefix) {
		t.Fatalf("b reads %q, want it to start with %q", bc.Message, bPrefix)
	}
	postFilter := strings.TrimPrefix(bc.Message, bPrefix)
	aWant := "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, " + postFilter + ", " + postFilter
	if ac.Status != metav1.ConditionFalse || ac.Message != aWant {
		t.Errorf("a reads %s %q, want False %q", ac.Status, ac.Message, aWant)
	}
	for _, p := range concat(a, b) {
		if !h.s.queue.Has(p) {
			t.Errorf("%s is not back in the queue", p.Name)
		}
	}
}

// TestNestedTopologyPlacesEachChildInOneDomain checks nested topology
// keys: a CompositePodGroup kept in one zone whose PodGroups are each kept
// in one rack. Zone z1 has one rack full, so only z2 holds both PodGroups.
func TestNestedTopologyPlacesEachChildInOneDomain(t *testing.T) {
	var nodes []*v1.Node
	for _, z := range []string{"z1", "z2"} {
		for _, r := range []string{"ra", "rb"} {
			for i := range 2 {
				nodes = append(nodes, rackNode(fmt.Sprintf("%s-%s-%d", z, r, i), z+r, "1").Label(testZone, z).Obj())
			}
		}
	}
	full := []*v1.Pod{
		st.Pod("filler-0").Req("cpu", "1").NodeName("z1-ra-0").Obj(),
		st.Pod("filler-1").Req("cpu", "1").NodeName("z1-ra-1").Obj(),
	}
	h := newHierarchyHarness(t, nodes, full...)
	a, b := members("a", 2, "1"), members("b", 2, "1")
	pa, pb := child("a", "root", 2), child("b", "root", 2)
	for _, pg := range []*schedulingv1beta1.PodGroup{pa, pb} {
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: testRack}}}
	}
	h.run([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Gang(2).Topology(testZone).Obj()},
		[]*schedulingv1beta1.PodGroup{pa, pb}, concat(a, b))

	bound := h.bound()
	if len(bound) != 4 {
		t.Fatalf("bound %v, want all four members", bound)
	}
	racks := map[string]sets.Set[string]{}
	for pod, node := range bound {
		if !strings.HasPrefix(node, "z2-") {
			t.Errorf("%s bound to %s, outside zone z2", pod, node)
		}
		g := pod[:1]
		if racks[g] == nil {
			racks[g] = sets.New[string]()
		}
		racks[g].Insert(node[:5])
	}
	for g, r := range racks {
		if r.Len() != 1 {
			t.Errorf("PodGroup %s spans racks %v", g, sets.List(r))
		}
	}
	h.wantCondition("a", metav1.ConditionTrue, workload.ReasonScheduled, "")
	h.wantCondition("b", metav1.ConditionTrue, workload.ReasonScheduled, "")
}

// TestHierarchyPriorityMismatchFailsEveryPodGroup checks that a member
// whose priority is not the root's fails the whole hierarchy with
// upstream's error on every PodGroup, before anything is tried.
func TestHierarchyPriorityMismatchFailsEveryPodGroup(t *testing.T) {
	h := newHierarchyHarness(t, slots(4))
	a, b := members("a", 1, "1"), members("b", 1, "1")
	for _, p := range a {
		p.Spec.Priority = ptrTo(int32(1000))
	}
	h.run([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Priority(1000).Obj()},
		[]*schedulingv1beta1.PodGroup{child("a", "root", 0), child("b", "root", 0)}, concat(a, b))

	if bound := h.bound(); len(bound) != 0 {
		t.Errorf("bound %v, want none", bound)
	}
	msg := "all pods in a single pod group should have the same priority as the pod group's priority, got 0 and 1000"
	h.wantCondition("a", metav1.ConditionFalse, schedulingv1beta1.PodGroupReasonSchedulerError, msg)
	h.wantCondition("b", metav1.ConditionFalse, schedulingv1beta1.PodGroupReasonSchedulerError, msg)
}

// TestHierarchyPreemptsCompositePodGroupsWhole checks group preemption for
// a hierarchy: a low-priority CompositePodGroup fills the nodes, and a
// high-priority one needs two of them. With disruption mode All the low
// hierarchy is one victim and all four of its pods go; with Single each
// pod is its own victim and only the two the high one needs go.
func TestHierarchyPreemptsCompositePodGroupsWhole(t *testing.T) {
	for _, tc := range []struct {
		mode        string
		wantEvicted int
	}{{mode: "all", wantEvicted: 4}, {mode: "single", wantEvicted: 2}} {
		t.Run(tc.mode, func(t *testing.T) {
			var running []*v1.Pod
			for i, g := range []string{"low-a", "low-a", "low-b", "low-b"} {
				p := st.Pod(fmt.Sprintf("%s-%d", g, i)).SchedulingGroup(g).Priority(10).Req("cpu", "1").NodeName(fmt.Sprintf("n%d", i)).Obj()
				running = append(running, p)
			}
			h := newHierarchyHarness(t, slots(4), running...)
			low := st.CompositeGroup("low").Priority(10).Obj()
			if tc.mode == "all" {
				low.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}}
			}
			lowA, lowB := child("low-a", "low", 0), child("low-b", "low", 0)
			lowA.Spec.Priority, lowB.Spec.Priority = ptrTo(int32(10)), ptrTo(int32(10))
			h.add([]*schedulingv1alpha3.CompositePodGroup{low}, []*schedulingv1beta1.PodGroup{lowA, lowB}, running)

			high := members("high", 2, "1")
			for _, p := range high {
				p.Spec.Priority = ptrTo(int32(1000))
			}
			h.run([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("top").Gang(1).Priority(1000).Obj()},
				[]*schedulingv1beta1.PodGroup{child("high", "top", 2)}, high)

			// The victims are evicted in the background, as upstream's are.
			evicted := sets.New[string]()
			if err := wait.PollUntilContextTimeout(h.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				evicted = sets.New[string]()
				for _, a := range h.client.Actions() {
					if d, ok := a.(clienttesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
						evicted.Insert(d.GetName())
					}
				}
				return evicted.Len() >= tc.wantEvicted, nil
			}); err != nil || evicted.Len() != tc.wantEvicted {
				t.Errorf("evicted %v, want %d pods", sets.List(evicted), tc.wantEvicted)
			}
			c := h.groupCondition("high")
			if want := "pod group preemption: found a placement for podgroup, preempting " + fmt.Sprint(tc.wantEvicted) + " victims"; c == nil || !strings.HasSuffix(c.Message, want) {
				t.Errorf("high reads %v, want a message ending %q", c, want)
			}
		})
	}
}

// TestHierarchyCycleRecordsEachPodGroupsPlacement checks that a recording
// cycle of a hierarchy keeps, for the members of each PodGroup it places,
// how that PodGroup was placed, as a lone PodGroup's cycle does.
func TestHierarchyCycleRecordsEachPodGroupsPlacement(t *testing.T) {
	h := newHierarchyHarness(t, slots(4))
	a, b := members("a", 2, "1"), members("b", 1, "1")
	h.add([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj()},
		[]*schedulingv1beta1.PodGroup{child("a", "root", 2), child("b", "root", 0)}, concat(a, b))
	hl, _ := framework.HierarchyOf(h.s.workloads)
	root, err := hl.Hierarchy(framework.RefOf(child("a", "root", 2)))
	if err != nil {
		t.Fatal(err)
	}
	queued := func(pods []*v1.Pod) []*framework.QueuedPodInfo {
		var out []*framework.QueuedPodInfo
		for _, p := range pods {
			pi, err := framework.NewPodInfo(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, &framework.QueuedPodInfo{PodInfo: pi})
		}
		return out
	}
	c := &algorithm.Cycle{Env: h.s.env(h.s.profiles.Get(v1.DefaultSchedulerName).Framework, true), Root: root, Scheduled: map[framework.GroupKey]int{}}
	c.Members = map[framework.GroupKey][]*framework.QueuedPodInfo{}
	for _, leaf := range root.Leaves() {
		if leaf.Key.Name == "a" {
			c.Members[leaf.Key] = queued(a)
		} else {
			c.Members[leaf.Key] = queued(b)
		}
	}
	if err := h.s.updateSnapshot(h.ctx); err != nil {
		t.Fatal(err)
	}
	res := c.Run(h.ctx)
	for _, leaf := range root.Leaves() {
		o := res[leaf.Key]
		if !o.Status.Success() || o.Try == nil {
			t.Fatalf("PodGroup %s did not fit: %s", leaf.Key.Name, o.Status.Message())
		}
		g := o.Try.Group
		if g == nil || g.PodGroup != "default/"+leaf.Key.Name || g.Tried != 1 || g.Feasible != 1 {
			t.Errorf("PodGroup %s's recorded placement = %+v, want its own, 1 tried and feasible", leaf.Key.Name, g)
		}
	}
}

// TestHierarchyCycleIsShadowed checks that the loop hands a hierarchy's
// cycle to the shadow profiles, as it hands a lone PodGroup's: a twin of
// the live profile evaluates it once and agrees.
func TestHierarchyCycleIsShadowed(t *testing.T) {
	h := newHierarchyHarness(t, slots(4))
	fwk, err := h.s.CompileShadow(h.ctx, "twin", &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
	if err != nil {
		t.Fatal(err)
	}
	h.s.InstallShadow(h.ctx, &ShadowProfile{Framework: fwk, Source: "twin", Generation: 1, Of: v1.DefaultSchedulerName, SampleRatePercent: 100})
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	go h.s.shadows.Run(ctx)

	a, b := members("a", 2, "1"), members("b", 2, "1")
	h.run([]*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj()},
		[]*schedulingv1beta1.PodGroup{child("a", "root", 2), child("b", "root", 2)}, concat(a, b))
	if got := len(h.bound()); got != 4 {
		t.Fatalf("%d members bound, want the hierarchy's 4", got)
	}
	var stats ShadowStats
	if err := wait.PollUntilContextTimeout(h.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		stats, _ = h.s.ShadowStats("twin")
		return stats.Evaluated()+stats.Outcomes[shadow.OutcomeDropped] > 0, nil
	}); err != nil {
		t.Fatalf("the shadow evaluated nothing: %v", stats.Outcomes)
	}
	if stats.Evaluated() != 1 || stats.Outcomes[shadow.OutcomeAgreed] != 1 {
		t.Errorf("outcomes %v, want the hierarchy's cycle evaluated once and agreed", stats.Outcomes)
	}
}
