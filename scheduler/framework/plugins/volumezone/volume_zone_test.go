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

package volumezone

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const wffc = storagev1.VolumeBindingWaitForFirstConsumer

// objects is the cluster the Filter tests run against.
func objects() []runtime.Object {
	return []runtime.Object{
		pv("pv-a", zoneGA, "a"),
		pv("pv-ab", zoneGA, "a__b"),
		pv("pv-beta-a", zoneBeta, "a"),
		pv("pv-a-r1", zoneGA, "a", regionGA, "r1"),
		pv("pv-beta-r1", regionBeta, "r1"),
		pv("pv-none"),
		pv("pv-bad", zoneGA, "a____b"),
		boundClaim("c-a", "pv-a"), boundClaim("c-ab", "pv-ab"), boundClaim("c-beta-a", "pv-beta-a"),
		boundClaim("c-a-r1", "pv-a-r1"), boundClaim("c-beta-r1", "pv-beta-r1"),
		boundClaim("c-none", "pv-none"), boundClaim("c-bad", "pv-bad"),
		unboundClaim("c-wffc", "late"), storageClass("late", wffc),
	}
}

func TestFilter(t *testing.T) {
	conflict := framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	skip := framework.NewStatus(framework.Skip)
	tests := []struct {
		name      string
		pod       *v1.Pod
		node      []string
		prefilter *framework.Status
		want      *framework.Status
	}{
		{"same zone", podWithClaims("c-a"), []string{zoneGA, "a"}, nil, nil},
		{"other zone", podWithClaims("c-a"), []string{zoneGA, "b"}, nil, conflict},
		{"node without topology labels", podWithClaims("c-a"), []string{"other", "x"}, nil, nil},
		{"node with region only", podWithClaims("c-a"), []string{regionGA, "r1"}, nil, conflict},
		{"multi-zone volume", podWithClaims("c-ab"), []string{zoneGA, "b"}, nil, nil},
		{"multi-zone volume, other zone", podWithClaims("c-ab"), []string{zoneGA, "c"}, nil, conflict},
		{"beta volume label matches GA node label", podWithClaims("c-beta-a"), []string{zoneGA, "a"}, nil, nil},
		{"beta volume label matches beta node label", podWithClaims("c-beta-a"), []string{zoneBeta, "a"}, nil, nil},
		{"beta volume label, GA node label differs", podWithClaims("c-beta-a"), []string{zoneGA, "b"}, nil, conflict},
		{"GA volume label does not match beta node label", podWithClaims("c-a"), []string{zoneBeta, "a"}, nil, conflict},
		{"beta region matches GA region", podWithClaims("c-beta-r1"), []string{regionGA, "r1"}, nil, nil},
		{"zone and region both match", podWithClaims("c-a-r1"), []string{zoneGA, "a", regionGA, "r1"}, nil, nil},
		{"zone matches, region does not", podWithClaims("c-a-r1"), []string{zoneGA, "a", regionGA, "r2"}, nil, conflict},
		{"second claim conflicts", podWithClaims("c-ab", "c-a"), []string{zoneGA, "b"}, nil, conflict},
		{"WaitForFirstConsumer claim ignored", podWithClaims("c-wffc", "c-a"), []string{zoneGA, "a"}, nil, nil},
		{"only a WaitForFirstConsumer claim", podWithClaims("c-wffc"), []string{zoneGA, "a"}, skip, nil},
		{"volume without topology labels", podWithClaims("c-none"), []string{zoneGA, "a"}, skip, nil},
		{"unparsable volume label ignored", podWithClaims("c-bad"), []string{zoneGA, "z"}, skip, nil},
		{"no claims", podWithClaims(), []string{zoneGA, "a"}, skip, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, objects()...)
			state := framework.NewCycleState()
			_, status := pl.PreFilter(context.Background(), state, tt.pod, nil)
			if !status.Equal(tt.prefilter) {
				t.Fatalf("PreFilter = %v, want %v", status, tt.prefilter)
			}
			if status.IsSkip() {
				return
			}
			ni := nodeInfo(tt.node...)
			if got := pl.Filter(context.Background(), state, tt.pod, ni); !got.Equal(tt.want) {
				t.Errorf("Filter = %v, want %v", got, tt.want)
			}
			// Without PreFilter state, Filter works the topology out itself.
			if got := pl.Filter(context.Background(), framework.NewCycleState(), tt.pod, ni); !got.Equal(tt.want) {
				t.Errorf("Filter without state = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPreFilterErrors(t *testing.T) {
	objs := []runtime.Object{
		boundClaim("c-lost", "pv-gone"), unboundClaim("c-noclass", ""), unboundClaim("c-nosc", "gone"),
		unboundClaim("c-nomode", "nomode"), storageClass("nomode", ""),
		unboundClaim("c-immediate", "now"), storageClass("now", storagev1.VolumeBindingImmediate),
	}
	unresolvable := func(msg string) *framework.Status {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		want *framework.Status
	}{
		{"claim without name", podWithClaims(""), unresolvable("PersistentVolumeClaim had no name")},
		{"missing claim", podWithClaims("gone"), unresolvable(`persistentvolumeclaim "gone" not found`)},
		{"missing volume", podWithClaims("c-lost"), unresolvable(`persistentvolume "pv-gone" not found`)},
		{"unbound claim without class", podWithClaims("c-noclass"), unresolvable("PersistentVolumeClaim had no pv name and storageClass name")},
		{"missing storage class", podWithClaims("c-nosc"), unresolvable(`storageclass.storage.k8s.io "gone" not found`)},
		{"class without binding mode", podWithClaims("c-nomode"), unresolvable(`VolumeBindingMode not set for StorageClass "nomode"`)},
		{"unbound claim of an immediate class", podWithClaims("c-immediate"), unresolvable("PersistentVolume had no name")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, objs...)
			if _, status := pl.PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil); !status.Equal(tt.want) {
				t.Errorf("PreFilter = %v, want %v", status, tt.want)
			}
			// Filter reports the same status when it has to resolve the claims itself.
			if status := pl.Filter(context.Background(), framework.NewCycleState(), tt.pod, nodeInfo(zoneGA, "a")); !status.Equal(tt.want) {
				t.Errorf("Filter without state = %v, want %v", status, tt.want)
			}
		})
	}
}

func TestFilterWithoutNode(t *testing.T) {
	pl := newPlugin(t, objects()...)
	if status := pl.Filter(context.Background(), framework.NewCycleState(), podWithClaims("c-a"), framework.NewNodeInfo()); status.Code() != framework.Error {
		t.Errorf("Filter = %v, want Error", status)
	}
}

func TestEventsToRegister(t *testing.T) {
	events, err := newPlugin(t).EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		ev      framework.ClusterEvent
		hasHint bool
	}{
		{framework.ClusterEvent{Resource: framework.StorageClass, ActionType: framework.Add}, true},
		{framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}, false},
		{framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update}, true},
		{framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update}, true},
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

func TestHints(t *testing.T) {
	pl := newPlugin(t)
	pod := podWithClaims("c1")
	otherNS := boundClaim("c1", "")
	otherNS.Namespace = "other"
	tests := []struct {
		name           string
		fn             framework.QueueingHintFn
		oldObj, newObj any
		want           framework.QueueingHint
		err            bool
	}{
		{"claim of the pod added", pl.isSchedulableAfterClaimChange, nil, unboundClaim("c1", "sc"), framework.Queue, false},
		{"claim of the pod bound", pl.isSchedulableAfterClaimChange, unboundClaim("c1", "sc"), boundClaim("c1", "pv"), framework.Queue, false},
		{"other claim", pl.isSchedulableAfterClaimChange, nil, boundClaim("c2", "pv"), framework.QueueSkip, false},
		{"claim in another namespace", pl.isSchedulableAfterClaimChange, nil, otherNS, framework.QueueSkip, false},
		{"claim hint, wrong type", pl.isSchedulableAfterClaimChange, nil, &v1.Pod{}, framework.Queue, true},
		{"WaitForFirstConsumer class", pl.isSchedulableAfterStorageClassAdded, nil, storageClass("s", wffc), framework.Queue, false},
		{"immediate class", pl.isSchedulableAfterStorageClassAdded, nil, storageClass("s", storagev1.VolumeBindingImmediate), framework.QueueSkip, false},
		{"class without mode", pl.isSchedulableAfterStorageClassAdded, nil, storageClass("s", ""), framework.QueueSkip, false},
		{"class hint, wrong type", pl.isSchedulableAfterStorageClassAdded, nil, &v1.Pod{}, framework.Queue, true},
		{"volume added", pl.isSchedulableAfterVolumeChange, nil, pv("v", zoneGA, "a"), framework.Queue, false},
		{"volume zone changed", pl.isSchedulableAfterVolumeChange, pv("v", zoneGA, "a"), pv("v", zoneGA, "b"), framework.Queue, false},
		{"volume zone widened", pl.isSchedulableAfterVolumeChange, pv("v", zoneGA, "a"), pv("v", zoneGA, "a__b"), framework.Queue, false},
		{"volume region added", pl.isSchedulableAfterVolumeChange, pv("v", zoneGA, "a"), pv("v", zoneGA, "a", regionGA, "r"), framework.Queue, false},
		{"volume zones reordered", pl.isSchedulableAfterVolumeChange, pv("v", zoneGA, "a__b"), pv("v", zoneGA, "b__a"), framework.QueueSkip, false},
		{"volume other label changed", pl.isSchedulableAfterVolumeChange, pv("v", zoneGA, "a", "x", "1"), pv("v", zoneGA, "a", "x", "2"), framework.QueueSkip, false},
		{"volume hint, wrong type", pl.isSchedulableAfterVolumeChange, nil, &v1.Node{}, framework.Queue, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn(logr.Discard(), pod, tt.oldObj, tt.newObj)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("hint = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestSplitZones(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"a", []string{"a"}, false},
		{" a __b__a", []string{"a", "b"}, false},
		{"a____b", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := splitZones(tt.in)
		if (err != nil) != tt.err || len(got) != len(tt.want) {
			t.Errorf("splitZones(%q) = %v, %v", tt.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("splitZones(%q) = %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), []byte(`{"x":1}`), &st.Handle{}); err == nil {
		t.Error("unknown args: want error")
	}
	if _, err := New(context.Background(), nil, nil); err == nil {
		t.Error("nil handle: want error")
	}
	if got := newPlugin(t).Name(); got != "VolumeZone" {
		t.Errorf("Name() = %q", got)
	}
}
