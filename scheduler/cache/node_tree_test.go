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
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestZoneRingOrder(t *testing.T) {
	type change struct {
		add    *v1.Node
		remove string
	}
	a := func(name, zone string) change { return change{add: cacheNode(name).Region("r").Zone(zone).Obj()} }
	rm := func(name string) change { return change{remove: name} }
	tests := []struct {
		name    string
		changes []change
		want    []string
	}{
		{name: "empty", want: []string{}},
		{name: "no zone labels form one zone", changes: []change{{add: cacheNode("x").Obj()}, {add: cacheNode("y").Obj()}}, want: []string{"x", "y"}},
		{name: "uneven zones", changes: []change{a("a1", "a"), a("a2", "a"), a("a3", "a"), a("b1", "b"), a("c1", "c"), a("c2", "c")},
			want: []string{"a1", "b1", "c1", "a2", "c2", "a3"}},
		{name: "duplicate add is ignored", changes: []change{a("a1", "a"), a("a1", "a"), a("b1", "b")}, want: []string{"a1", "b1"}},
		{name: "zone change moves the node to the end of its new zone", changes: []change{a("a1", "a"), a("b1", "b"), a("a1", "b")},
			want: []string{"b1", "a1"}},
		{name: "emptied zone is dropped", changes: []change{a("a1", "a"), a("b1", "b"), a("c1", "c"), rm("b1"), a("b2", "b")},
			want: []string{"a1", "c1", "b2"}},
		{name: "removing an unknown node is harmless", changes: []change{a("a1", "a"), rm("zz")}, want: []string{"a1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newZoneRing()
			for _, c := range tt.changes {
				if c.add != nil {
					r.add(c.add)
				} else {
					r.remove(c.remove)
				}
			}
			if got := r.order(); !slices.Equal(got, tt.want) {
				t.Fatalf("order %v, want %v", got, tt.want)
			}
			if r.len() != len(tt.want) {
				t.Fatalf("len %d, want %d", r.len(), len(tt.want))
			}
		})
	}
}

func TestRecencyList(t *testing.T) {
	entries := map[string]*nodeEntry{}
	for _, n := range []string{"a", "b", "c"} {
		entries[n] = &nodeEntry{name: n}
	}
	walk := func(l *recencyList) []string {
		var out []string
		for e := l.head; e != nil; e = e.older {
			out = append(out, e.name)
		}
		return out
	}
	tests := []struct {
		name string
		ops  []string // "+x" touches x, "-x" removes x
		want []string
	}{
		{name: "newest first", ops: []string{"+a", "+b", "+c"}, want: []string{"c", "b", "a"}},
		{name: "touch moves to head", ops: []string{"+a", "+b", "+c", "+a"}, want: []string{"a", "c", "b"}},
		{name: "touching the head keeps order", ops: []string{"+a", "+b", "+b"}, want: []string{"b", "a"}},
		{name: "remove middle", ops: []string{"+a", "+b", "+c", "-b"}, want: []string{"c", "a"}},
		{name: "remove head", ops: []string{"+a", "+b", "-b"}, want: []string{"a"}},
		{name: "remove unlinked", ops: []string{"+a", "-b", "-b"}, want: []string{"a"}},
		{name: "re-add removed", ops: []string{"+a", "+b", "-a", "+a"}, want: []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &recencyList{}
			for _, e := range entries {
				e.newer, e.older, e.linked = nil, nil, false
			}
			for _, op := range tt.ops {
				if op[0] == '+' {
					l.touch(entries[op[1:]])
				} else {
					l.remove(entries[op[1:]])
				}
			}
			if got := walk(l); !slices.Equal(got, tt.want) {
				t.Fatalf("list %v, want %v", got, tt.want)
			}
		})
	}
}
