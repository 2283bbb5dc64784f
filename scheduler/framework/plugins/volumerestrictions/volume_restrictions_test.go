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
	st "github.com/berth-io/berth/scheduler/schedtest"
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
		{"no volumes", st.Pod("p").Obj(), framework.NewStatus(framework.Skip), 0},
		{"unpoliced volume", st.Pod("p").EmptyDir("scratch").Obj(), framework.NewStatus(framework.Skip), 0},
		{"ReadWriteOnce claim in use", st.Pod("p").PVC("rwo").Obj(), framework.NewStatus(framework.Skip), 0},
		{"ReadWriteOncePod claim used only in another namespace", st.Pod("p").PVC("free").Obj(), framework.NewStatus(framework.Skip), 0},
		{"ReadWriteOncePod claim in use", st.Pod("p").PVC("rwop").Obj(), nil, 1},
		{"claim with several modes including ReadWriteOncePod", st.Pod("p").PVC("both").PVC("rwop").Obj(), nil, 2},
		{"inline disk alone", st.Pod("p").Volumes(gce("d", false)).Obj(), nil, 0},
		{"missing claim", st.Pod("p").PVC("gone").Obj(),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolumeclaim "gone" not found`), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, used, claims...)
			state := framework.NewCycleState()
			res, status := pl.PreFilter(context.Background(), state, tt.pod, nil)
			if res != nil {
				t.Errorf("PreFilter result = %v, want nil", res)
			}
			if !status.Equal(tt.want) {
				t.Fatalf("PreFilter = %v, want %v", status, tt.want)
			}
			s, err := framework.ReadState[*preFilterState](state, stateKey)
			if !status.IsSuccess() {
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
		pod      *st.PodBuilder
		existing []*v1.Pod
		conflict bool
	}{
		{"empty node", st.Pod("p").Volumes(gce("d", false)), nil, false},
		{"GCE same disk read-write", st.Pod("p").Volumes(gce("d", false)), []*v1.Pod{st.Pod("e").Volumes(gce("d", true)).Obj()}, true},
		{"GCE same disk both read-only", st.Pod("p").Volumes(gce("d", true)), []*v1.Pod{st.Pod("e").Volumes(gce("d", true)).Obj()}, false},
		{"GCE other disk", st.Pod("p").Volumes(gce("d", false)), []*v1.Pod{st.Pod("e").Volumes(gce("x", false)).Obj()}, false},
		{"EBS same volume read-only", st.Pod("p").Volumes(ebs("vol-1", true)), []*v1.Pod{st.Pod("e").Volumes(ebs("vol-1", true)).Obj()}, true},
		{"EBS other volume", st.Pod("p").Volumes(ebs("vol-1", false)), []*v1.Pod{st.Pod("e").Volumes(ebs("vol-2", false)).Obj()}, false},
		{"iSCSI same IQN read-write", st.Pod("p").Volumes(iscsi("iqn.a", true)), []*v1.Pod{st.Pod("e").Volumes(iscsi("iqn.a", false)).Obj()}, true},
		{"iSCSI same IQN both read-only", st.Pod("p").Volumes(iscsi("iqn.a", true)), []*v1.Pod{st.Pod("e").Volumes(iscsi("iqn.a", true)).Obj()}, false},
		{"iSCSI other IQN", st.Pod("p").Volumes(iscsi("iqn.a", false)), []*v1.Pod{st.Pod("e").Volumes(iscsi("iqn.b", false)).Obj()}, false},
		{"RBD shared monitor, same pool and image", st.Pod("p").Volumes(rbd("pool", "img", false, "m1", "m2")),
			[]*v1.Pod{st.Pod("e").Volumes(rbd("pool", "img", false, "m3", "m2")).Obj()}, true},
		{"RBD no shared monitor", st.Pod("p").Volumes(rbd("pool", "img", false, "m1")),
			[]*v1.Pod{st.Pod("e").Volumes(rbd("pool", "img", false, "m2")).Obj()}, false},
		{"RBD other pool", st.Pod("p").Volumes(rbd("pool", "img", false, "m1")),
			[]*v1.Pod{st.Pod("e").Volumes(rbd("other", "img", false, "m1")).Obj()}, false},
		{"RBD other image", st.Pod("p").Volumes(rbd("pool", "img", false, "m1")),
			[]*v1.Pod{st.Pod("e").Volumes(rbd("pool", "other", false, "m1")).Obj()}, false},
		{"RBD both read-only", st.Pod("p").Volumes(rbd("pool", "img", true, "m1")),
			[]*v1.Pod{st.Pod("e").Volumes(rbd("pool", "img", true, "m1")).Obj()}, false},
		{"different kinds never conflict", st.Pod("p").Volumes(gce("d", false)), []*v1.Pod{st.Pod("e").Volumes(ebs("d", false)).Volumes(iscsi("d", false)).Obj()}, false},
		{"second of several pods conflicts", st.Pod("p").EmptyDir("scratch").Volumes(ebs("vol-1", false)),
			[]*v1.Pod{st.Pod("e1").Volumes(ebs("vol-2", false)).Obj(), st.Pod("e2").EmptyDir("scratch").Volumes(ebs("vol-1", false)).Obj()}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, nil)
			state := framework.NewCycleState()
			pod := tt.pod.Obj()
			if _, status := pl.PreFilter(context.Background(), state, pod, nil); !status.IsSuccess() {
				t.Fatalf("PreFilter = %v", status)
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
	pod := st.Pod("p").PVC("rwop").Obj()
	state := framework.NewCycleState()
	if _, status := pl.PreFilter(context.Background(), state, pod, nil); !status.IsSuccess() {
		t.Fatalf("PreFilter = %v", status)
	}
	want := framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	// The claim is held elsewhere, so every node is rejected, empty or not.
	for _, ni := range []*framework.NodeInfo{nodeWith(), nodeWith(st.Pod("other").Obj())} {
		if got := pl.Filter(context.Background(), state, pod, ni); !got.Equal(want) {
			t.Errorf("Filter = %v, want %v", got, want)
		}
	}
	// A disk conflict is reported first.
	podWithDisk := st.Pod("p").PVC("rwop").Volumes(ebs("vol", false)).Obj()
	state = framework.NewCycleState()
	pl.PreFilter(context.Background(), state, podWithDisk, nil)
	got := pl.Filter(context.Background(), state, podWithDisk, nodeWith(st.Pod("e").Volumes(ebs("vol", false)).Obj()))
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
	pod := st.Pod("p").PVC("rwop").PVC("rwo").Obj()
	state := framework.NewCycleState()
	if _, status := pl.PreFilter(context.Background(), state, pod, nil); !status.IsSuccess() {
		t.Fatalf("PreFilter = %v", status)
	}
	ctx, ni := context.Background(), nodeWith()
	holder := st.Pod("holder").PVC("rwop").Info()
	conflict := framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	ext := pl.PreFilterExtensions()

	snapshot := state.Clone()
	if status := ext.RemovePod(ctx, state, pod, holder, ni); !status.IsSuccess() {
		t.Fatal(status)
	}
	if got := pl.Filter(ctx, state, pod, ni); !got.IsSuccess() {
		t.Errorf("after removing the holder: Filter = %v, want Success", got)
	}
	if got := pl.Filter(ctx, snapshot, pod, ni); !got.Equal(conflict) {
		t.Errorf("clone changed with the original: Filter = %v", got)
	}
	for _, p := range []*framework.PodInfo{
		st.Pod("x").PVC("rwo").Info(),                     // not a ReadWriteOncePod claim of the pod
		st.Pod("y").Namespace("other").PVC("rwop").Info(), // same claim name, other namespace
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
	if status := ext.AddPod(ctx, framework.NewCycleState(), pod, holder, ni); status.Code() != framework.Error {
		t.Errorf("AddPod without state = %v, want Error", status)
	}
	if status := ext.RemovePod(ctx, framework.NewCycleState(), pod, holder, ni); status.Code() != framework.Error {
		t.Errorf("RemovePod without state = %v, want Error", status)
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
	pod := st.Pod("p").Volumes(gce("d", false)).PVC("c").Obj()
	tests := []struct {
		name   string
		oldObj any
		want   framework.QueueingHint
		err    bool
	}{
		{"conflicting disk", st.Pod("e").Volumes(gce("d", true)).Obj(), framework.Queue, false},
		{"same claim", st.Pod("e").PVC("c").Obj(), framework.Queue, false},
		{"tombstone of a pod with the same claim", cache.DeletedFinalStateUnknown{Obj: st.Pod("e").PVC("c").Obj()}, framework.Queue, false},
		{"other namespace", st.Pod("e").Namespace("other").Volumes(gce("d", false)).PVC("c").Obj(), framework.QueueSkip, false},
		{"unrelated volumes", st.Pod("e").Volumes(gce("x", false)).PVC("other").EmptyDir("scratch").Obj(), framework.QueueSkip, false},
		{"no volumes", st.Pod("e").Obj(), framework.QueueSkip, false},
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
	pod := st.Pod("p").PVC("c").Obj()
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
