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

package evictor

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestLimitsAllowAll(t *testing.T) {
	pod := func(name, node string) *v1.Pod { return st.Pod(name).Namespace("default").NodeName(node).Obj() }
	three := []*v1.Pod{pod("a", "n1"), pod("b", "n1"), pod("c", "n2")}
	tests := []struct {
		name    string
		limits  *v1alpha1.EvictionLimits
		already []*v1.Pod // counted before
		wantErr string
	}{
		{name: "no limits"},
		{name: "room for all", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictTotal: ptr.To[int32](3)}},
		{name: "the total", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictTotal: ptr.To[int32](2)}, wantErr: "maxPodsToEvictTotal 2 reached"},
		{name: "per node", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictPerNode: ptr.To[int32](1)}, wantErr: "maxPodsToEvictPerNode 1 reached on node n1"},
		{
			name: "evictions counted before count", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictPerNamespace: ptr.To[int32](3)},
			already: []*v1.Pod{pod("x", "n3")}, wantErr: "maxPodsToEvictPerNamespace 3 reached in namespace default",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLimits(tc.limits)
			for _, p := range tc.already {
				l.Count(p)
			}
			err := l.AllowAll(three)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("AllowAll = %q, want %q", got, tc.wantErr)
			}
			// Asking counts nothing.
			if err := l.AllowAll(three); errString(err) != tc.wantErr {
				t.Errorf("a second AllowAll = %v, want the same answer", err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
