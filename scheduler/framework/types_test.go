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
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sortPod returns a pod with the given priority (nil when unset).
func sortPod(priority *int32) *v1.Pod {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u", ResourceVersion: "1"}}
	pod.Spec.Priority = priority
	return pod
}

func TestPodInfoSortKeys(t *testing.T) {
	high := int32(1000)
	tests := []struct {
		name         string
		pod          *v1.Pod
		wantPriority int32
	}{
		{name: "no priority", pod: sortPod(nil)},
		{name: "priority", pod: sortPod(&high), wantPriority: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			derived, err := NewPodInfo(tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			// A literal has not derived its keys: it reads the pod.
			for name, pi := range map[string]*PodInfo{"NewPodInfo": derived, "literal": {Pod: tt.pod}} {
				if got := pi.Priority(); got != tt.wantPriority {
					t.Errorf("%s: Priority() = %d, want %d", name, got, tt.wantPriority)
				}
			}
		})
	}
}

func TestPodInfoUpdateRederivesSortKeys(t *testing.T) {
	pi, err := NewPodInfo(sortPod(nil))
	if err != nil {
		t.Fatal(err)
	}
	high := int32(7)
	next := sortPod(&high)
	next.ResourceVersion = "2"
	if err := pi.Update(next); err != nil {
		t.Fatal(err)
	}
	if pi.Priority() != 7 {
		t.Errorf("after Update: priority %d, want 7", pi.Priority())
	}
}
