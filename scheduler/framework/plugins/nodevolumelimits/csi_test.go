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

package nodevolumelimits

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	ebs = "ebs.csi.aws.com"
	gce = "pd.csi.storage.gke.io"
)

// cluster is what every Filter case starts from: claims a, b, c bound to
// CSI volumes of ebs, claim g bound to a gce volume, claim host bound to a
// non-CSI volume, claim late unbound with an ebs class, claim noclass
// unbound without a class, and claim orphan whose volume is gone.
func cluster() []runtime.Object {
	return []runtime.Object{
		csiPV("pv-a", ebs, "vol-a"), csiPV("pv-b", ebs, "vol-b"), csiPV("pv-c", ebs, "vol-c"),
		csiPV("pv-g", gce, "disk-g"), hostPathPV("pv-host"),
		claim("a", "pv-a", ""), claim("b", "pv-b", ""), claim("c", "pv-c", ""), claim("g", "pv-g", ""),
		claim("host", "pv-host", ""), claim("late", "", "ebs-sc"), claim("noclass", "", ""),
		claim("orphan", "pv-gone", "ebs-sc"), storageClass("ebs-sc", ebs),
	}
}

func TestFilter(t *testing.T) {
	exceeded := framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
	skip := framework.NewStatus(framework.Skip)
	owner := st.Pod("owner").UID("owner-uid").Ephemeral("data").Obj()
	stranger := st.Pod("stranger").UID("stranger-uid").Ephemeral("data").Obj()
	tests := []struct {
		name      string
		pod       *v1.Pod
		existing  []*v1.Pod
		objs      []runtime.Object
		prefilter *framework.Status
		want      *framework.Status
	}{
		{name: "no volumes", pod: st.Pod("p").Obj(), prefilter: skip},
		{name: "no claims", pod: st.Pod("p").EmptyDir("scratch").Obj(), prefilter: skip},
		{name: "claim of a non-CSI volume", pod: st.Pod("p").PVC("host").Obj(), prefilter: skip},
		{name: "unbound claim without class", pod: st.Pod("p").PVC("noclass").Obj(), prefilter: skip},
		{name: "under the limit", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("b").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 3})}},
		{name: "at the limit", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("b").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 2})}},
		{name: "over the limit", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("b", "c").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 2})}, want: exceeded},
		{name: "pod's own volumes exceed the limit", pod: st.Pod("p").PVC("a", "b").Obj(),
			objs: []runtime.Object{csiNode("n", limit{ebs, 1})}, want: exceeded},
		{name: "volume mounted twice by the pod counts once", pod: st.Pod("p").PVC("a", "a").Obj(),
			objs: []runtime.Object{csiNode("n", limit{ebs, 1})}},
		{name: "volume already on the node counts once", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("a").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1})}},
		{name: "volume shared by pods on the node counts once", pod: st.Pod("p").PVC("c").Obj(),
			existing: []*v1.Pod{st.Pod("e1").PVC("a").Obj(), st.Pod("e2").PVC("a").Obj()},
			objs:     []runtime.Object{csiNode("n", limit{ebs, 2})}},
		{name: "other driver's volumes do not count", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("g", "host").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1}, limit{gce, 0})}},
		{name: "other driver's limit does not apply", pod: st.Pod("p").PVC("g").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("a").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1}, limit{gce, 1})}},
		{name: "no CSINode", pod: st.Pod("p").PVC("a").Obj(), existing: []*v1.Pod{st.Pod("e").PVC("b", "c").Obj()}},
		{name: "driver without a limit", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("b", "c").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, -1})}},
		{name: "CSINode of another node", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("b").Obj()}, objs: []runtime.Object{csiNode("other", limit{ebs, 1})}},
		{name: "unbound claim counts by its class's provisioner", pod: st.Pod("p").PVC("late").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("a").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1})}, want: exceeded},
		{name: "unbound claim on the node counts", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("late").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1})}, want: exceeded},
		{name: "unbound claim shared with a pod on the node counts once", pod: st.Pod("p").PVC("late").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("late").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1})}},
		{name: "claim whose volume is gone counts by class", pod: st.Pod("p").PVC("orphan").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("a").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1})}, want: exceeded},
		{name: "missing claim of a pod on the node is not counted", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("gone").Obj()}, objs: []runtime.Object{csiNode("n", limit{ebs, 1})}},
		{name: "attachment to the node counts", pod: st.Pod("p").PVC("a").Obj(),
			objs: []runtime.Object{csiNode("n", limit{ebs, 1}), attachment("va", "n", ebs, "pv-b")}, want: exceeded},
		{name: "attachment of a pod's volume counts once", pod: st.Pod("p").PVC("a").Obj(),
			existing: []*v1.Pod{st.Pod("e").PVC("b").Obj()},
			objs:     []runtime.Object{csiNode("n", limit{ebs, 2}), attachment("va", "n", ebs, "pv-b")}},
		{name: "attachment of the new pod's volume counts as attached too, as upstream", pod: st.Pod("p").PVC("a").Obj(),
			objs: []runtime.Object{csiNode("n", limit{ebs, 1}), attachment("va", "n", ebs, "pv-a")}, want: exceeded},
		{name: "ignored attachments", pod: st.Pod("p").PVC("a").Obj(),
			objs: []runtime.Object{csiNode("n", limit{ebs, 1}),
				attachment("elsewhere", "other", ebs, "pv-b"), attachment("no-attacher", "n", "", "pv-b"),
				attachment("no-pv", "n", ebs, ""), attachment("pv-gone", "n", ebs, "pv-gone"),
				attachment("not-csi", "n", ebs, "pv-host"), attachment("other-driver", "n", gce, "pv-g")}},
		{name: "generic ephemeral volume of the pod counts", pod: owner,
			existing: []*v1.Pod{st.Pod("e").PVC("b").Obj()},
			objs:     []runtime.Object{csiNode("n", limit{ebs, 1}), ephemeralClaim(owner, "data", "pv-a", true)}, want: exceeded},
		{name: "generic ephemeral volume on the node counts", pod: st.Pod("p").PVC("b").Obj(), existing: []*v1.Pod{owner},
			objs: []runtime.Object{csiNode("n", limit{ebs, 1}), ephemeralClaim(owner, "data", "pv-a", true)}, want: exceeded},
		{name: "missing generic ephemeral claim on the node is not counted", pod: st.Pod("p").PVC("b").Obj(), existing: []*v1.Pod{owner},
			objs: []runtime.Object{csiNode("n", limit{ebs, 1})}},
		{name: "generic ephemeral claim on the node not owned by its pod", pod: st.Pod("p").PVC("b").Obj(), existing: []*v1.Pod{stranger},
			objs: []runtime.Object{csiNode("n", limit{ebs, 1}), ephemeralClaim(stranger, "data", "pv-a", false)},
			want: framework.NewStatus(framework.Error, "PVC default/stranger-data was not created for pod default/stranger (pod is not owner)")},
		{name: "missing claim", pod: st.Pod("p").PVC("gone").Obj(),
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, `looking up PVC default/gone: persistentvolumeclaim "gone" not found`)},
		{name: "claim without a name", pod: st.Pod("p").PVC("").Obj(),
			want: framework.NewStatus(framework.Error, "PersistentVolumeClaim had no name")},
		{name: "missing generic ephemeral claim", pod: owner,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, `looking up PVC default/owner-data: persistentvolumeclaim "owner-data" not found`)},
		{name: "generic ephemeral claim not owned by the pod", pod: stranger,
			objs: []runtime.Object{ephemeralClaim(stranger, "data", "pv-a", false)},
			want: framework.NewStatus(framework.Error, "PVC default/stranger-data was not created for pod default/stranger (pod is not owner)")},
		{name: "required driver missing from the CSINode", pod: st.Pod("p").PVC("a").Obj(),
			objs: []runtime.Object{csiNode("n", limit{gce, 5}), csiDriver(ebs, true)},
			want: framework.NewStatus(framework.Unschedulable, ebs+" CSI driver is not installed on the node")},
		{name: "required driver and no CSINode", pod: st.Pod("p").PVC("a").Obj(), objs: []runtime.Object{csiDriver(ebs, true)},
			want: framework.NewStatus(framework.Unschedulable, ebs+" CSI driver is not installed on the node")},
		{name: "required driver installed", pod: st.Pod("p").PVC("a").Obj(),
			objs: []runtime.Object{csiNode("n", limit{ebs, -1}), csiDriver(ebs, true)}},
		{name: "driver not required on nodes", pod: st.Pod("p").PVC("a").Obj(), objs: []runtime.Object{csiDriver(ebs, false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, append(cluster(), tt.objs...)...)
			state := framework.NewCycleState()
			_, status := pl.PreFilter(context.Background(), state, tt.pod, nil)
			if !status.Equal(tt.prefilter) {
				t.Fatalf("PreFilter = %v, want %v", status, tt.prefilter)
			}
			if status.IsSkip() {
				return
			}
			if got := pl.Filter(context.Background(), state, tt.pod, nodeWith(tt.existing...)); !got.Equal(tt.want) {
				t.Errorf("Filter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFilterInstalledDriverCheckOff(t *testing.T) {
	pl := newPlugin(t, append(cluster(), csiDriver(ebs, true))...)
	pl.requireInstalledDrivers = false
	pod := st.Pod("p").PVC("a").Obj()
	state := framework.NewCycleState()
	pl.PreFilter(context.Background(), state, pod, nil)
	if got := pl.Filter(context.Background(), state, pod, nodeWith()); !got.IsSuccess() {
		t.Errorf("Filter = %v, want Success", got)
	}
}

func TestFilterErrors(t *testing.T) {
	pl := newPlugin(t, cluster()...)
	pod := st.Pod("p").PVC("a").Obj()
	if got := pl.Filter(context.Background(), framework.NewCycleState(), pod, nodeWith()); got.Code() != framework.Error {
		t.Errorf("Filter without state = %v, want Error", got)
	}
	state := framework.NewCycleState()
	pl.PreFilter(context.Background(), state, pod, nil)
	if got := pl.Filter(context.Background(), state, pod, framework.NewNodeInfo()); got.Code() != framework.Error {
		t.Errorf("Filter without node = %v, want Error", got)
	}
	if got := pl.Filter(context.Background(), state, st.Pod("q").Obj(), framework.NewNodeInfo()); !got.IsSuccess() {
		t.Errorf("Filter of a pod without volumes = %v, want Success", got)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), []byte(`{"x":1}`), &st.Handle{}); err == nil {
		t.Error("unknown args: want error")
	}
	if _, err := New(context.Background(), nil, nil); err == nil {
		t.Error("nil handle: want error")
	}
	// Two instances (two profiles) share one factory and its index.
	h := &st.Handle{Informers: informers.NewSharedInformerFactory(fake.NewClientset(), 0)}
	for i := 0; i < 2; i++ {
		pl, err := New(context.Background(), nil, h)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		if pl.Name() != "NodeVolumeLimits" {
			t.Errorf("Name() = %q", pl.Name())
		}
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
		{framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Add}, false},
		{framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Update}, true},
		{framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}, true},
		{framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add}, true},
		{framework.ClusterEvent{Resource: framework.VolumeAttachment, ActionType: framework.Delete}, true},
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
	pod := st.Pod("p").PVC("c1").Ephemeral("scratch").Obj()
	plain := st.Pod("plain").EmptyDir("scratch").Obj()
	otherNS := claim("c1", "", "")
	otherNS.Namespace = "other"
	va := attachment("va", "n", ebs, "pv")
	tests := []struct {
		name           string
		fn             framework.QueueingHintFn
		pod            *v1.Pod
		oldObj, newObj any
		want           framework.QueueingHint
		err            bool
	}{
		{"limit raised", pl.isSchedulableAfterCSINodeUpdated, pod,
			csiNode("n", limit{ebs, 1}), csiNode("n", limit{ebs, 2}), framework.Queue, false},
		{"limit added to a driver", pl.isSchedulableAfterCSINodeUpdated, pod,
			csiNode("n", limit{ebs, -1}), csiNode("n", limit{ebs, 1}), framework.Queue, false},
		{"driver with a limit added", pl.isSchedulableAfterCSINodeUpdated, pod,
			csiNode("n"), csiNode("n", limit{gce, 1}), framework.Queue, false},
		{"limit lowered", pl.isSchedulableAfterCSINodeUpdated, pod,
			csiNode("n", limit{ebs, 2}), csiNode("n", limit{ebs, 1}), framework.QueueSkip, false},
		{"limits unchanged", pl.isSchedulableAfterCSINodeUpdated, pod,
			csiNode("n", limit{ebs, 2}, limit{gce, 1}), csiNode("n", limit{gce, 1}, limit{ebs, 2}), framework.QueueSkip, false},
		{"driver without a limit added", pl.isSchedulableAfterCSINodeUpdated, pod,
			csiNode("n"), csiNode("n", limit{gce, -1}), framework.QueueSkip, false},
		{"CSINode hint, wrong type", pl.isSchedulableAfterCSINodeUpdated, pod, nil, &v1.Pod{}, framework.Queue, true},

		{"assigned pod with a claim deleted", pl.isSchedulableAfterPodDeleted, pod,
			st.Pod("e").PVC("x").NodeName("n").Obj(), nil, framework.Queue, false},
		{"assigned pod with an ephemeral volume deleted", pl.isSchedulableAfterPodDeleted, pod,
			cache.DeletedFinalStateUnknown{Obj: st.Pod("e").Ephemeral("x").NodeName("n").Obj()}, nil, framework.Queue, false},
		{"nominated pod with a claim deleted", pl.isSchedulableAfterPodDeleted, pod,
			func() *v1.Pod { p := st.Pod("e").PVC("x").Obj(); p.Status.NominatedNodeName = "n"; return p }(), nil, framework.Queue, false},
		{"pod on no node deleted", pl.isSchedulableAfterPodDeleted, pod, st.Pod("e").PVC("x").Obj(), nil, framework.QueueSkip, false},
		{"pod without claims deleted", pl.isSchedulableAfterPodDeleted, pod,
			st.Pod("e").EmptyDir("scratch").NodeName("n").Obj(), nil, framework.QueueSkip, false},
		{"pod hint, wrong type", pl.isSchedulableAfterPodDeleted, pod, &v1.Node{}, nil, framework.Queue, true},

		{"claim of the pod added", pl.isSchedulableAfterClaimAdded, pod, nil, claim("c1", "", ""), framework.Queue, false},
		{"ephemeral claim of the pod added", pl.isSchedulableAfterClaimAdded, pod, nil, claim("p-scratch", "", ""), framework.Queue, false},
		{"other claim added", pl.isSchedulableAfterClaimAdded, pod, nil, claim("c2", "", ""), framework.QueueSkip, false},
		{"claim in another namespace added", pl.isSchedulableAfterClaimAdded, pod, nil, otherNS, framework.QueueSkip, false},
		{"claim hint, wrong type", pl.isSchedulableAfterClaimAdded, pod, nil, &v1.Pod{}, framework.Queue, true},

		{"attachment deleted, pod with claims", pl.isSchedulableAfterAttachmentDeleted, pod, va, nil, framework.Queue, false},
		{"attachment deleted, pod without claims", pl.isSchedulableAfterAttachmentDeleted, plain, va, nil, framework.QueueSkip, false},
		{"attachment hint, wrong type", pl.isSchedulableAfterAttachmentDeleted, pod, &storagev1.CSINode{}, nil, framework.Queue, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn(logr.Discard(), tt.pod, tt.oldObj, tt.newObj)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("hint = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestFilterParallel runs Filter from several goroutines, as the scheduler
// does, so the race detector sees the pooled sets shared between them.
func TestFilterParallel(t *testing.T) {
	pl := newPlugin(t, append(cluster(), csiNode("n", limit{ebs, 2}), attachment("va", "n", ebs, "pv-c"))...)
	pod := st.Pod("p").PVC("a").Obj()
	state := framework.NewCycleState()
	pl.PreFilter(context.Background(), state, pod, nil)
	fits, full := nodeWith(st.Pod("e").PVC("a").Obj()), nodeWith(st.Pod("e").PVC("b").Obj())
	exceeded := framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 200; i++ {
				if got := pl.Filter(context.Background(), state, pod, fits); !got.IsSuccess() {
					t.Errorf("Filter on the fitting node = %v", got)
					return
				}
				if got := pl.Filter(context.Background(), state, pod, full); !got.Equal(exceeded) {
					t.Errorf("Filter on the full node = %v", got)
					return
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
