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
	"errors"
	"fmt"
	"testing"
	"unsafe"
)

// stateOp is one step of a CycleState test: a write of key with n (n > 0)
// or a delete of key (n == 0).
type stateOp struct {
	key StateKey
	n   int
}

func writes(prefix string, count int) []stateOp {
	ops := make([]stateOp, count)
	for i := range ops {
		ops[i] = stateOp{key: StateKey(fmt.Sprintf("%s%d", prefix, i)), n: i + 1}
	}
	return ops
}

func TestCycleStateInlineAndSpilledEntries(t *testing.T) {
	tests := []struct {
		name string
		ops  []stateOp
	}{
		{name: "fits inline", ops: writes("k", inlineStateEntries)},
		{name: "one more key than inline holds", ops: writes("k", inlineStateEntries+1)},
		{name: "many keys", ops: writes("k", 3*initialStateEntries)},
		{name: "replace while inline, then append", ops: append(append(writes("k", 3), stateOp{"k1", 100}), writes("m", 4)...)},
		{name: "delete while inline, then append", ops: append(append(writes("k", 3), stateOp{"k0", 0}), writes("m", inlineStateEntries)...)},
		{name: "delete the last inline key, then write it again", ops: append(writes("k", 3), stateOp{"k2", 0}, stateOp{"k2", 50}, stateOp{"z", 9})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCycleState()
			want := map[StateKey]int{}
			var clones []*CycleState
			var wantClones []map[StateKey]int
			for _, op := range tc.ops {
				if op.n == 0 {
					c.Delete(op.key)
					delete(want, op.key)
				} else {
					c.Write(op.key, &counter{n: op.n})
					want[op.key] = op.n
				}
				clones = append(clones, c.Clone())
				snapshot := make(map[StateKey]int, len(want))
				for k, v := range want {
					snapshot[k] = v
				}
				wantClones = append(wantClones, snapshot)
			}
			checkState(t, "state", c, want)
			// Every clone keeps what the state held when it was made, and
			// takes writes of its own.
			for i, clone := range clones {
				checkState(t, fmt.Sprintf("clone %d", i), clone, wantClones[i])
				clone.Write("extra", &counter{n: -1})
				wantClones[i]["extra"] = -1
				checkState(t, fmt.Sprintf("clone %d after a write", i), clone, wantClones[i])
			}
			checkState(t, "state after its clones' writes", c, want)
		})
	}
}

// checkState checks that c holds exactly want.
func checkState(t *testing.T, what string, c *CycleState, want map[StateKey]int) {
	t.Helper()
	for k, n := range want {
		if got, err := ReadState[*counter](c, k); err != nil || got.n != n {
			t.Errorf("%s: %s = %v, %v; want %d", what, k, got, err, n)
		}
	}
	if entries := c.entries(); len(entries) != len(want) {
		t.Errorf("%s: %d entries, want %d", what, len(entries), len(want))
	}
	if _, err := c.Read("never-written"); !errors.Is(err, ErrNotFound) {
		t.Errorf("%s: Read of a key never written: %v", what, err)
	}
}

func TestCycleStateWritesOfACycleAllocateNothing(t *testing.T) {
	data := make([]StateData, inlineStateEntries)
	keys := make([]StateKey, inlineStateEntries)
	for i := range data {
		data[i], keys[i] = &counter{n: i}, StateKey(fmt.Sprintf("k%d", i))
	}
	n := testing.AllocsPerRun(20, func() {
		c := NewCycleState()
		for i := range keys {
			c.Write(keys[i], data[i])
		}
	})
	if n != 1 {
		t.Errorf("a CycleState and %d writes allocate %v times, want once (the CycleState)", len(keys), n)
	}
}

// TestCycleStateIsSmall keeps a CycleState within one small allocation: a
// group cycle keeps one for every member in every placement it tries
// (600,000 for a gang of 1,000 over 600 racks).
func TestCycleStateIsSmall(t *testing.T) {
	const limit = 288
	if size := unsafe.Sizeof(CycleState{}); size > limit {
		t.Errorf("a CycleState takes %d bytes, want at most %d", size, limit)
	}
}
