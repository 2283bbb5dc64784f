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

package cache

import (
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// benchChangedNodes is how many nodes BenchmarkUpdateSnapshot_ManyChanged
// changes per update: more than a quarter of benchNodes, so every update
// clones them into fresh slots and then compacts the arena.
const benchChangedNodes = 2000

// BenchmarkUpdateSnapshot_ManyChanged measures an update of one pod on each
// of benchChangedNodes nodes followed by the UpdateSnapshot that picks them
// up: the changed NodeInfos' clones and the compaction of the whole arena.
func BenchmarkUpdateSnapshot_ManyChanged(b *testing.B) {
	c, pods := benchCache(b)
	l := logr.Discard()
	s := NewEmptySnapshot()
	if err := c.UpdateSnapshot(l, s); err != nil {
		b.Fatal(err)
	}
	// Two versions of each changed pod, with different requests, swapped each iteration.
	versions := make([][2]*v1.Pod, benchChangedNodes)
	for i := range versions {
		p := pods[i]
		versions[i] = [2]*v1.Pod{p, st.Pod(p.Name).NodeName(p.Spec.NodeName).Req("cpu", "200m").ResourceVersion("2").Obj()}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range versions {
			if err := c.UpdatePod(l, v[i%2], v[(i+1)%2]); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.UpdateSnapshot(l, s); err != nil {
			b.Fatal(err)
		}
	}
}
