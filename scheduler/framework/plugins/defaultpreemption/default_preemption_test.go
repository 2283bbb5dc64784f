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
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	fwkruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPostFilter(t *testing.T) {
	preemptor := func() *st.PodBuilder { return st.Pod("big").Priority(100).Container("cpu", "2") }
	tests := []struct {
		name        string
		cluster     cluster
		pod         *v1.Pod
		wantNode    string // "" with wantClear: the result clears the nomination
		wantClear   bool
		wantDeleted []string
		wantCode    framework.Code
		wantMsg     string
	}{
		{
			name: "keeps the more important pods and evicts only what is needed",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "3")}, pods: []*v1.Pod{
				st.Pod("low").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("mid").Priority(5).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("high").Priority(9).Container("cpu", "1").NodeName("n1").Obj(),
			}},
			pod:         st.Pod("big").Priority(100).Container("cpu", "1").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"low"},
			wantCode:    framework.Success,
			wantMsg:     "preemption: found a potential placement for pod on node n1, preempting 1 victims",
		},
		{
			name: "among equal priorities the pod that started last is evicted",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "3")}, pods: []*v1.Pod{
				st.Pod("old").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0).Obj(),
				st.Pod("new").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0.Add(time.Hour)).Obj(),
				st.Pod("older").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0.Add(-time.Hour)).Obj(),
			}},
			pod:         st.Pod("big").Priority(100).Container("cpu", "1").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"new"},
			wantCode:    framework.Success,
		},
		{
			name: "a PDB-protected pod is reprieved before an unprotected one",
			cluster: cluster{
				nodes: []*v1.Node{makeNode("n1", "3")},
				pods: []*v1.Pod{
					st.Pod("protected").Priority(1).Container("cpu", "1").NodeName("n1").Label("app", "db").StartTime(t0.Add(time.Hour)).Obj(),
					st.Pod("free").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0).Obj(),
					st.Pod("keep").Priority(1).Container("cpu", "1").NodeName("n1").StartTime(t0.Add(-time.Hour)).Obj(),
				},
				pdbs: []*policy.PodDisruptionBudget{makePDB("db", 0)},
			},
			pod:         st.Pod("big").Priority(100).Container("cpu", "1").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"free"},
			wantCode:    framework.Success,
		},
		{
			name: "fewest PDB violations wins",
			cluster: cluster{
				nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")},
				pods: []*v1.Pod{
					st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Label("app", "db").Obj(),
					st.Pod("b").Priority(5).Container("cpu", "2").NodeName("n2").Obj(),
				},
				pdbs: []*policy.PodDisruptionBudget{makePDB("db", 0)},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b"},
			wantCode:    framework.Success,
		},
		{
			name: "a PDB with disruptions left is no violation",
			cluster: cluster{
				nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")},
				pods: []*v1.Pod{
					st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Label("app", "db").Obj(),
					st.Pod("b").Priority(5).Container("cpu", "2").NodeName("n2").Obj(),
				},
				pdbs: []*policy.PodDisruptionBudget{makePDB("db", 1)},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"a"},
			wantCode:    framework.Success,
		},
		{
			name: "lowest priority of the most important victim wins",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("a1").Priority(5).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("a2").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("b1").Priority(4).Container("cpu", "1").NodeName("n2").Obj(),
				st.Pod("b2").Priority(4).Container("cpu", "1").NodeName("n2").Obj(),
			}},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b1", "b2"},
			wantCode:    framework.Success,
		},
		{
			name: "then the smallest sum of priorities",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("a1").Priority(5).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("a2").Priority(3).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("b1").Priority(5).Container("cpu", "1").NodeName("n2").Obj(),
				st.Pod("b2").Priority(2).Container("cpu", "1").NodeName("n2").Obj(),
			}},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b1", "b2"},
			wantCode:    framework.Success,
		},
		{
			name: "then the fewest victims",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("a1").Priority(5).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("a2").Priority(5).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("b1").Priority(5).Container("cpu", "2").NodeName("n2").Obj(),
			}},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b1"},
			wantCode:    framework.Success,
		},
		{
			name: "then the latest start of the earliest top-priority victim",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("a").Priority(5).Container("cpu", "2").NodeName("n1").StartTime(t0.Add(-time.Hour)).Obj(),
				st.Pod("b").Priority(5).Container("cpu", "2").NodeName("n2").StartTime(t0.Add(-time.Minute)).Obj(),
			}},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b"},
			wantCode:    framework.Success,
		},
		{
			name: "full ties go to the candidate found first",
			cluster: cluster{offset: 1, nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("a").Priority(5).Container("cpu", "2").NodeName("n1").StartTime(t0).Obj(),
				st.Pod("b").Priority(5).Container("cpu", "2").NodeName("n2").StartTime(t0).Obj(),
			}},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b"},
			wantCode:    framework.Success,
		},
		{
			name: "minCandidateNodesAbsolute 1 stops at the first candidate from the offset",
			cluster: cluster{
				args:   `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":1}`,
				offset: 1,
				nodes:  []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2"), makeNode("n3", "2")},
				pods: []*v1.Pod{
					st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Obj(),
					st.Pod("b").Priority(9).Container("cpu", "2").NodeName("n2").Obj(),
					st.Pod("c").Priority(1).Container("cpu", "2").NodeName("n3").Obj(),
				},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b"},
			wantCode:    framework.Success,
		},
		{
			name: "the dry run goes on past candidates that violate PDBs",
			cluster: cluster{
				args:  `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":1}`,
				nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")},
				pods: []*v1.Pod{
					st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Label("app", "db").Obj(),
					st.Pod("b").Priority(9).Container("cpu", "2").NodeName("n2").Obj(),
				},
				pdbs: []*policy.PodDisruptionBudget{makePDB("db", 0)},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"b"},
			wantCode:    framework.Success,
		},
		{
			name: "preemptionPolicy Never preempts nobody",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{
				st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Obj(),
			}},
			pod:      preemptor().PreemptionPolicy(v1.PreemptNever).Obj(),
			wantCode: framework.Unschedulable,
			wantMsg:  "preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "victims still terminating on the nominated node stop a second preemption",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "3")}, pods: []*v1.Pod{
				st.Pod("gone").Priority(1).Container("cpu", "1").NodeName("n1").Terminating(t0).Condition(preemptedByScheduler).Obj(),
				st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Obj(),
			}},
			pod:      preemptor().Nominated("n1").Obj(),
			wantCode: framework.Unschedulable,
			wantMsg:  "preemption: not eligible due to a terminating pod on the nominated node.",
		},
		{
			name: "terminating pods elsewhere do not stop it, and count as victims without an API call",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "3"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("gone").Priority(1).Container("cpu", "1").NodeName("n1").Terminating(t0).Condition(preemptedByScheduler).Obj(),
				st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Obj(),
				st.Pod("b").Priority(200).Container("cpu", "2").NodeName("n2").Obj(),
			}},
			pod:         preemptor().Nominated("n2").Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"a"},
			wantCode:    framework.Success,
		},
		{
			name: "a nominated node that no longer suits the pod does not stop it",
			cluster: cluster{nodes: []*v1.Node{plainCordoned("n1"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("gone").Priority(1).Container("cpu", "1").NodeName("n1").Terminating(t0).Condition(preemptedByScheduler).Obj(),
				st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n2").Obj(),
			}},
			pod:         preemptor().Nominated("n1").Obj(),
			wantNode:    "n2",
			wantDeleted: []string{"a"},
			wantCode:    framework.Success,
		},
		{
			name: "no lower-priority pods: nobody to preempt",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")}, pods: []*v1.Pod{
				st.Pod("a").Priority(100).Container("cpu", "2").NodeName("n1").Obj(),
				st.Pod("b").Priority(200).Container("cpu", "2").NodeName("n2").Obj(),
			}},
			pod:       preemptor().Obj(),
			wantClear: true,
			wantCode:  framework.Unschedulable,
			wantMsg:   "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
		},
		{
			name: "unresolvable nodes are not tried",
			cluster: cluster{nodes: []*v1.Node{plainCordoned("n1"), makeNode("n2", "2"), makeNode("n3", "1")}, pods: []*v1.Pod{
				st.Pod("a").Priority(1).Container("cpu", "2").NodeName("n1").Obj(),
				st.Pod("b").Priority(200).Container("cpu", "2").NodeName("n2").Obj(),
			}},
			pod:       preemptor().Obj(),
			wantClear: true,
			wantCode:  framework.Unschedulable,
			wantMsg:   "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
		},
		{
			name: "a node where higher-priority pods leave too little room reports the filter's reason",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{
				st.Pod("a").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
				st.Pod("b").Priority(200).Container("cpu", "1").NodeName("n1").Obj(),
			}},
			pod:       preemptor().Obj(),
			wantClear: true,
			wantCode:  framework.Unschedulable,
			wantMsg:   "preemption: 0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "a group whose disruption mode is All is one victim, all its members with it",
			cluster: cluster{
				nodes:  []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")},
				groups: []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Gang(2).Priority(1).DisruptAll().Obj()},
				pods: []*v1.Pod{
					st.Pod("crew-0").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n1").Obj(),
					st.Pod("crew-1").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n2").Obj(),
				},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"crew-0", "crew-1"},
			wantCode:    framework.Success,
			wantMsg:     "preemption: found a potential placement for pod on node n1, preempting 2 victims",
		},
		{
			name: "a group whose disruption mode is Single loses only the member in the way",
			cluster: cluster{
				nodes:  []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")},
				groups: []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Gang(2).Priority(1).Obj()},
				pods: []*v1.Pod{
					st.Pod("crew-0").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n1").Obj(),
					st.Pod("crew-1").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n2").Obj(),
				},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"crew-0"},
			wantCode:    framework.Success,
			wantMsg:     "preemption: found a potential placement for pod on node n1, preempting 1 victims",
		},
		{
			name: "a lone pod is taken before a whole group of the same priority",
			cluster: cluster{
				nodes:  []*v1.Node{makeNode("n1", "4"), makeNode("n2", "2")},
				groups: []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Gang(2).Priority(1).DisruptAll().Obj()},
				pods: []*v1.Pod{
					st.Pod("crew-0").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n1").Obj(),
					st.Pod("crew-1").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n2").Obj(),
					st.Pod("lone").Priority(1).Container("cpu", "2").NodeName("n1").Obj(),
				},
			},
			pod:         preemptor().Obj(),
			wantNode:    "n1",
			wantDeleted: []string{"lone"},
			wantCode:    framework.Success,
		},
		{
			name: "a group's members are preempted at the group's priority",
			cluster: cluster{
				nodes:  []*v1.Node{makeNode("n1", "2")},
				groups: []*schedulingv1beta1.PodGroup{st.WorkloadGroup("crew").Priority(500).Obj()},
				pods: []*v1.Pod{
					st.Pod("crew-0").Priority(1).Container("cpu", "2").SchedulingGroup("crew").NodeName("n1").Obj(),
				},
			},
			pod:       preemptor().Obj(),
			wantClear: true,
			wantCode:  framework.Unschedulable,
			wantMsg:   "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name: "a pod larger than any node is not helped",
			cluster: cluster{nodes: []*v1.Node{makeNode("n1", "1")}, pods: []*v1.Pod{
				st.Pod("a").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
			}},
			pod:       preemptor().Obj(),
			wantClear: true,
			wantCode:  framework.Unschedulable,
			wantMsg:   "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
	}
	for _, sync := range []bool{false, true} {
		for _, tt := range tests {
			mode := "async"
			if sync {
				mode = "sync"
			}
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				c := tt.cluster
				c.sync = sync
				c.pods = append(slices.Clone(c.pods), tt.pod)
				e := newEnv(t, c)
				result, status := e.schedule(t, tt.pod)
				if status.Code() != tt.wantCode {
					t.Fatalf("status %v, want code %v", status, tt.wantCode)
				}
				if tt.wantMsg != "" && status.Message() != tt.wantMsg {
					t.Errorf("message\n got %q\nwant %q", status.Message(), tt.wantMsg)
				}
				switch {
				case tt.wantNode != "" || tt.wantClear:
					if result.Mode() != framework.ModeOverride || result.NominatedNodeName != tt.wantNode {
						t.Errorf("result %+v, want nomination %q", result.NominatingInfo, tt.wantNode)
					}
				case result != nil && result.Mode() != framework.ModeNoop:
					t.Errorf("result %+v, want none", result.NominatingInfo)
				}
				if got := e.deleted(); !slices.Equal(got, tt.wantDeleted) {
					t.Errorf("deleted %v, want %v", got, tt.wantDeleted)
				}
				if got := e.statusPatches(); !slices.Equal(sorted(got), tt.wantDeleted) {
					t.Errorf("DisruptionTarget patches %v, want %v", got, tt.wantDeleted)
				}
			})
		}
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// plainCordoned is a 2-CPU node marked unschedulable.
func plainCordoned(name string) *v1.Node {
	n := makeNode(name, "2")
	n.Spec.Unschedulable = true
	return n
}

func TestVictimGetsDisruptionTargetThenIsDeleted(t *testing.T) {
	victim := st.Pod("v").Priority(1).Container("cpu", "2").NodeName("n1").Obj()
	victim.Generation = 3
	pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
	pod.Spec.SchedulerName = "bin-packing"
	e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{victim, pod}})
	if _, status := e.schedule(t, pod); !status.IsSuccess() {
		t.Fatalf("PostFilter: %v", status)
	}
	actions := e.client.Actions()
	if len(actions) != 2 {
		t.Fatalf("actions %v, want a status patch and a delete", actions)
	}
	patch := actions[0].(clienttesting.PatchAction)
	for _, want := range []string{`"type":"DisruptionTarget"`, `"status":"True"`, `"reason":"PreemptionByScheduler"`,
		`"message":"bin-packing: preempting to accommodate a higher priority pod"`, `"observedGeneration":3`, `"uid":"v-uid"`} {
		if !strings.Contains(string(patch.GetPatch()), want) {
			t.Errorf("patch %s lacks %s", patch.GetPatch(), want)
		}
	}
	del := actions[1].(clienttesting.DeleteAction)
	if uid := del.GetDeleteOptions().Preconditions; uid == nil || *uid.UID != types.UID("v-uid") {
		t.Errorf("delete preconditions %+v, want the victim's UID", uid)
	}
	got, err := e.client.CoreV1().Pods("default").Get(context.Background(), "v", metav1GetOptions())
	if err == nil {
		t.Errorf("victim still exists: %v", got.Status.Conditions)
	}
}

func TestLowerPriorityNominationsAreCleared(t *testing.T) {
	lower := st.Pod("lower").Priority(5).Container("cpu", "1").Nominated("n1").Obj()
	higher := st.Pod("higher").Priority(500).Container("cpu", "1").Nominated("n1").Obj()
	elsewhere := st.Pod("elsewhere").Priority(5).Container("cpu", "1").Nominated("n2").Obj()
	pod := st.Pod("big").Priority(100).Container("cpu", "1").Obj()
	e := newEnv(t, cluster{
		nodes:     []*v1.Node{makeNode("n1", "3"), makeNode("n2", "1")},
		pods:      []*v1.Pod{st.Pod("v").Priority(1).Container("cpu", "2").NodeName("n1").Obj(), st.Pod("w").Priority(200).Container("cpu", "1").NodeName("n2").Obj(), lower, higher, elsewhere, pod},
		nominated: []*v1.Pod{lower, higher, elsewhere},
	})
	result, status := e.schedule(t, pod)
	if !status.IsSuccess() || result.NominatedNodeName != "n1" {
		t.Fatalf("PostFilter: %v, %+v", status, result)
	}
	if got, want := sorted(e.statusPatches()), []string{"lower", "v"}; !slices.Equal(got, want) {
		t.Errorf("status patches %v, want %v", got, want)
	}
	for _, a := range e.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && p.GetName() == "lower" && !strings.Contains(string(p.GetPatch()), `"nominatedNodeName":null`) {
			t.Errorf("patch of lower %s does not clear the nomination", p.GetPatch())
		}
	}
}

func TestWaitingVictimIsRejectedInMemory(t *testing.T) {
	victim := st.Pod("v").Priority(1).Container("cpu", "2").NodeName("n1").Obj()
	pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
	e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "2")}, pods: []*v1.Pod{victim, pod}})
	wp := &fakeWaitingPod{pod: victim}
	p, err := NewWithArgs(DefaultArgs(), waitingHandle{Framework: e.fwk, wp: wp})
	if err != nil {
		t.Fatal(err)
	}
	state, statuses := e.filter(t, pod)
	if _, status := p.PostFilter(context.Background(), state, pod, statuses); !status.IsSuccess() {
		t.Fatalf("PostFilter: %v", status)
	}
	p.background.Wait()
	if got := e.deleted(); len(got) != 0 {
		t.Errorf("deleted %v; a waiting victim is rejected in memory", got)
	}
	if wp.rejectedBy != Name {
		t.Errorf("waiting victim rejected by %q, want %q", wp.rejectedBy, Name)
	}
}

// waitingHandle is the framework with one pod waiting at Permit.
type waitingHandle struct {
	*fwkruntime.Framework
	wp *fakeWaitingPod
}

func (h waitingHandle) GetWaitingPod(uid types.UID) framework.WaitingPod {
	if uid == h.wp.pod.UID {
		return h.wp
	}
	return nil
}

// fakeWaitingPod records its rejection.
type fakeWaitingPod struct {
	pod        *v1.Pod
	rejectedBy string
}

func (w *fakeWaitingPod) GetPod() *v1.Pod             { return w.pod }
func (w *fakeWaitingPod) GetPendingPlugins() []string { return nil }
func (w *fakeWaitingPod) Allow(string)                {}
func (w *fakeWaitingPod) Reject(plugin, _ string)     { w.rejectedBy = plugin }

func TestPickCandidateOrder(t *testing.T) {
	p := &DefaultPreemption{clock: fakeClock()}
	pods := func(prios ...int32) []*v1.Pod {
		out := make([]*v1.Pod, len(prios))
		for i, pr := range prios {
			out[i] = st.Pod("p").Priority(pr).StartTime(t0.Add(time.Duration(i) * time.Minute)).Obj()
		}
		return out
	}
	tests := []struct {
		name       string
		candidates []*candidate
		want       string
	}{
		{"pdb violations first", []*candidate{
			{node: "a", victims: pods(1), pdbViolations: 1},
			{node: "b", victims: pods(50, 50, 50), pdbViolations: 0},
		}, "b"},
		{"then highest victim priority", []*candidate{
			{node: "a", victims: pods(10)},
			{node: "b", victims: pods(9, 9, 9)},
		}, "b"},
		{"negative priorities still count per victim", []*candidate{
			{node: "a", victims: pods(-5, -5)},
			{node: "b", victims: pods(-5)},
		}, "b"},
		{"then start time of the top victims", []*candidate{
			{node: "a", victims: []*v1.Pod{st.Pod("x").Priority(3).StartTime(t0).Obj()}},
			{node: "b", victims: []*v1.Pod{st.Pod("y").Priority(3).StartTime(t0.Add(time.Second)).Obj()}},
		}, "b"},
		{"a victim without start time counts as starting now", []*candidate{
			{node: "a", victims: []*v1.Pod{st.Pod("x").Priority(3).StartTime(t0.Add(time.Hour)).Obj()}},
			{node: "b", victims: []*v1.Pod{st.Pod("y").Priority(3).Obj()}},
		}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.pickCandidate(tt.candidates); got.node != tt.want {
				t.Errorf("picked %s (victim priorities %v), want %s", got.node, priorities(got.victims), tt.want)
			}
		})
	}
}

func TestNumCandidates(t *testing.T) {
	tests := []struct {
		pct, abs int32
		nodes    int
		want     int
	}{
		{10, 100, 50, 50},
		{10, 100, 5000, 500},
		{10, 100, 500, 100},
		{0, 1, 500, 1},
		{100, 0, 30, 30},
		{40, 3, 5, 3},
	}
	for _, tt := range tests {
		p := &DefaultPreemption{percentage: tt.pct, absolute: tt.abs}
		if got := p.numCandidates(tt.nodes); got != tt.want {
			t.Errorf("pct %d abs %d over %d nodes: %d, want %d", tt.pct, tt.abs, tt.nodes, got, tt.want)
		}
	}
}

func TestLoadArgs(t *testing.T) {
	tests := []struct {
		name            string
		raw             string
		wantPct, wantAb int32
		wantErr         []string
	}{
		{name: "defaults", raw: ``, wantPct: 10, wantAb: 100},
		{name: "set", raw: `{"kind":"DefaultPreemptionArgs","minCandidateNodesPercentage":50,"minCandidateNodesAbsolute":0}`, wantPct: 50, wantAb: 0},
		{name: "percentage out of range", raw: `{"minCandidateNodesPercentage":101}`,
			wantErr: []string{"minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"}},
		{name: "negative absolute and percentage", raw: `{"minCandidateNodesPercentage":-1,"minCandidateNodesAbsolute":-1}`,
			wantErr: []string{"minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]", "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"}},
		{name: "both zero", raw: `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0}`,
			wantErr: []string{"cannot be zero at the same time as minCandidateNodesAbsolute", "cannot be zero at the same time as minCandidateNodesPercentage"}},
		{name: "wrong kind", raw: `{"kind":"NodeAffinityArgs"}`, wantErr: []string{"kind: Invalid value: \"NodeAffinityArgs\": must be DefaultPreemptionArgs"}},
		{name: "unknown field", raw: `{"minCandidateNodes":1}`, wantErr: []string{`unknown field "minCandidateNodes"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := args.Load[DefaultPreemptionArgs]("plugin "+Name, []byte(tt.raw))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *a.MinCandidateNodesPercentage != tt.wantPct || *a.MinCandidateNodesAbsolute != tt.wantAb {
				t.Errorf("args %d/%d, want %d/%d", *a.MinCandidateNodesPercentage, *a.MinCandidateNodesAbsolute, tt.wantPct, tt.wantAb)
			}
		})
	}
}

func TestNewWithoutRunnerFailsOnlyAtPreemption(t *testing.T) {
	e := newEnv(t, cluster{nodes: []*v1.Node{makeNode("n1", "1")}})
	p, err := NewWithArgs(DefaultArgs(), handleOnly{e.fwk})
	if err != nil {
		t.Fatal(err)
	}
	_, status := p.PostFilter(context.Background(), framework.NewCycleState(), st.Pod("x").Obj(), framework.NewNodeToStatus())
	if status.Code() != framework.Error {
		t.Errorf("status %v, want Error", status)
	}
}

// handleOnly hides every method beyond framework.Handle.
type handleOnly struct{ framework.Handle }
