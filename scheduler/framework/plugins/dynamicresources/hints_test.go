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

package dynamicresources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestIsSchedulableAfterClaimChange(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	pending := claim("c").request("gpu", 1).obj()
	withFinalizer := claim("c").request("gpu", 1).obj()
	withFinalizer.Finalizers = []string{resourceapi.Finalizer}
	allocated := claim("other").request("gpu", 1).allocated("node-a", "gpu-0").obj()
	freed := claim("other").request("gpu", 1).obj()
	tests := []struct {
		name           string
		stored         []*resourceapi.ResourceClaim
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "the pod's claim is created", stored: []*resourceapi.ResourceClaim{pending}, newObj: pending, want: framework.Queue},
		{name: "an unrelated claim is created", stored: []*resourceapi.ResourceClaim{pending}, newObj: freed, want: framework.QueueSkip},
		{name: "the pod's claim gains only a finalizer", stored: []*resourceapi.ResourceClaim{withFinalizer}, oldObj: pending, newObj: withFinalizer, want: framework.QueueSkip},
		{name: "the pod's claim is allocated", stored: []*resourceapi.ResourceClaim{pending},
			oldObj: pending, newObj: claim("c").request("gpu", 1).allocated("node-a", "gpu-0").obj(), want: framework.Queue},
		{name: "another claim is deallocated", stored: []*resourceapi.ResourceClaim{pending}, oldObj: allocated, newObj: freed, want: framework.Queue},
		{name: "an allocated claim is deleted", stored: []*resourceapi.ResourceClaim{pending}, oldObj: allocated, want: framework.Queue},
		{name: "an unallocated claim is deleted", stored: []*resourceapi.ResourceClaim{pending}, oldObj: freed, want: framework.QueueSkip},
		{name: "a claim is deleted in an unknown state", oldObj: cache.DeletedFinalStateUnknown{Key: "default/x", Obj: freed}, want: framework.Queue},
		{name: "the pod still misses its claim", newObj: freed, want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for _, c := range tt.stored {
				e.put(c)
			}
			got, err := e.pl.isSchedulableAfterClaimChange(klog.Background(), p, tt.oldObj, tt.newObj)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterOwnClaimsCreated(t *testing.T) {
	waiting := st.Pod("p").ResourceClaimTemplate("gpu", "gpu-template").Obj()
	named := st.Pod("p").ResourceClaimTemplate("gpu", "gpu-template").GeneratedClaim("gpu", "p-gpu").Obj()
	tests := []struct {
		name    string
		created bool
		newPod  *v1.Pod
		want    framework.QueueingHint
	}{
		{name: "claim named and created", created: true, newPod: named, want: framework.Queue},
		{name: "claim named, not in the informer yet", newPod: named, want: framework.QueueSkip},
		{name: "another pod", created: true, newPod: st.Pod("q").ResourceClaimTemplate("gpu", "gpu-template").GeneratedClaim("gpu", "p-gpu").Obj(), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.created {
				e.put(claim("p-gpu").request("gpu", 1).ownedBy(waiting).obj())
			}
			got, err := e.pl.isSchedulableAfterOwnClaimsCreated(klog.Background(), waiting, waiting, tt.newPod)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterPodWithClaimsDeleted(t *testing.T) {
	tests := []struct {
		name    string
		deleted *v1.Pod
		want    framework.QueueingHint
	}{
		{name: "pod with claims", deleted: st.Pod("q").ResourceClaims("c").Obj(), want: framework.Queue},
		{name: "pod without claims", deleted: st.Pod("q").Obj(), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := isSchedulableAfterPodWithClaimsDeleted(klog.Background(), st.Pod("p").ResourceClaims("c").Obj(), tt.deleted, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}
