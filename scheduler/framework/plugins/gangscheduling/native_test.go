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

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// crew returns members of the scheduling.k8s.io PodGroup "crew".
func crew(names ...string) []*v1.Pod {
	out := make([]*v1.Pod, len(names))
	for i, n := range names {
		out[i] = st.Pod(n).SchedulingGroup("crew").Obj()
	}
	return out
}

// nativeHandle is a handle over scheduling.k8s.io PodGroups, with pods
// waiting at Permit.
func nativeHandle(groups []*schedulingv1beta1.PodGroup, pods []*v1.Pod, assumed []string, waiting []string) *gangHandle {
	w := &st.Workloads{Groups: groups, Pods: pods, Assumed: map[string]string{}}
	for _, n := range assumed {
		w.Assumed[n] = "node-1"
	}
	h := &gangHandle{Handle: st.Handle{Native: w, Groups: (world{}).handle().Groups}}
	for _, n := range waiting {
		for _, p := range pods {
			if p.Name == n {
				h.waiting = append(h.waiting, &fakeWaiting{pod: p})
			}
		}
	}
	return h
}

func TestNativePreEnqueue(t *testing.T) {
	gang3 := st.WorkloadGroup("crew").Gang(3).Obj()
	basic := st.WorkloadGroup("crew").Obj()
	tests := []struct {
		name     string
		groups   []*schedulingv1beta1.PodGroup
		pods     []*v1.Pod
		pod      *v1.Pod
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "a pod in no group passes", pod: st.Pod("solo").Obj()},
		{name: "a member of Berth's own PodGroup passes", pod: st.Pod("a").Group("trio").Obj()},
		{
			name: "a member waits for its group to exist", pods: crew("a"), pod: crew("a")[0],
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: `waiting for pods's pod group "crew" to appear in scheduling queue`,
		},
		{name: "a basic group's member passes at once", groups: []*schedulingv1beta1.PodGroup{basic}, pods: crew("a"), pod: crew("a")[0]},
		{
			name: "a gang's member waits for minCount pods", groups: []*schedulingv1beta1.PodGroup{gang3}, pods: crew("a", "b"), pod: crew("a")[0],
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: msgAwaitingMinCount,
		},
		{name: "a gang with minCount pods passes", groups: []*schedulingv1beta1.PodGroup{gang3}, pods: crew("a", "b", "c"), pod: crew("a")[0]},
		{
			name: "bound members count", groups: []*schedulingv1beta1.PodGroup{gang3},
			pods: append(crew("a", "b"), st.Pod("c").SchedulingGroup("crew").NodeName("node-1").Obj()), pod: crew("a")[0],
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, nativeHandle(tc.groups, tc.pods, nil, nil))
			st := pl.PreEnqueue(context.Background(), tc.pod)
			if st.Code() != tc.wantCode || st.Message() != tc.wantMsg {
				t.Errorf("PreEnqueue = %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMsg)
			}
		})
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
	pl := newPlugin(t, nativeHandle(nil, nil, nil, nil))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := pl.PlacementFeasible(context.Background(), tc.group, tc.progress)
			if st.Code() != tc.wantCode || st.Message() != tc.wantMsg {
				t.Errorf("PlacementFeasible = %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMsg)
			}
		})
	}
}

func TestNativePermit(t *testing.T) {
	gang3 := st.WorkloadGroup("crew").Gang(3).Obj()
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
		{name: "a basic group's member goes on", group: st.WorkloadGroup("crew").Obj(), pod: "a", assumed: []string{"a"}},
		{
			name: "the first placed member waits and calls the rest", group: gang3, pod: "a", assumed: []string{"a"},
			wantCode: framework.Wait, wantTimeout: nativePermitTimeout, wantActivated: []string{"default/b", "default/c"},
		},
		{
			name: "the member that completes the gang lets the waiting ones go", group: gang3, pod: "c", assumed: []string{"a", "b", "c"}, waiting: []string{"a", "b"},
			wantOutcomes: map[string]string{"a": "allowed", "b": "allowed"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := crew("a", "b", "c")
			h := nativeHandle([]*schedulingv1beta1.PodGroup{tc.group}, pods, tc.assumed, tc.waiting)
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

func TestNativeHints(t *testing.T) {
	member := crew("a")[0]
	other := st.Pod("x").SchedulingGroup("other").Obj()
	gang := func(n int32) *schedulingv1beta1.PodGroup { return st.WorkloadGroup("crew").Gang(n).Obj() }
	tests := []struct {
		name string
		fn   framework.QueueingHintFn
		old  any
		new  any
		want framework.QueueingHint
	}{
		{name: "a member of the same group arrives", fn: isSchedulableAfterNativeMemberAdded, new: crew("b")[0], want: framework.Queue},
		{name: "a member of another group arrives", fn: isSchedulableAfterNativeMemberAdded, new: other, want: framework.QueueSkip},
		{name: "the pod's group is created", fn: isSchedulableAfterNativeGroupAdded, new: gang(3), want: framework.Queue},
		{name: "another group is created", fn: isSchedulableAfterNativeGroupAdded, new: st.WorkloadGroup("other").Obj(), want: framework.QueueSkip},
		{name: "minCount goes down", fn: isSchedulableAfterNativeGroupUpdated, old: gang(4), new: gang(3), want: framework.Queue},
		{name: "minCount goes up", fn: isSchedulableAfterNativeGroupUpdated, old: gang(3), new: gang(4), want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.fn(logr.Discard(), member, tc.old, tc.new)
			if err != nil || got != tc.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
