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

package volumerestrictions

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
)

const (
	rwo  = v1.ReadWriteOnce
	rwop = v1.ReadWriteOncePod
)

func TestPreFilter(t *testing.T) {
	claims := []*v1.PersistentVolumeClaim{pvc("rwo", rwo), pvc("rwop", rwop), pvc("both", rwo, rwop), pvc("free", rwop)}
	used := []string{"default/rwo", "default/rwop", "default/both", "other/free"}
	tests := []struct {
		name    string
		pod     *v1.Pod
		want    *framework.Status
		holders int
	}{
		{"no volumes", makePod("p").obj(), framework.NewStatus(framework.Skip), 0},
		{"unpoliced volume", makePod("p").emptyDir().obj(), framework.NewStatus(framework.Skip), 0},
		{"ReadWriteOnce claim in use", makePod("p").claim("rwo").obj(), framework.NewStatus(framework.Skip), 0},
		{"ReadWriteOncePod claim used only in another namespace", makePod("p").claim("free").obj(), framework.NewStatus(framework.Skip), 0},
		{"ReadWriteOncePod claim in use", makePod("p").claim("rwop").obj(), nil, 1},
		{"claim with several modes including ReadWriteOncePod", makePod("p").claim("both").claim("rwop").obj(), nil, 2},
		{"inline disk alone", makePod("p").gce("d", false).obj(), nil, 0},
		{"missing claim", makePod("p").claim("gone").obj(),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolumeclaim "gone" not found`), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, used, claims...)
			state := framework.NewCycleState()
			res, st := pl.PreFilter(context.Background(), state, tt.pod, nil)
			if res != nil {
				t.Errorf("PreFilter result = %v, want nil", res)
			}
			if !st.Equal(tt.want) {
				t.Fatalf("PreFilter = %v, want %v", st, tt.want)
			}
			s, err := framework.ReadState[*preFilterState](state, stateKey)
			if !st.IsSuccess() {
				if err == nil {
					t.Error("state written for a skipped or rejected pod")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.holders != tt.holders {
				t.Errorf("holders = %d, want %d", s.holders, tt.holders)
			}
		})
	}
}

func TestFilterDiskConflicts(t *testing.T) {
	tests := []struct {
		name     string
		pod      *podBuilder
		existing []*v1.Pod
		conflict bool
	}{
		{"empty node", makePod("p").gce("d", false), nil, false},
		{"GCE same disk read-write", makePod("p").gce("d", false), []*v1.Pod{makePod("e").gce("d", true).obj()}, true},
		{"GCE same disk both read-only", makePod("p").gce("d", true), []*v1.Pod{makePod("e").gce("d", true).obj()}, false},
		{"GCE other disk", makePod("p").gce("d", false), []*v1.Pod{makePod("e").gce("x", false).obj()}, false},
		{"EBS same volume read-only", makePod("p").ebs("vol-1", true), []*v1.Pod{makePod("e").ebs("vol-1", true).obj()}, true},
		{"EBS other volume", makePod("p").ebs("vol-1", false), []*v1.Pod{makePod("e").ebs("vol-2", false).obj()}, false},
		{"iSCSI same IQN read-write", makePod("p").iscsi("iqn.a", true), []*v1.Pod{makePod("e").iscsi("iqn.a", false).obj()}, true},
		{"iSCSI same IQN both read-only", makePod("p").iscsi("iqn.a", true), []*v1.Pod{makePod("e").iscsi("iqn.a", true).obj()}, false},
		{"iSCSI other IQN", makePod("p").iscsi("iqn.a", false), []*v1.Pod{makePod("e").iscsi("iqn.b", false).obj()}, false},
		{"RBD shared monitor, same pool and image", makePod("p").rbd("pool", "img", false, "m1", "m2"),
			[]*v1.Pod{makePod("e").rbd("pool", "img", false, "m3", "m2").obj()}, true},
		{"RBD no shared monitor", makePod("p").rbd("pool", "img", false, "m1"),
			[]*v1.Pod{makePod("e").rbd("pool", "img", false, "m2").obj()}, false},
		{"RBD other pool", makePod("p").rbd("pool", "img", false, "m1"),
			[]*v1.Pod{makePod("e").rbd("other", "img", false, "m1").obj()}, false},
		{"RBD other image", makePod("p").rbd("pool", "img", false, "m1"),
			[]*v1.Pod{makePod("e").rbd("pool", "other", false, "m1").obj()}, false},
		{"RBD both read-only", makePod("p").rbd("pool", "img", true, "m1"),
			[]*v1.Pod{makePod("e").rbd("pool", "img", true, "m1").obj()}, false},
		{"different kinds never conflict", makePod("p").gce("d", false), []*v1.Pod{makePod("e").ebs("d", false).iscsi("d", false).obj()}, false},
		{"second of several pods conflicts", makePod("p").emptyDir().ebs("vol-1", false),
			[]*v1.Pod{makePod("e1").ebs("vol-2", false).obj(), makePod("e2").emptyDir().ebs("vol-1", false).obj()}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, nil)
			state := framework.NewCycleState()
			pod := tt.pod.obj()
			if _, st := pl.PreFilter(context.Background(), state, pod, nil); !st.IsSuccess() {
				t.Fatalf("PreFilter = %v", st)
			}
			got := pl.Filter(context.Background(), state, pod, nodeWith(tt.existing...))
			var want *framework.Status
			if tt.conflict {
				want = framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)
			}
			if !got.Equal(want) {
				t.Errorf("Filter = %v, want %v", got, want)
			}
		})
	}
}

func TestFilterReadWriteOncePod(t *testing.T) {
	pl := newPlugin(t, []string{"default/rwop"}, pvc("rwop", rwop))
	pod := makePod("p").claim("rwop").obj()
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), state, pod, nil); !st.IsSuccess() {
		t.Fatalf("PreFilter = %v", st)
	}
	want := framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	// The claim is held elsewhere, so every node is rejected, empty or not.
	for _, ni := range []*framework.NodeInfo{nodeWith(), nodeWith(makePod("other").obj())} {
		if got := pl.Filter(context.Background(), state, pod, ni); !got.Equal(want) {
			t.Errorf("Filter = %v, want %v", got, want)
		}
	}
	// A disk conflict is reported first.
	podWithDisk := makePod("p").claim("rwop").ebs("vol", false).obj()
	state = framework.NewCycleState()
	pl.PreFilter(context.Background(), state, podWithDisk, nil)
	got := pl.Filter(context.Background(), state, podWithDisk, nodeWith(makePod("e").ebs("vol", false).obj()))
	if !got.Equal(framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)) {
		t.Errorf("Filter = %v, want the disk conflict", got)
	}
	// Without PreFilter state, Filter reports an error.
	if got := pl.Filter(context.Background(), framework.NewCycleState(), pod, nodeWith()); got.Code() != framework.Error {
		t.Errorf("Filter without state = %v, want Error", got)
	}
}

func TestPreFilterExtensions(t *testing.T) {
	pl := newPlugin(t, []string{"default/rwop"}, pvc("rwop", rwop), pvc("rwo", rwo))
	pod := makePod("p").claim("rwop").claim("rwo").obj()
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), state, pod, nil); !st.IsSuccess() {
		t.Fatalf("PreFilter = %v", st)
	}
	ctx, ni := context.Background(), nodeWith()
	holder := makePod("holder").claim("rwop").info()
	conflict := framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	ext := pl.PreFilterExtensions()

	snapshot := state.Clone()
	if st := ext.RemovePod(ctx, state, pod, holder, ni); !st.IsSuccess() {
		t.Fatal(st)
	}
	if got := pl.Filter(ctx, state, pod, ni); !got.IsSuccess() {
		t.Errorf("after removing the holder: Filter = %v, want Success", got)
	}
	if got := pl.Filter(ctx, snapshot, pod, ni); !got.Equal(conflict) {
		t.Errorf("clone changed with the original: Filter = %v", got)
	}
	for _, p := range []*framework.PodInfo{
		makePod("x").claim("rwo").info(),              // not a ReadWriteOncePod claim of the pod
		makePod("y").ns("other").claim("rwop").info(), // same claim name, other namespace
	} {
		ext.AddPod(ctx, state, pod, p, ni)
		if got := pl.Filter(ctx, state, pod, ni); !got.IsSuccess() {
			t.Errorf("after adding %s: Filter = %v, want Success", p.Pod.Name, got)
		}
	}
	ext.AddPod(ctx, state, pod, holder, ni)
	if got := pl.Filter(ctx, state, pod, ni); !got.Equal(conflict) {
		t.Errorf("after adding the holder back: Filter = %v, want %v", got, conflict)
	}
	if st := ext.AddPod(ctx, framework.NewCycleState(), pod, holder, ni); st.Code() != framework.Error {
		t.Errorf("AddPod without state = %v, want Error", st)
	}
	if st := ext.RemovePod(ctx, framework.NewCycleState(), pod, holder, ni); st.Code() != framework.Error {
		t.Errorf("RemovePod without state = %v, want Error", st)
	}
}

func TestEventsToRegister(t *testing.T) {
	pl := newPlugin(t, nil)
	events, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		ev      framework.ClusterEvent
		hasHint bool
	}{
		{framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}, true},
		{framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, false},
		{framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add}, true},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for i, w := range want {
		if events[i].Event != w.ev || (events[i].QueueingHintFn != nil) != w.hasHint {
			t.Errorf("event %d = %v (hint %v), want %v (hint %v)", i, events[i].Event, events[i].QueueingHintFn != nil, w.ev, w.hasHint)
		}
	}
}

func TestIsSchedulableAfterPodDeleted(t *testing.T) {
	pod := makePod("p").gce("d", false).claim("c").obj()
	tests := []struct {
		name   string
		oldObj any
		want   framework.QueueingHint
		err    bool
	}{
		{"conflicting disk", makePod("e").gce("d", true).obj(), framework.Queue, false},
		{"same claim", makePod("e").claim("c").obj(), framework.Queue, false},
		{"tombstone of a pod with the same claim", cache.DeletedFinalStateUnknown{Obj: makePod("e").claim("c").obj()}, framework.Queue, false},
		{"other namespace", makePod("e").ns("other").gce("d", false).claim("c").obj(), framework.QueueSkip, false},
		{"unrelated volumes", makePod("e").gce("x", false).claim("other").emptyDir().obj(), framework.QueueSkip, false},
		{"no volumes", makePod("e").obj(), framework.QueueSkip, false},
		{"wrong type", &v1.Node{}, framework.Queue, true},
	}
	pl := newPlugin(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterPodDeleted(logr.Discard(), pod, tt.oldObj, nil)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("hint = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestIsSchedulableAfterClaimAdded(t *testing.T) {
	pod := makePod("p").claim("c").obj()
	other := pvc("c", rwop)
	other.Namespace = "other"
	tests := []struct {
		name   string
		newObj any
		want   framework.QueueingHint
		err    bool
	}{
		{"claim of the pod", pvc("c", rwop), framework.Queue, false},
		{"other claim", pvc("x", rwop), framework.QueueSkip, false},
		{"same name in another namespace", other, framework.QueueSkip, false},
		{"wrong type", &v1.Pod{}, framework.Queue, true},
	}
	pl := newPlugin(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterClaimAdded(logr.Discard(), pod, nil, tt.newObj)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("hint = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), []byte(`{"x":1}`), newPlugin(t, nil).handle); err == nil {
		t.Error("unknown args: want error")
	}
	if _, err := New(context.Background(), nil, nil); err == nil {
		t.Error("nil handle: want error")
	}
	if got := newPlugin(t, nil).Name(); got != Name || Name != "VolumeRestrictions" {
		t.Errorf("Name() = %q", got)
	}
}
