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

package volumebinding

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestEventsToRegister(t *testing.T) {
	e := newEnv(t)
	events, err := e.pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[framework.EventResource]framework.ActionType{
		framework.StorageClass:          framework.Add | framework.Update,
		framework.PersistentVolumeClaim: framework.Add | framework.Update,
		framework.PersistentVolume:      framework.Add | framework.Update,
		framework.Node:                  framework.Add | framework.UpdateNodeLabel,
		framework.CSINode:               framework.Add | framework.Update,
		framework.CSIDriver:             framework.Update,
		framework.CSIStorageCapacity:    framework.Add | framework.Update,
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for _, ev := range events {
		if want[ev.Event.Resource] != ev.Event.ActionType {
			t.Errorf("%s: actions %v, want %v", ev.Event.Resource, ev.Event.ActionType, want[ev.Event.Resource])
		}
	}
}

func TestQueueingHints(t *testing.T) {
	pod := st.Pod("p").PVC("c1").Ephemeral("eph").Obj()
	pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: "inline", VolumeSource: v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "csi.example.com"}}})
	otherNS := makePVC("c1").obj()
	otherNS.Namespace = "elsewhere"
	zoned := makeClass("sc").topology("zone", "a").obj()
	withMigrated := func(v string) *storagev1.CSINode {
		return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: map[string]string{v1.MigratedPluginsAnnotationKey: v}}}
	}
	withMax := func(c *storagev1.CSIStorageCapacity, size string) *storagev1.CSIStorageCapacity {
		q := resource.MustParse(size)
		c.MaximumVolumeSize = &q
		return c
	}
	tests := []struct {
		name     string
		fn       framework.QueueingHintFn
		old, new any
		want     framework.QueueingHint
	}{
		{"own claim added", isSchedulableAfterClaimChange, nil, makePVC("c1").obj(), framework.Queue},
		{"own ephemeral claim updated", isSchedulableAfterClaimChange, makePVC("p-eph").obj(), makePVC("p-eph").rv("2").obj(), framework.Queue},
		{"unrelated claim", isSchedulableAfterClaimChange, nil, makePVC("c9").obj(), framework.QueueSkip},
		{"claim in another namespace", isSchedulableAfterClaimChange, nil, otherNS, framework.QueueSkip},
		{"class added", isSchedulableAfterStorageClassChange, nil, makeClass("sc").obj(), framework.Queue},
		{"class topology changed", isSchedulableAfterStorageClassChange, makeClass("sc").obj(), zoned, framework.Queue},
		{"class otherwise updated", isSchedulableAfterStorageClassChange, zoned, makeClass("sc").topology("zone", "a").provisioner("x").obj(), framework.QueueSkip},
		{"CSINode added", isSchedulableAfterCSINodeChange, nil, withMigrated(""), framework.Queue},
		{"CSINode migration changed", isSchedulableAfterCSINodeChange, withMigrated(""), withMigrated("kubernetes.io/gce-pd"), framework.Queue},
		{"CSINode otherwise updated", isSchedulableAfterCSINodeChange, withMigrated("a"), withMigrated("a"), framework.QueueSkip},
		{"driver stops tracking capacity", isSchedulableAfterCSIDriverChange, csiDriver("csi.example.com", true), csiDriver("csi.example.com", false), framework.Queue},
		{"driver starts tracking capacity", isSchedulableAfterCSIDriverChange, csiDriver("csi.example.com", false), csiDriver("csi.example.com", true), framework.QueueSkip},
		{"unused driver stops tracking", isSchedulableAfterCSIDriverChange, csiDriver("other", true), csiDriver("other", false), framework.QueueSkip},
		{"capacity added", isSchedulableAfterCapacityChange, nil, capacity("c", "sc", "1Gi"), framework.Queue},
		{"capacity grew", isSchedulableAfterCapacityChange, capacity("c", "sc", "1Gi"), capacity("c", "sc", "2Gi"), framework.Queue},
		{"capacity shrank", isSchedulableAfterCapacityChange, capacity("c", "sc", "2Gi"), capacity("c", "sc", "1Gi"), framework.QueueSkip},
		{"maximum volume size grew", isSchedulableAfterCapacityChange, withMax(capacity("c", "sc", "9Gi"), "1Gi"), withMax(capacity("c", "sc", "9Gi"), "3Gi"), framework.Queue},
		{"capacity grew under an unchanged maximum", isSchedulableAfterCapacityChange, withMax(capacity("c", "sc", "2Gi"), "1Gi"), withMax(capacity("c", "sc", "9Gi"), "1Gi"), framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.fn(klog.Background(), pod, tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestQueueingHintWrongType(t *testing.T) {
	hint, err := isSchedulableAfterClaimChange(klog.Background(), st.Pod("p").Obj(), nil, &v1.Node{})
	if err == nil || hint != framework.Queue {
		t.Fatalf("hint = %v, %v; want Queue with an error", hint, err)
	}
	// Tombstones are unwrapped.
	tomb := cache.DeletedFinalStateUnknown{Obj: makeClass("sc").obj()}
	if hint, err := isSchedulableAfterStorageClassChange(klog.Background(), st.Pod("p").Obj(), tomb, zonedClass()); err != nil || hint != framework.Queue {
		t.Fatalf("tombstone: hint = %v, %v", hint, err)
	}
}

func zonedClass() *storagev1.StorageClass { return makeClass("sc").topology("zone", "b").obj() }
