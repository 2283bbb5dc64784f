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
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

const rack = "test.berth.io/rack"

// cluster is a snapshot and the default profile compiled against it.
type cluster struct {
	snap *schedcache.Snapshot
	fwk  *runtime.Framework
}

// newCluster compiles the default profile over a snapshot of nodes and
// bound pods; groups are the PodGroups its plugins see, pods every pod.
func newCluster(t *testing.T, nodes []*v1.Node, bound []*v1.Pod, groups []*schedulingv1beta1.PodGroup, pods []*v1.Pod) *cluster {
	t.Helper()
	snap := schedcache.NewSnapshot(bound, nodes)
	client := fake.NewClientset()
	fwk, err := runtime.NewFramework(context.Background(), runtime.Registry(plugins.NewInTreeRegistry()), v1.DefaultSchedulerName,
		&v1alpha1.SchedulingProfileSpec{},
		runtime.WithClientSet(client),
		runtime.WithInformerFactory(informers.NewSharedInformerFactory(client, 0)),
		runtime.WithSnapshotSharedLister(snap),
		runtime.WithParallelism(1),
		runtime.WithWorkloads(&st.Workloads{Groups: groups, Pods: append(append([]*v1.Pod(nil), bound...), pods...)}))
	if err != nil {
		t.Fatalf("compiling the default profile: %v", err)
	}
	return &cluster{snap: snap, fwk: fwk}
}

// env is the cluster's environment for a cycle that breaks ties by
// taking the first of the best, starting its searches at node 0.
func (c *cluster) env() Env {
	next := 0
	return Env{Framework: c.fwk, Snapshot: c.snap, Next: &next}
}

func node(name, rackName, cpu string) *v1.Node {
	return st.Node(name).Label(rack, rackName).Hostname().Alloc("cpu", cpu, "memory", "16Gi", "pods", "110").Obj()
}

// preferring prefers one node for every pod, and one placement.
type preferring struct{ node, placement string }

func (p preferring) Node(*v1.Pod, *framework.Placement) string { return p.node }
func (p preferring) Placement(*framework.GroupNode) string     { return p.placement }

func TestSchedulePod(t *testing.T) {
	three := []*v1.Node{node("a", "r1", "4"), node("b", "r1", "4"), node("c", "r2", "4")}
	tests := []struct {
		name   string
		nodes  []*v1.Node
		bound  []*v1.Pod
		pod    *v1.Pod
		prefer string
		record bool
		// want is the host, or "" with wantErr a substring of the error.
		want, wantErr string
	}{
		{name: "no nodes at all", pod: st.Pod("p").Req("cpu", "1").Obj(), wantErr: ErrNoNodes.Error()},
		{
			name:  "the only node with room",
			nodes: three,
			bound: []*v1.Pod{st.Pod("x").Req("cpu", "4").NodeName("a").Obj(), st.Pod("y").Req("cpu", "4").NodeName("c").Obj()},
			pod:   st.Pod("p").Req("cpu", "2").Obj(),
			want:  "b",
		},
		{
			name:    "no node with room",
			nodes:   three,
			pod:     st.Pod("p").Req("cpu", "5").Obj(),
			wantErr: "0/3 nodes are available: 3 Insufficient cpu.",
		},
		{
			name: "the least allocated node", nodes: three, record: true,
			bound: []*v1.Pod{st.Pod("x").Req("cpu", "3").NodeName("a").Obj(), st.Pod("y").Req("cpu", "1").NodeName("c").Obj()},
			pod:   st.Pod("p").Req("cpu", "1").Obj(),
			want:  "b",
		},
		{name: "the preferred node among equals", nodes: three, pod: st.Pod("p").Req("cpu", "1").Obj(), prefer: "c", want: "c"},
		{
			name: "not a preferred node that scores lower", nodes: three, prefer: "a",
			bound: []*v1.Pod{st.Pod("x").Req("cpu", "3").NodeName("a").Obj()},
			pod:   st.Pod("p").Req("cpu", "1").Obj(),
			want:  "b",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, tc.nodes, tc.bound, nil, nil)
			env := c.env()
			env.Record = tc.record
			if tc.prefer != "" {
				env.Prefer = preferring{node: tc.prefer}
			}
			var searched []Search
			env.OnSearch = func(_ *v1.Pod, p *framework.Placement, s Search) {
				if p != nil {
					t.Errorf("a pod's own search told placement %q", p.Name)
				}
				searched = append(searched, s)
			}
			r, err := SchedulePod(context.Background(), env, framework.NewCycleState(), tc.pod)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one saying %q", err, tc.wantErr)
				}
			} else if err != nil || r.Host != tc.want {
				t.Fatalf("host = %q, %v; want %q", r.Host, err, tc.want)
			}
			if len(searched) != 1 {
				t.Fatalf("OnSearch told %d times, want once", len(searched))
			}
			if tc.record && (len(r.Top) == 0 || r.Top[0].Name != r.Host) {
				t.Errorf("recorded scores %+v, want the host first", r.Top)
			}
			if !tc.record && r.Top != nil {
				t.Errorf("scores %+v kept without Record", r.Top)
			}
		})
	}
}

// gang returns a PodGroup that needs minCount members placed together in
// one rack, and its n members asking for cpu each.
func gang(name string, minCount int32, n int, cpu string, opts ...func(*st.PodBuilder)) (*schedulingv1beta1.PodGroup, []*v1.Pod) {
	pg := st.WorkloadGroup(name).Gang(minCount).Topology(rack).Obj()
	pods := make([]*v1.Pod, n)
	for i := range n {
		b := st.Pod(fmt.Sprintf("%s-%d", name, i)).UID(fmt.Sprintf("%s-%d", name, i)).SchedulingGroup(name).Label("group", name).Req("cpu", cpu)
		for _, o := range opts {
			o(b)
		}
		pods[i] = b.Obj()
	}
	return pg, pods
}

func queued(pods []*v1.Pod) []*framework.QueuedPodInfo {
	out := make([]*framework.QueuedPodInfo, len(pods))
	for i, p := range pods {
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			panic(err)
		}
		out[i] = &framework.QueuedPodInfo{PodInfo: pi}
	}
	return out
}

func TestCycleOfAPodGroup(t *testing.T) {
	racks := []*v1.Node{node("a1", "r1", "2"), node("a2", "r1", "2"), node("b1", "r2", "4"), node("b2", "r2", "4")}
	apart := func(b *st.PodBuilder) { b.PodAntiAffinity(st.Term(v1.LabelHostname, "group", "g")) }
	tests := []struct {
		name  string
		nodes []*v1.Node
		bound []*v1.Pod
		n     int
		cpu   string
		opts  []func(*st.PodBuilder)
		// wantRack is the rack the group is placed in, "" when it fits nowhere.
		wantRack string
		// wantMsg is in the group's message when it fits nowhere.
		wantMsg string
	}{
		{name: "the rack with room for all", nodes: racks, n: 4, cpu: "2", wantRack: "r2"},
		{
			name: "no rack with room", nodes: racks, n: 4, cpu: "3",
			wantMsg: "pod group is unschedulable, 0/2 placements are available, first placement status: minCount (4) cannot be satisfied",
		},
		{
			name: "members that must stay apart, one per node", nodes: racks, n: 2, cpu: "1", opts: []func(*st.PodBuilder){apart},
			wantRack: "r1",
		},
		{
			name: "members that must stay apart, more than a rack's nodes", nodes: racks, n: 3, cpu: "1", opts: []func(*st.PodBuilder){apart},
			wantMsg: "0/2 placements are available",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg, pods := gang("g", int32(tc.n), tc.n, tc.cpu, tc.opts...)
			c := newCluster(t, tc.nodes, tc.bound, []*schedulingv1beta1.PodGroup{pg}, pods)
			root := framework.PodGroupNode(pg)
			cycle := &Cycle{Env: c.env(), Root: root, Members: map[framework.GroupKey][]*framework.QueuedPodInfo{root.Key: queued(pods)}}
			before := generations(t, c.snap)
			res := cycle.Run(context.Background())
			o := res[root.Key]
			if tc.wantRack == "" {
				if o.Status.Success() || !strings.Contains(o.Status.Message(), tc.wantMsg) {
					t.Fatalf("status %q, want a failure saying %q", o.Status.Message(), tc.wantMsg)
				}
			} else {
				if !o.Status.Success() || o.Try == nil {
					t.Fatalf("status %q, want the group placed", o.Status.Message())
				}
				seen := map[string]bool{}
				for _, a := range o.Try.Assignments().Assignments {
					ni, _ := c.snap.NodeInfos().Get(a.NodeName)
					if got := ni.Node().Labels[rack]; got != tc.wantRack {
						t.Errorf("%s on %s in rack %s, want rack %s", a.Pod.Name, a.NodeName, got, tc.wantRack)
					}
					if len(tc.opts) > 0 && seen[a.NodeName] {
						t.Errorf("two members that must stay apart on %s", a.NodeName)
					}
					seen[a.NodeName] = true
				}
				if got := len(o.Try.Assignments().Assignments); got != tc.n {
					t.Errorf("%d members placed, want %d", got, tc.n)
				}
			}
			if c.snap.Simulating() || c.snap.Placement() != nil {
				t.Error("the cycle left changes on the snapshot")
			}
			if after := generations(t, c.snap); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("node generations %v after the cycle, want %v", after, before)
			}
		})
	}
}

func generations(t *testing.T, snap *schedcache.Snapshot) map[string]int64 {
	t.Helper()
	all, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]int64, len(all))
	for _, ni := range all {
		out[ni.Name()] = ni.Generation
	}
	return out
}

func TestShadowStylePlacementPreference(t *testing.T) {
	// Two racks that score alike: the preferred placement wins the tie,
	// and each member goes to its preferred node there.
	nodes := []*v1.Node{node("a1", "r1", "4"), node("a2", "r1", "4"), node("b1", "r2", "4"), node("b2", "r2", "4")}
	pg, pods := gang("g", 2, 2, "1")
	c := newCluster(t, nodes, nil, []*schedulingv1beta1.PodGroup{pg}, pods)
	root := framework.PodGroupNode(pg)
	for _, want := range []string{"r1", "r2"} {
		env := c.env()
		env.SkipReserve = true
		env.Prefer = preferring{node: map[string]string{"r1": "a2", "r2": "b2"}[want], placement: want}
		tries, status := TryEachPlacement(context.Background(), env, root, queued(pods), 0)
		if !status.Success() || len(tries) != 2 {
			t.Fatalf("status %q, %d tries; want two placements tried", status.Message(), len(tries))
		}
		best, scores, status := RankPlacements(context.Background(), env, root, tries)
		if !status.Success() || len(scores) != 2 {
			t.Fatalf("ranking: %q, %d scores", status.Message(), len(scores))
		}
		if got := tries[best].Placement.Name; got != want {
			t.Errorf("placement %q, want the preferred %q", got, want)
		}
	}
}

func TestIsolateKeepsTheChangesAroundIt(t *testing.T) {
	snap := schedcache.NewSnapshot(nil, []*v1.Node{node("a", "r1", "4"), node("b", "r1", "4")})
	pi, err := framework.NewPodInfo(st.Pod("victim").Req("cpu", "1").Obj())
	if err != nil {
		t.Fatal(err)
	}
	count := func(name string) int {
		ni, _ := snap.NodeInfos().Get(name)
		return len(ni.Pods)
	}
	outer := Isolate(snap)
	if err := snap.AddPod(pi, "a"); err != nil {
		t.Fatal(err)
	}
	inner := Isolate(snap)
	snap.SetPlacement(map[string]bool{"b": true})
	if err := snap.AddPod(pi, "b"); err != nil {
		t.Fatal(err)
	}
	inner()
	if count("a") != 1 || count("b") != 1 || snap.Placement() != nil {
		t.Fatalf("after the inner end: a=%d b=%d placement=%v; want the changes kept and the placement back", count("a"), count("b"), snap.Placement())
	}
	outer()
	if count("a") != 0 || count("b") != 0 || snap.Simulating() {
		t.Fatalf("after the outer end: a=%d b=%d; want every change undone", count("a"), count("b"))
	}
}

func TestAssumedCopy(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		host string
	}{
		{name: "plain pod", pod: st.Pod("p").Obj(), host: "n1"},
		{name: "priority, requests and a nomination", pod: st.Pod("q").Priority(5).Container("cpu", "500m").Nominated("n2").Obj(), host: "n3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pod.DeepCopy()
			got := AssumedCopy(tt.pod, tt.host)
			if got == tt.pod {
				t.Fatal("AssumedCopy returned the pod itself")
			}
			if got.Spec.NodeName != tt.host {
				t.Errorf("spec.nodeName = %q, want %q", got.Spec.NodeName, tt.host)
			}
			if !equality.Semantic.DeepEqual(tt.pod, before) {
				t.Errorf("the original pod changed: %+v", tt.pod)
			}
			want := before.DeepCopy()
			want.Spec.NodeName = tt.host
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("assumed pod (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusMessages(t *testing.T) {
	tests := []struct {
		name             string
		status           Status
		message, asError string
	}{
		{name: "group unschedulable", status: GroupUnschedulable("2 members short"), message: "pod group is unschedulable, 2 members short", asError: "pod group is unschedulable"},
		{name: "plain", status: FromStatus(framework.NewStatus(framework.Unschedulable, "a", "b")), message: "a, b", asError: "a, b"},
		{name: "no placement fits", status: NoPlacementFits(3, GroupUnschedulable("x")), message: "pod group is unschedulable, 0/3 placements are available, first placement status: pod group is unschedulable", asError: "pod group is unschedulable"},
		{name: "with a reason added", status: GroupUnschedulable("x").WithReason("preempting"), message: "pod group is unschedulable, x, preempting", asError: "pod group is unschedulable"},
		{name: "error", status: Errorf("boom %d", 1), message: "boom 1", asError: "boom 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.status.Message(); got != tc.message {
				t.Errorf("Message() = %q, want %q", got, tc.message)
			}
			if got := tc.status.AsError(); got != tc.asError {
				t.Errorf("AsError() = %q, want %q", got, tc.asError)
			}
		})
	}
}

func TestStatusError(t *testing.T) {
	rejected := StatusError(framework.NewStatus(framework.Unschedulable, "no room").WithPlugin("Reserver"), "n1", 3)
	var fitErr *framework.FitError
	if !errors.As(rejected, &fitErr) || fitErr.NumAllNodes != 3 || !fitErr.Diagnosis.UnschedulablePlugins.Has("Reserver") {
		t.Errorf("a rejection: %v, want a FitError for n1 naming Reserver", rejected)
	}
	if failed := StatusError(framework.AsStatus(errors.New("boom")), "n1", 3); errors.As(failed, &fitErr) {
		t.Errorf("an error: %v, want no FitError", failed)
	}
}
