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
	"context"
	"fmt"
	"testing"
	"unsafe"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// assertFactsOf checks that a snapshot NodeInfo's copies of its node's name,
// taints and unschedulable flag equal want's, and those of its own Node.
func assertFactsOf(t *testing.T, ni *framework.NodeInfo, want *v1.Node) {
	t.Helper()
	type facts struct {
		Name          string
		Unschedulable bool
		Taints        []v1.Taint
	}
	got := facts{ni.Name(), ni.Unschedulable(), ni.Taints()}
	for _, node := range []*v1.Node{want, ni.Node()} {
		if diff := cmp.Diff(facts{node.Name, node.Spec.Unschedulable, node.Spec.Taints}, got); diff != "" {
			t.Fatalf("NodeInfo facts of node %s (-want +got):\n%s", node.Name, diff)
		}
	}
}

func TestSnapshotNodeFactsFollowNodeUpdates(t *testing.T) {
	const nodes = 3 * compactMin // more than one arena chunk, enough changes to compact
	plain := func(i int) *v1.Node { return cacheNode(fmt.Sprintf("n%03d", i)).ResourceVersion("1").Obj() }
	tests := []struct {
		name    string
		updated func(i int) *v1.Node
	}{
		{"taints added", func(i int) *v1.Node {
			return cacheNode(fmt.Sprintf("n%03d", i)).ResourceVersion("2").Taint("a", "", v1.TaintEffectNoSchedule).Taint("b", "", v1.TaintEffectPreferNoSchedule).Obj()
		}},
		{"cordoned", func(i int) *v1.Node {
			return cacheNode(fmt.Sprintf("n%03d", i)).ResourceVersion("2").Unschedulable(true).Obj()
		}},
		{"cordoned and tainted", func(i int) *v1.Node {
			return cacheNode(fmt.Sprintf("n%03d", i)).ResourceVersion("2").Unschedulable(true).Taint("a", "", v1.TaintEffectNoExecute).Obj()
		}},
	}
	for _, tc := range tests {
		// changed is how many nodes each round updates: fewer than compactMin
		// clones them outside the arena, all of them re-lays the arena.
		for _, changed := range []int{1, nodes} {
			t.Run(fmt.Sprintf("%s/%d nodes", tc.name, changed), func(t *testing.T) {
				l := logr.Discard()
				c := New(context.Background())
				current := make([]*v1.Node, nodes)
				for i := range nodes {
					current[i] = plain(i)
					c.AddNode(l, current[i])
				}
				s := NewEmptySnapshot()
				// Round 0 fills the arena; round 1 applies the update, round 2
				// reverts it (taints removed, uncordoned).
				for round, next := range []func(int) *v1.Node{nil, tc.updated, plain} {
					if next != nil {
						for i := range changed {
							n := next(i)
							n.ResourceVersion = fmt.Sprint(round + 10)
							c.UpdateNode(l, current[i], n)
							current[i] = n
						}
					}
					update(t, c, s)
					if changed == nodes && round > 0 && s.relocated != 0 {
						t.Fatalf("round %d: %d NodeInfos outside the arena, want a compaction", round, s.relocated)
					}
					for i := range nodes {
						assertFactsOf(t, mustGet(t, s, current[i].Name), current[i])
					}
				}
				assertMatchesRebuild(t, c, s)
			})
		}
	}
}

func TestNodeSlotLayout(t *testing.T) {
	var slot nodeSlot
	if size := unsafe.Sizeof(slot); size%cacheLine != 0 {
		t.Errorf("a nodeSlot is %d bytes, not a whole number of %d-byte lines", size, cacheLine)
	}
	// What the default Filter and Score plugins read of a node: the resource
	// sums and the NodeInfo's fields up to its node facts and list position.
	base := uintptr(unsafe.Pointer(&slot))
	end := func(p unsafe.Pointer, size uintptr) uintptr { return uintptr(p) - base + size }
	info := &slot.info
	hotEnd := max(
		end(unsafe.Pointer(&slot.allocatable), unsafe.Sizeof(slot.allocatable)),
		end(unsafe.Pointer(&info.Pods), unsafe.Sizeof(info.Pods)),
		end(unsafe.Pointer(&info.Requested), unsafe.Sizeof(info.Requested)),
		end(unsafe.Pointer(&info.NonZeroRequested), unsafe.Sizeof(info.NonZeroRequested)),
		end(unsafe.Pointer(&info.Allocatable), unsafe.Sizeof(info.Allocatable)),
		end(unsafe.Pointer(&info.ImageStates), unsafe.Sizeof(info.ImageStates)),
	)
	// The unexported node facts sit before ImageStates; SnapshotIndex and
	// the facts are checked by value elsewhere, their place by this bound.
	const hotLines = 4
	if hotEnd > hotLines*cacheLine {
		t.Errorf("the hot part of a nodeSlot ends at byte %d, beyond its first %d cache lines", hotEnd, hotLines)
	}
	// The Node is not in the slot: a clone or a re-lay copies the slot only.
	if size := unsafe.Sizeof(slot); size > hotLines*cacheLine+cacheLine {
		t.Errorf("a nodeSlot is %d bytes; it holds the sums and the NodeInfo only", size)
	}
}
