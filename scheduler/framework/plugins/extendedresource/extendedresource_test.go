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

package extendedresource

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// class builds a DeviceClass created at second created, serving ext when set.
func class(name string, created int64, ext string) *resourceapi.DeviceClass {
	c := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(created, 0))}}
	if ext != "" {
		c.Spec.ExtendedResourceName = ptr.To(ext)
	}
	return c
}

func lister(t *testing.T, classes ...*resourceapi.DeviceClass) resourcelisters.DeviceClassLister {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range classes {
		if err := idx.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return resourcelisters.NewDeviceClassLister(idx)
}

func TestResolve(t *testing.T) {
	gpu := class("gpu", 10, "example.com/gpu")
	newerGPU := class("gpu-v2", 20, "example.com/gpu")
	twinA := class("a", 30, "example.com/nic")
	twinB := class("b", 30, "example.com/nic")
	plain := class("fpga", 10, "")
	tests := []struct {
		name    string
		classes []*resourceapi.DeviceClass
		ask     []v1.ResourceName
		want    map[v1.ResourceName]string
	}{
		{name: "explicit name", classes: []*resourceapi.DeviceClass{gpu}, ask: []v1.ResourceName{"example.com/gpu"}, want: map[v1.ResourceName]string{"example.com/gpu": "gpu"}},
		{name: "implicit name of a class with and without an explicit one", classes: []*resourceapi.DeviceClass{gpu, plain},
			ask:  []v1.ResourceName{"deviceclass.resource.kubernetes.io/gpu", "deviceclass.resource.kubernetes.io/fpga"},
			want: map[v1.ResourceName]string{"deviceclass.resource.kubernetes.io/gpu": "gpu", "deviceclass.resource.kubernetes.io/fpga": "fpga"}},
		{name: "the newer class wins a clash", classes: []*resourceapi.DeviceClass{newerGPU, gpu}, ask: []v1.ResourceName{"example.com/gpu"}, want: map[v1.ResourceName]string{"example.com/gpu": "gpu-v2"}},
		{name: "the lower name wins a tie", classes: []*resourceapi.DeviceClass{twinB, twinA}, ask: []v1.ResourceName{"example.com/nic"}, want: map[v1.ResourceName]string{"example.com/nic": "a"}},
		{name: "no class serves it", classes: []*resourceapi.DeviceClass{gpu}, ask: []v1.ResourceName{"example.com/other", "deviceclass.resource.kubernetes.io/none"}},
		{name: "native and hugepages names are never served", classes: []*resourceapi.DeviceClass{class("cpu", 1, "")}, ask: []v1.ResourceName{v1.ResourceCPU, "hugepages-2Mi", "requests.example.com/gpu"}},
		{name: "no classes at all", ask: []v1.ResourceName{"example.com/gpu"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewClasses(lister(t, tc.classes...)).Resolve(tc.ask...)
			if err != nil {
				t.Fatal(err)
			}
			var names map[v1.ResourceName]string
			for n, c := range got {
				if names == nil {
					names = map[v1.ResourceName]string{}
				}
				names[n] = c.Name
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNilClassesServeNothing(t *testing.T) {
	var c *Classes
	got, err := c.Resolve("example.com/gpu")
	if err != nil || got != nil {
		t.Errorf("Resolve on nil = %v, %v; want nil, nil", got, err)
	}
}

func TestIsDRAName(t *testing.T) {
	for name, want := range map[v1.ResourceName]bool{
		"example.com/gpu":                        true,
		"deviceclass.resource.kubernetes.io/gpu": true,
		"kubernetes.io/other":                    false,
		v1.ResourceCPU:                           false,
		"hugepages-1Gi":                          false,
		"requests.example.com/gpu":               false,
	} {
		if got := IsDRAName(name); got != want {
			t.Errorf("IsDRAName(%q) = %v, want %v", name, got, want)
		}
	}
}
