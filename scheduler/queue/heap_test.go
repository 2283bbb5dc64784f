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

package queue

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
)

func TestEntryHeap(t *testing.T) {
	prioOf := func(e *entry) int32 { return prio(e.info.Pod) }
	h := newEntryHeap(func(a, b *entry) bool { return prioOf(a) > prioOf(b) })
	rng := rand.New(rand.NewSource(1))
	var live []*entry
	for i := range 500 {
		switch op := rng.Intn(4); {
		case op < 2 || len(live) == 0:
			pod := pendingPod("p").Priority(int32(rng.Intn(50))).Obj()
			e := &entry{info: &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: pod}}}
			h.push(e)
			live = append(live, e)
		case op == 2:
			k := rng.Intn(len(live))
			h.remove(live[k])
			if live[k].slot != -1 {
				t.Fatalf("step %d: removed entry keeps slot %d", i, live[k].slot)
			}
			live = append(live[:k], live[k+1:]...)
		default:
			e := live[rng.Intn(len(live))]
			p := int32(rng.Intn(50))
			e.info.Pod.Spec.Priority = &p
			h.fix(e)
		}
		for j, e := range h.items {
			if e.slot != j {
				t.Fatalf("step %d: entry at %d records slot %d", i, j, e.slot)
			}
		}
	}
	var want []int32
	for _, e := range live {
		want = append(want, prioOf(e))
	}
	sort.Slice(want, func(i, j int) bool { return want[i] > want[j] })
	for i, w := range want {
		if got := prioOf(h.pop()); got != w {
			t.Fatalf("pop %d: priority %d, want %d", i, got, w)
		}
	}
	if h.pop() != nil || h.peek() != nil || h.len() != 0 {
		t.Error("drained heap not empty")
	}
}
