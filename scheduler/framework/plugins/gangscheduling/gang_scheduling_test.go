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

package gangscheduling

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/workload"
)

func newPlugin(t *testing.T, h framework.Handle) *GangScheduling {
	t.Helper()
	pl, err := New(context.Background(), nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*GangScheduling)
}

func TestPreEnqueue(t *testing.T) {
	for _, d := range doors {
		gang3 := d.group(st.WorkloadGroup("crew").Gang(3))
		basic := d.group(st.WorkloadGroup("crew"))
		tests := []struct {
			name     string
			groups   []*schedulingv1beta1.PodGroup
			pods     []*v1.Pod
			pod      *v1.Pod
			wantCode framework.Code
			wantMsg  string
		}{
			{name: "a pod in no group passes", pod: st.Pod("solo").Obj()},
			{
				name: "a member waits for its group to exist", pods: d.crew("a"), pod: d.crew("a")[0],
				wantCode: framework.UnschedulableAndUnresolvable, wantMsg: `waiting for pods's pod group "crew" to appear in scheduling queue`,
			},
			{name: "a basic group's member passes at once", groups: []*schedulingv1beta1.PodGroup{basic}, pods: d.crew("a"), pod: d.crew("a")[0]},
			{
				name: "a gang's member waits for minCount pods", groups: []*schedulingv1beta1.PodGroup{gang3}, pods: d.crew("a", "b"), pod: d.crew("a")[0],
				wantCode: framework.UnschedulableAndUnresolvable, wantMsg: msgAwaitingMinCount,
			},
			{name: "a gang with minCount pods passes", groups: []*schedulingv1beta1.PodGroup{gang3}, pods: d.crew("a", "b", "c"), pod: d.crew("a")[0]},
			{
				name: "bound members count", groups: []*schedulingv1beta1.PodGroup{gang3},
				pods: append(d.crew("a", "b"), d.member("c", "crew", "node-1")), pod: d.crew("a")[0],
			},
		}
		for _, tc := range tests {
			t.Run(d.name+"/"+tc.name, func(t *testing.T) {
				pl := newPlugin(t, handleFor(tc.groups, tc.pods, nil, nil))
				st := pl.PreEnqueue(context.Background(), tc.pod)
				if st.Code() != tc.wantCode || st.Message() != tc.wantMsg {
					t.Errorf("PreEnqueue = %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMsg)
				}
			})
		}
	}
}

// TestPreEnqueueKeepsTheKindsApart checks that a group of one kind does
// not count the members, or stand in for the group, of the other kind of
// the same name.
func TestPreEnqueueKeepsTheKindsApart(t *testing.T) {
	native, berth := doors[0], doors[1]
	groups := []*schedulingv1beta1.PodGroup{native.group(st.WorkloadGroup("crew").Gang(2))}
	pods := append(native.crew("a"), berth.crew("b", "c")...)
	pl := newPlugin(t, handleFor(groups, pods, nil, nil))
	if got := pl.PreEnqueue(context.Background(), pods[0]); got.Code() != framework.UnschedulableAndUnresolvable || got.Message() != msgAwaitingMinCount {
		t.Errorf("native member with Berth namesakes: PreEnqueue = %v, want it to wait for minCount", got)
	}
	if got := pl.PreEnqueue(context.Background(), pods[1]); got.Code() != framework.UnschedulableAndUnresolvable {
		t.Errorf("Berth member whose group exists only natively: PreEnqueue = %v, want it to wait for its group", got)
	}
}

func TestPlacementFeasible(t *testing.T) {
	tests := []struct {
		name     string
		group    *schedulingv1beta1.PodGroup
		progress framework.PlacementProgress
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "a basic group is admitted once one member is placed", group: st.WorkloadGroup("g").Obj(), progress: framework.PlacementProgress{Scheduled: 1}},
		{
			name: "a basic group waits for its first member", group: st.WorkloadGroup("g").Obj(), progress: framework.PlacementProgress{Remaining: 2},
			wantCode: framework.Wait, wantMsg: "minCount (1) is not yet satisfied: 0 scheduled, 2 remaining",
		},
		{
			name: "a gang waits while the rest could reach minCount", group: st.WorkloadGroup("g").Gang(4).Obj(), progress: framework.PlacementProgress{Remaining: 2, Scheduled: 2},
			wantCode: framework.Wait, wantMsg: "minCount (4) is not yet satisfied: 2 scheduled, 2 remaining",
		},
		{
			name: "a gang gives up once the rest cannot", group: st.WorkloadGroup("g").Gang(4).Obj(), progress: framework.PlacementProgress{Remaining: 0, Scheduled: 3},
			wantCode: framework.Unschedulable, wantMsg: "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining",
		},
		{name: "a gang is admitted at minCount", group: st.WorkloadGroup("g").Gang(4).Obj(), progress: framework.PlacementProgress{Remaining: 1, Scheduled: 4}},
		{
			name: "too few members from the start", group: st.WorkloadGroup("g").Gang(4).Obj(), progress: framework.PlacementProgress{Remaining: 3},
			wantCode: framework.Unschedulable, wantMsg: "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining",
		},
	}
	pl := newPlugin(t, handleFor(nil, nil, nil, nil))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := pl.PlacementFeasible(context.Background(), framework.PodGroupNode(tc.group), tc.progress)
			if st.Code() != tc.wantCode || st.Message() != tc.wantMsg {
				t.Errorf("PlacementFeasible = %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMsg)
			}
		})
	}
}

func TestPermit(t *testing.T) {
	for _, d := range doors {
		gang3 := d.group(st.WorkloadGroup("crew").Gang(3))
		tests := []struct {
			name          string
			group         *schedulingv1beta1.PodGroup
			pod           string
			assumed       []string
			waiting       []string
			wantCode      framework.Code
			wantTimeout   time.Duration
			wantOutcomes  map[string]string
			wantActivated []string
		}{
			{name: "a basic group's member goes on", group: d.group(st.WorkloadGroup("crew")), pod: "a", assumed: []string{"a"}},
			{
				name: "the first placed member waits and calls the rest", group: gang3, pod: "a", assumed: []string{"a"},
				wantCode: framework.Wait, wantTimeout: permitTimeout, wantActivated: []string{"default/b", "default/c"},
			},
			{
				name: "the member that completes the gang lets the waiting ones go", group: gang3, pod: "c", assumed: []string{"a", "b", "c"}, waiting: []string{"a", "b"},
				wantOutcomes: map[string]string{"a": "allowed", "b": "allowed"},
			},
		}
		for _, tc := range tests {
			t.Run(d.name+"/"+tc.name, func(t *testing.T) {
				pods := d.crew("a", "b", "c")
				h := handleFor([]*schedulingv1beta1.PodGroup{tc.group}, pods, tc.assumed, tc.waiting)
				pl := newPlugin(t, h)
				var pod *v1.Pod
				for _, p := range pods {
					if p.Name == tc.pod {
						pod = p
					}
				}
				st, timeout := pl.Permit(context.Background(), nil, pod, "node-1")
				if st.Code() != tc.wantCode || timeout != tc.wantTimeout {
					t.Errorf("Permit = %v, %v; want %v, %v", st, timeout, tc.wantCode, tc.wantTimeout)
				}
				sort.Strings(h.activated)
				if diff := cmp.Diff(tc.wantActivated, h.activated); diff != "" {
					t.Errorf("activated (-want +got):\n%s", diff)
				}
				if tc.wantOutcomes != nil {
					if diff := cmp.Diff(tc.wantOutcomes, h.outcomes()); diff != "" {
						t.Errorf("waiting pods (-want +got):\n%s", diff)
					}
				}
			})
		}
	}
}

// TestPermitTimeout checks that only one of Berth's PodGroups with the
// deprecated scheduleTimeoutSeconds waits other than five minutes.
func TestPermitTimeout(t *testing.T) {
	withTimeout := func(b *st.WorkloadGroupBuilder) *schedulingv1beta1.PodGroup {
		pg := b.Gang(2).Obj()
		pg.Annotations = map[string]string{framework.PermitTimeoutAnnotation: "30"}
		return pg
	}
	tests := []struct {
		name  string
		door  door
		group *schedulingv1beta1.PodGroup
		want  time.Duration
	}{
		{name: "Berth's PodGroup with scheduleTimeoutSeconds", door: doors[1], group: withTimeout(st.WorkloadGroup("crew").Berth()), want: 30 * time.Second},
		{name: "Berth's PodGroup without it", door: doors[1], group: st.WorkloadGroup("crew").Berth().Gang(2).Obj(), want: permitTimeout},
		{name: "a native PodGroup ignores the annotation", door: doors[0], group: withTimeout(st.WorkloadGroup("crew")), want: permitTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := tc.door.crew("a", "b")
			pl := newPlugin(t, handleFor([]*schedulingv1beta1.PodGroup{tc.group}, pods, []string{"a"}, nil))
			st, timeout := pl.Permit(context.Background(), nil, pods[0], "node-1")
			if st.Code() != framework.Wait || timeout != tc.want {
				t.Errorf("Permit = %v, %v; want Wait, %v", st, timeout, tc.want)
			}
		})
	}
}

func TestHints(t *testing.T) {
	pl := newPlugin(t, handleFor(nil, nil, nil, nil))
	for _, d := range doors {
		member := d.crew("a")[0]
		gang := func(n int32) *schedulingv1beta1.PodGroup { return d.group(st.WorkloadGroup("crew").Gang(n)) }
		other := doors[0]
		if !d.berth {
			other = doors[1]
		}
		tests := []struct {
			name string
			fn   framework.QueueingHintFn
			old  any
			new  any
			want framework.QueueingHint
		}{
			{name: "a member of the same group arrives", fn: pl.isSchedulableAfterMemberAdded, new: d.crew("b")[0], want: framework.Queue},
			{name: "a member of another group arrives", fn: pl.isSchedulableAfterMemberAdded, new: d.member("x", "other", ""), want: framework.QueueSkip},
			{name: "a member of the namesake of the other kind arrives", fn: pl.isSchedulableAfterMemberAdded, new: other.crew("b")[0], want: framework.QueueSkip},
			{name: "the pod's group is created", fn: pl.isSchedulableAfterGroupAdded, new: gang(3), want: framework.Queue},
			{name: "another group is created", fn: pl.isSchedulableAfterGroupAdded, new: d.group(st.WorkloadGroup("other")), want: framework.QueueSkip},
			{name: "the namesake of the other kind is created", fn: pl.isSchedulableAfterGroupAdded, new: other.group(st.WorkloadGroup("crew").Gang(3)), want: framework.QueueSkip},
			{name: "minCount goes down", fn: pl.isSchedulableAfterGroupUpdated, old: gang(4), new: gang(3), want: framework.Queue},
			{name: "minCount goes up", fn: pl.isSchedulableAfterGroupUpdated, old: gang(3), new: gang(4), want: framework.QueueSkip},
			{name: "the gang becomes basic", fn: pl.isSchedulableAfterGroupUpdated, old: gang(3), new: d.group(st.WorkloadGroup("crew")), want: framework.Queue},
		}
		for _, tc := range tests {
			t.Run(d.name+"/"+tc.name, func(t *testing.T) {
				got, err := tc.fn(logr.Discard(), member, tc.old, tc.new)
				if err != nil || got != tc.want {
					t.Errorf("hint = %v, %v; want %v", got, err, tc.want)
				}
			})
		}
	}
}

// TestPreEnqueueHoldsAMemberOfAnUnreadGroup checks a pod that joins a
// scheduling.k8s.io PodGroup on an apiserver serving PodGroups only in a
// version the scheduler does not read (or in none): it is held with a
// message naming the versions and a warning event, never scheduled alone.
func TestPreEnqueueHoldsAMemberOfAnUnreadGroup(t *testing.T) {
	tests := []struct {
		name    string
		served  []string
		wantMsg string
	}{
		{
			name: "served as v1 only", served: []string{"scheduling.k8s.io/v1"},
			wantMsg: `pod group "crew" cannot be read: the apiserver serves PodGroups as scheduling.k8s.io/v1, which this scheduler does not read (it reads scheduling.k8s.io/v1beta1); the pod waits rather than being scheduled without its group`,
		},
		{
			name:    "served in no version",
			wantMsg: `pod group "crew" cannot be read: the apiserver does not serve scheduling.k8s.io/v1beta1 PodGroups; the pod waits rather than being scheduled without its group`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{workload.MemberIndex: workload.IndexMembers})
			member := doors[0].crew("a")[0]
			if err := pods.Add(member); err != nil {
				t.Fatal(err)
			}
			recorder := events.NewFakeRecorder(1)
			h := &gangHandle{Handle: st.Handle{
				Native: workload.New(pods, func(*v1.Pod) string { return "" }, workload.WithUnreadVersions(tc.served)),
				Events: recorder,
			}}
			got := newPlugin(t, h).PreEnqueue(context.Background(), member)
			if got.Code() != framework.UnschedulableAndUnresolvable || got.Message() != tc.wantMsg {
				t.Errorf("PreEnqueue = %v %q, want %v %q", got.Code(), got.Message(), framework.UnschedulableAndUnresolvable, tc.wantMsg)
			}
			select {
			case e := <-recorder.Events:
				if want := "Warning FailedScheduling " + tc.wantMsg; e != want {
					t.Errorf("event %q, want %q", e, want)
				}
			default:
				t.Error("no event on the pod")
			}
		})
	}
}
