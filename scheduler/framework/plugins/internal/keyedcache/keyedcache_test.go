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

package keyedcache

import (
	"slices"
	"testing"
)

func TestCache(t *testing.T) {
	tests := []struct {
		name string
		// asks are the keys asked for in turn.
		asks []string
		// wantHit[i] says whether asks[i] got a value.
		wantHit []bool
		// wantKeys are the keys held at the end.
		wantKeys []string
	}{
		{name: "a key asked once gets nothing", asks: []string{"a"}, wantHit: []bool{false}},
		{name: "a key asked twice is admitted", asks: []string{"a", "a", "a"}, wantHit: []bool{false, true, true}, wantKeys: []string{"a"}},
		{
			name:    "misses of other keys in between still count",
			asks:    []string{"a", "b", "a", "b"},
			wantHit: []bool{false, false, true, true}, wantKeys: []string{"a", "b"},
		},
		{
			name: "a miss older than the remembered ones is forgotten",
			// maxMissed is 2: a's miss is pushed out by b and c.
			asks:    []string{"a", "b", "c", "a"},
			wantHit: []bool{false, false, false, false},
		},
		{
			name: "the least recently used value makes room",
			// maxEntries is 2: a, then b, then a is used again, so c evicts b.
			asks:     []string{"a", "a", "b", "b", "a", "c", "c"},
			wantHit:  []bool{false, true, false, true, true, false, true},
			wantKeys: []string{"a", "c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[string](2, 2)
			created := 0
			for i, key := range tt.asks {
				v, hit := c.Get(key, func() string { created++; return "v-" + key })
				if hit != tt.wantHit[i] {
					t.Fatalf("ask %d (%s): hit = %v, want %v", i, key, hit, tt.wantHit[i])
				}
				if hit && v != "v-"+key {
					t.Fatalf("ask %d (%s): value %q", i, key, v)
				}
			}
			var keys []string
			for _, k := range []string{"a", "b", "c"} {
				if c.Has(k) {
					keys = append(keys, k)
				}
			}
			if !slices.Equal(keys, tt.wantKeys) || c.Len() != len(tt.wantKeys) {
				t.Errorf("held %v (Len %d), want %v", keys, c.Len(), tt.wantKeys)
			}
			if created > len(tt.asks) {
				t.Errorf("created %d values for %d asks", created, len(tt.asks))
			}
		})
	}
}

func TestCacheCreatesOncePerAdmission(t *testing.T) {
	c := New[*int](1, 4)
	created := 0
	create := func() *int { created++; n := created; return &n }
	c.Get("a", create)
	first, _ := c.Get("a", create)
	again, _ := c.Get("a", create)
	if created != 1 || first != again {
		t.Errorf("created %d values; the same key returned %p then %p", created, first, again)
	}
}
