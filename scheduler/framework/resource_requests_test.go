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

package framework

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// reqPod returns a pod with one container per request list.
func reqPod(containers ...v1.ResourceList) *v1.Pod {
	p := &v1.Pod{}
	for _, rl := range containers {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: rl}})
	}
	return p
}

func rl(pairs ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// TestPodRequestsShortcut checks that the one-container shortcut gives what
// component-helpers' aggregation gives, and that other pods are not taken.
func TestPodRequestsShortcut(t *testing.T) {
	withOverhead := reqPod(rl("cpu", "1"))
	withOverhead.Spec.Overhead = rl("cpu", "100m")
	withStatus := reqPod(rl("cpu", "1"))
	withStatus.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c"}}
	tests := []struct {
		name     string
		pod      *v1.Pod
		shortcut bool
	}{
		{"cpu and memory", reqPod(rl("cpu", "100m", "memory", "500Mi")), true},
		{"sub-milli cpu", reqPod(rl("cpu", "1500u")), true},
		{"no requests", reqPod(nil), true},
		{"only memory", reqPod(rl("memory", "1Gi")), true},
		{"extended and storage", reqPod(rl("cpu", "2", "example.com/gpu", "1", "ephemeral-storage", "1Gi", "hugepages-2Mi", "4Mi")), true},
		{"two containers", reqPod(rl("cpu", "1"), rl("memory", "1Gi")), false},
		{"overhead", withOverhead, false},
		{"status", withStatus, false},
	}
	defaults := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(DefaultMemoryRequest, resource.BinarySI),
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := onlyPlainContainer(tc.pod) != nil; got != tc.shortcut {
				t.Fatalf("shortcut taken = %v, want %v", got, tc.shortcut)
			}
			want := NewResource(resourcehelper.PodRequests(tc.pod, resourcehelper.PodResourcesOptions{}))
			if got := PodRequests(tc.pod); !reflect.DeepEqual(got, want) {
				t.Errorf("PodRequests = %+v, want %+v", got, want)
			}
			full := resourcehelper.PodRequests(tc.pod, resourcehelper.PodResourcesOptions{NonMissingContainerRequests: defaults})
			wantNZ := &Resource{}
			if q, ok := full[v1.ResourceCPU]; ok {
				wantNZ.MilliCPU = q.MilliValue()
			}
			if q, ok := full[v1.ResourceMemory]; ok {
				wantNZ.Memory = q.Value()
			}
			if got := PodNonZeroRequests(tc.pod); !reflect.DeepEqual(got, wantNZ) {
				t.Errorf("PodNonZeroRequests = %+v, want %+v", got, wantNZ)
			}
		})
	}
}

func TestIsScalarResourceName(t *testing.T) {
	for name, want := range map[v1.ResourceName]bool{
		v1.ResourceCPU:                           false,
		v1.ResourceMemory:                        false,
		v1.ResourceEphemeralStorage:              false,
		"hugepages-2Mi":                          true,
		"attachable-volumes-csi-ebs":             true,
		"example.com/gpu":                        true,
		"nvidia.com/gpu":                         true,
		"deviceclass.resource.kubernetes.io/gpu": true,
		"kubernetes.io/something":                true,
		"requests.example.com/gpu":               false,
		"/nodomain":                              false,
		"plain":                                  false,
	} {
		if got := IsScalarResourceName(name); got != want {
			t.Errorf("IsScalarResourceName(%q) = %v, want %v", name, got, want)
		}
	}
}
