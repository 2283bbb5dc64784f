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
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// trio is a PodGroup of minMember 3 with a 30 s timeout.
func trio() *v1alpha1.PodGroup {
	pg := st.PodGroup("trio", 3).Obj()
	pg.Spec.ScheduleTimeoutSeconds = ptr.To[int32](30)
	return pg
}

func members(names ...string) []*v1.Pod {
	out := make([]*v1.Pod, len(names))
	for i, n := range names {
		out[i] = st.Pod(n).Group("trio").Obj()
	}
	return out
}

func newPlugin(t *testing.T, h framework.Handle) *GangScheduling {
	t.Helper()
	pl, err := New(context.Background(), nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*GangScheduling)
}

func TestPreFilter(t *testing.T) {
	bound := st.Pod("b").Group("trio").NodeName("n1").Obj()
	tests := []struct {
		name     string
		world    world
		pod      *v1.Pod
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "a pod in no group is skipped", pod: st.Pod("solo").Obj(), wantCode: framework.Skip},
		{
			name: "an unknown group keeps the member pending", pod: st.Pod("a").Group("ghost").Obj(),
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "pod group default/ghost is not known: PodGroup default/ghost does not exist",
		},
		{
			name: "too few members", world: world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b")}, pod: members("a")[0],
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "pod group default/trio has 2 of the 3 pods it needs",
		},
		{name: "enough members", world: world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c")}, pod: members("a")[0]},
		{
			name: "a formed gang takes late members", world: world{groups: []*v1alpha1.PodGroup{st.PodGroup("trio", 1).Obj()}, pods: []*v1.Pod{bound, members("a")[0]}},
			pod: members("a")[0],
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, tt.world.handle())
			_, status := pl.PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil)
			if status.Code() != tt.wantCode || status.Message() != tt.wantMsg {
				t.Errorf("PreFilter = %v %q, want %v %q", status.Code(), status.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestPermit(t *testing.T) {
	other := st.Pod("x").Group("other").Obj()
	tests := []struct {
		name          string
		world         world
		pod           string
		wantCode      framework.Code
		wantTimeout   time.Duration
		wantOutcomes  map[string]string
		wantActivated []string
	}{
		{name: "a pod in no group passes", world: world{pods: []*v1.Pod{st.Pod("solo").Obj()}}, pod: "solo", wantOutcomes: map[string]string{}},
		{
			name:  "the first member waits and pulls the others forward",
			world: world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c"), assumed: []string{"a"}},
			pod:   "a", wantCode: framework.Wait, wantTimeout: 30 * time.Second,
			wantOutcomes: map[string]string{}, wantActivated: []string{"default/b", "default/c"},
		},
		{
			name: "the member that completes the gang releases the waiting ones, not another group's",
			world: world{
				groups: []*v1alpha1.PodGroup{trio(), st.PodGroup("other", 2).Obj()},
				pods:   append(members("a", "b", "c"), other), assumed: []string{"a", "b", "c", "x"}, waiting: []string{"a", "b", "x"},
			},
			pod:          "c",
			wantOutcomes: map[string]string{"a": "allowed", "b": "allowed", "x": "waiting"},
		},
		{
			name:  "the pod itself counts before the member index sees it",
			world: world{groups: []*v1alpha1.PodGroup{st.PodGroup("trio", 1).Obj()}},
			pod:   "a", wantOutcomes: map[string]string{},
		},
		{
			name:  "without a timeout the default applies",
			world: world{groups: []*v1alpha1.PodGroup{st.PodGroup("trio", 2).Obj()}, pods: members("a", "b"), assumed: []string{"a"}},
			pod:   "a", wantCode: framework.Wait, wantTimeout: time.Minute,
			wantOutcomes: map[string]string{}, wantActivated: []string{"default/b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.world.handle()
			pl := newPlugin(t, h)
			pod := members(tt.pod)[0]
			for _, p := range tt.world.pods {
				if p.Name == tt.pod {
					pod = p
				}
			}
			status, timeout := pl.Permit(context.Background(), framework.NewCycleState(), pod, "n1")
			if status.Code() != tt.wantCode || timeout != tt.wantTimeout {
				t.Errorf("Permit = %v %q, %v; want %v, %v", status.Code(), status.Message(), timeout, tt.wantCode, tt.wantTimeout)
			}
			if diff := cmp.Diff(tt.wantOutcomes, h.outcomes()); diff != "" {
				t.Errorf("waiting pods (-want +got):\n%s", diff)
			}
			sort.Strings(h.activated)
			if diff := cmp.Diff(tt.wantActivated, h.activated); diff != "" {
				t.Errorf("activated (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRelease covers PostFilter and Unreserve, which free the members held
// at Permit when the gang cannot form.
func TestRelease(t *testing.T) {
	tests := []struct {
		name         string
		world        world
		wantOutcomes map[string]string
		wantMsg      string
	}{
		{
			name:         "a gang with no spare member is released",
			world:        world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c"), assumed: []string{"a", "b"}, waiting: []string{"a", "b"}},
			wantOutcomes: map[string]string{"a": "rejected", "b": "rejected"},
			wantMsg:      "pod group default/trio cannot place 3 pods; released 2 members waiting at Permit",
		},
		{
			name:         "a spare member could still complete the gang",
			world:        world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c", "d"), assumed: []string{"a", "b"}, waiting: []string{"a", "b"}},
			wantOutcomes: map[string]string{"a": "waiting", "b": "waiting"},
		},
		{
			name:         "a formed gang is left alone",
			world:        world{groups: []*v1alpha1.PodGroup{st.PodGroup("trio", 2).Obj()}, pods: members("a", "b", "c"), assumed: []string{"a", "b"}, waiting: []string{"a", "b"}},
			wantOutcomes: map[string]string{"a": "waiting", "b": "waiting"},
		},
	}
	for _, tt := range tests {
		t.Run("PostFilter/"+tt.name, func(t *testing.T) {
			h := tt.world.handle()
			_, status := newPlugin(t, h).PostFilter(context.Background(), framework.NewCycleState(), members("c")[0], nil)
			if status.Code() != framework.Unschedulable || status.Message() != tt.wantMsg {
				t.Errorf("PostFilter = %v %q, want Unschedulable %q", status.Code(), status.Message(), tt.wantMsg)
			}
			if diff := cmp.Diff(tt.wantOutcomes, h.outcomes()); diff != "" {
				t.Errorf("waiting pods (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("Unreserve releases the others while the gang is below minMember", func(t *testing.T) {
		h := world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c"), assumed: []string{"a", "b"}, waiting: []string{"a", "b"}}.handle()
		newPlugin(t, h).Unreserve(context.Background(), framework.NewCycleState(), members("a")[0], "n1")
		if diff := cmp.Diff(map[string]string{"a": "waiting", "b": "rejected"}, h.outcomes()); diff != "" {
			t.Errorf("waiting pods (-want +got):\n%s", diff)
		}
		if got, want := h.waiting[1].rejected, "pod group default/trio was released: member a was not bound"; got != want {
			t.Errorf("rejection = %q, want %q", got, want)
		}
	})
	t.Run("Unreserve leaves a formed gang alone", func(t *testing.T) {
		h := world{groups: []*v1alpha1.PodGroup{st.PodGroup("trio", 2).Obj()}, pods: members("a", "b", "c"), assumed: []string{"a", "b", "c"}, waiting: []string{"b"}}.handle()
		newPlugin(t, h).Unreserve(context.Background(), framework.NewCycleState(), members("a")[0], "n1")
		if diff := cmp.Diff(map[string]string{"b": "waiting"}, h.outcomes()); diff != "" {
			t.Errorf("waiting pods (-want +got):\n%s", diff)
		}
	})
}

func TestQueueingHints(t *testing.T) {
	pod := st.Pod("a").Group("trio").Obj()
	updated := trio()
	updated.Generation = 2
	tests := []struct {
		name           string
		fn             framework.QueueingHintFn
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "another member arrives", fn: isSchedulableAfterMemberAdded, newObj: st.Pod("b").Group("trio").Obj(), want: framework.Queue},
		{name: "a pod of another group arrives", fn: isSchedulableAfterMemberAdded, newObj: st.Pod("b").Group("other").Obj(), want: framework.QueueSkip},
		{name: "a pod in no group arrives", fn: isSchedulableAfterMemberAdded, newObj: st.Pod("solo").Obj(), want: framework.QueueSkip},
		{name: "the same group in another namespace", fn: isSchedulableAfterMemberAdded, newObj: st.Pod("b").Group("trio").Namespace("ns2").Obj(), want: framework.QueueSkip},
		{name: "the PodGroup appears", fn: isSchedulableAfterPodGroupChange, newObj: trio(), want: framework.Queue},
		{name: "the PodGroup's spec changes", fn: isSchedulableAfterPodGroupChange, oldObj: trio(), newObj: updated, want: framework.Queue},
		{name: "only its status changes", fn: isSchedulableAfterPodGroupChange, oldObj: trio(), newObj: trio(), want: framework.QueueSkip},
		{name: "another PodGroup appears", fn: isSchedulableAfterPodGroupChange, newObj: st.PodGroup("other", 1).Obj(), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn(logr.Discard(), pod, tt.oldObj, tt.newObj)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
