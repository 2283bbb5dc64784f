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

package load

import (
	"testing"
	"time"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/usage"
)

// readView is a usage.ReadView of one read whose samples before
// staleBefore are stale.
type readView struct {
	read        uint64
	staleBefore time.Time
}

func (v readView) Node(string) (usage.NodeUsage, usage.Freshness) {
	return usage.NodeUsage{}, usage.Missing
}
func (v readView) Read() uint64             { return v.read }
func (v readView) StaleAt(t time.Time) bool { return t.Before(v.staleBefore) }

// plainView is a View that does not say which read it shows.
type plainView struct{}

func (plainView) Node(string) (usage.NodeUsage, usage.Freshness) {
	return usage.NodeUsage{}, usage.Missing
}

// placed returns a NodeInfo at position i of a snapshot, of generation gen.
func placed(i int, gen int64) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetSnapshotIndex(i)
	ni.Generation = gen
	return ni
}

func TestMemo(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	view := readView{read: 1, staleBefore: t0.Add(-time.Minute)}
	kept := placed(3, 7)
	tests := []struct {
		name string
		// view and node are what Get is asked for, after Put kept 42 for
		// kept under view, its sample fresh at t0.
		view usage.View
		node *framework.NodeInfo
		want bool
	}{
		{name: "the same view and NodeInfo", view: view, node: kept, want: true},
		{name: "another view of the same read", view: readView{read: 1, staleBefore: t0.Add(-30 * time.Second)}, node: kept, want: true},
		{name: "a later read", view: readView{read: 2, staleBefore: view.staleBefore}, node: kept},
		{name: "the sample turned stale", view: readView{read: 1, staleBefore: t0.Add(time.Second)}, node: kept},
		{name: "the node's pods changed", view: view, node: func() *framework.NodeInfo { ni := kept; c := *ni; c.Generation = 8; return &c }()},
		{name: "another NodeInfo at the same position", view: view, node: placed(3, 7)},
		{name: "another position", view: view, node: placed(4, 7)},
		{name: "a view that does not say its read", view: plainView{}, node: kept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Memo[int]
			m.Put(view, kept, usage.Fresh, t0, 42)
			got, ok := m.Get(tt.view, tt.node)
			if ok != tt.want || (ok && got != 42) {
				t.Errorf("Get = %d, %v; want hit %v", got, ok, tt.want)
			}
		})
	}
}

func TestMemoKeepsNothingItCannotCheck(t *testing.T) {
	var m Memo[int]
	unplaced := framework.NewNodeInfo()
	m.Put(readView{read: 1}, unplaced, usage.Fresh, time.Time{}, 1)
	if _, ok := m.Get(readView{read: 1}, unplaced); ok {
		t.Error("kept the value of a NodeInfo outside a snapshot's list")
	}
	ni := placed(0, 1)
	m.Put(plainView{}, ni, usage.Fresh, time.Time{}, 1)
	if _, ok := m.Get(plainView{}, ni); ok {
		t.Error("kept a value computed from a view that does not say its read")
	}
	// Positions beyond the first grow the memo.
	far := placed(1000, 1)
	m.Put(readView{read: 1}, far, usage.Missing, time.Time{}, 5)
	if got, ok := m.Get(readView{read: 1}, far); !ok || got != 5 {
		t.Errorf("Get after growing = %d, %v; want 5, true", got, ok)
	}
}
