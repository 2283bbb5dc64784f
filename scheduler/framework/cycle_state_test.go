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
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/sets"
)

// counter is test state data whose Clone copies the count.
type counter struct{ n int }

func (c *counter) Clone() StateData { return &counter{n: c.n} }

func TestCycleState(t *testing.T) {
	c := NewCycleState()
	if _, err := c.Read("missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read of a missing key: %v, want ErrNotFound", err)
	}
	a := &counter{n: 1}
	c.Write("a", a)
	c.Write("b", &counter{n: 2})
	if got, err := ReadState[*counter](c, "a"); err != nil || got != a {
		t.Fatalf("ReadState(a) = %v, %v; want the stored value", got, err)
	}

	clone := c.Clone()
	a.n = 10
	c.Delete("b")
	if _, err := c.Read("b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Read after Delete: %v, want ErrNotFound", err)
	}
	if got, err := ReadState[*counter](clone, "a"); err != nil || got.n != 1 {
		t.Errorf("the clone's a = %v, %v; want a deep copy holding 1", got, err)
	}
	if got, err := ReadState[*counter](clone, "b"); err != nil || got.n != 2 {
		t.Errorf("the clone lost b after the original deleted it: %v, %v", got, err)
	}
	if _, err := ReadState[*counter](c, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadState of a missing key: %v", err)
	}
	replaced := &counter{n: 3}
	c.Write("a", replaced)
	c.Write("b", &counter{n: 4})
	if got, err := ReadState[*counter](c, "a"); err != nil || got != replaced {
		t.Errorf("ReadState(a) after a second Write = %v, %v; want the new value", got, err)
	}
	if got, err := ReadState[*counter](c, "b"); err != nil || got.n != 4 {
		t.Errorf("ReadState(b) written again after Delete = %v, %v", got, err)
	}
	if got, err := ReadState[*counter](clone, "a"); err != nil || got.n != 1 {
		t.Errorf("the clone's a changed with the original's: %v, %v", got, err)
	}
	var empty *CycleState
	if empty.Clone() != nil {
		t.Error("Clone of nil is not nil")
	}
}

// TestCycleStateConcurrentReadsAndWrites runs under -race: new keys are
// appended past what readers see, existing ones replaced in a copy.
func TestCycleStateConcurrentReadsAndWrites(t *testing.T) {
	c := NewCycleState()
	c.Write("stable", &counter{n: 7})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if w == 0 {
					c.Write(StateKey(rune('a'+i%26)), &counter{n: i})
					continue
				}
				if got, err := ReadState[*counter](c, "stable"); err != nil || got.n != 7 {
					t.Errorf("a concurrent read saw %v, %v", got, err)
					return
				}
				if got, err := ReadState[*counter](c, StateKey(rune('a'+i%26))); err == nil && got.n%26 != i%26 {
					t.Errorf("key %c holds %d", 'a'+i%26, got.n)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCycleStateSkips(t *testing.T) {
	tests := []struct {
		name                string
		filter, score       sets.Set[string]
		wantFilter, wantAny bool
		wantScore           bool
		wantSkippedFilters  []string
	}{
		{name: "nothing skipped", wantSkippedFilters: []string{}},
		{name: "the plugin's filter skipped", filter: sets.New("A", "B"), wantFilter: true, wantAny: true, wantSkippedFilters: []string{"A", "B"}},
		{name: "another plugin's filter skipped", filter: sets.New("B"), wantAny: true, wantSkippedFilters: []string{"B"}},
		{name: "the plugin's score skipped", score: sets.New("A"), wantScore: true, wantSkippedFilters: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := NewCycleState()
			state.SetSkipFilterPlugins(tt.filter)
			state.SetSkipScorePlugins(tt.score)
			for _, c := range []*CycleState{state, state.Clone()} {
				got := []any{c.SkipsFilter("A"), c.SkipsAnyFilter(), c.SkipsScore("A"), c.SkippedFilters()}
				want := []any{tt.wantFilter, tt.wantAny, tt.wantScore, tt.wantSkippedFilters}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("SkipsFilter, SkipsAnyFilter, SkipsScore, SkippedFilters (-want +got):\n%s", diff)
				}
			}
		})
	}
}
