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

package noderesources

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestPlainPodRequestsMatchTheHelper checks the direct sum against
// component-helpers' PodRequests for plain pods, and that any other pod
// takes the helper's path.
func TestPlainPodRequestsMatchTheHelper(t *testing.T) {
	specs := []ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 1}}
	withStatus := st.Pod("s").Container("cpu", "100m").Obj()
	withStatus.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c"}}
	tests := []struct {
		name      string
		pod       *v1.Pod
		wantPlain bool
	}{
		{"one container", st.Pod("p").Container("cpu", "100m", "memory", "500Mi").Obj(), true},
		{"two containers and an extended resource", st.Pod("p").Container("cpu", "1", "example.com/gpu", "2").Container("memory", "1Gi").Obj(), true},
		{"sub-milli CPU is summed before rounding", st.Pod("p").Container("cpu", "500u").Container("cpu", "500u").Obj(), true},
		{"no requests at all", st.Pod("p").Container().Obj(), true},
		{"no containers", st.Pod("p").Obj(), true},
		{"init containers", st.Pod("p").Init("cpu", "2").Container("cpu", "1").Obj(), false},
		{"overhead", st.Pod("p").Container("cpu", "1").Overhead("cpu", "250m").Obj(), false},
		{"pod-level resources", st.Pod("p").Container("cpu", "1").PodLevel("cpu", "3").Obj(), false},
		{"container statuses", withStatus, false},
	}
	for _, nonZero := range []bool{false, true} {
		s := newResourceScorer(specs, nonZero)
		general := s
		for _, tc := range tests {
			got, plain := s.plainPodRequests(tc.pod)
			if plain != tc.wantPlain {
				t.Errorf("nonZero %v, %s: plain = %v, want %v", nonZero, tc.name, plain, tc.wantPlain)
				continue
			}
			if !plain {
				continue
			}
			want := general.helperPodRequests(tc.pod)
			if !slices.Equal(got, want) {
				t.Errorf("nonZero %v, %s: plain sums %v, the helper %v", nonZero, tc.name, got, want)
			}
			if all := s.podRequests(tc.pod); !slices.Equal(all, want) {
				t.Errorf("nonZero %v, %s: podRequests %v, want %v", nonZero, tc.name, all, want)
			}
		}
	}
}
