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

package interpodaffinity

import (
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// TestKeyCountsCopyOnWrite changes counts at random, handing a shared copy
// out now and then as the count cache does, and checks after every change
// that the counts equal a plain slice's and every copy handed out still
// reads what it read when handed out.
func TestKeyCountsCopyOnWrite(t *testing.T) {
	for _, domains := range []int{1, 7, 64, 200} {
		kd := &keyDomains{key: hostKey}
		for i := range domains {
			kd.values = append(kd.values, "v"+strconv.Itoa(i))
		}
		rng := rand.New(rand.NewSource(int64(domains)))
		want := make([]int64, domains)
		cur := newKeyCounts(kd)
		type handed struct {
			kc   keyCounts
			want []int64
		}
		var out []handed
		for step := range 3000 {
			id := int32(rng.Intn(domains))
			want[id] += int64(rng.Intn(5) - 2)
			cur.set(id, want[id])
			if rng.Intn(3) == 0 {
				// Hand the counts out: the cache keeps working on a copy.
				out = append(out, handed{cur, slices.Clone(want)})
				cur.baseOwned, cur.overOwned = false, false
			}
			if cur.overlaidDomains() > maxOverlay {
				t.Fatalf("%d domains, step %d: %d overlaid domains, at most %d", domains, step, cur.overlaidDomains(), maxOverlay)
			}
			for i := range want {
				if got := cur.at(int32(i)); got != want[i] {
					t.Fatalf("%d domains, step %d: domain %d counts %d, want %d", domains, step, i, got, want[i])
				}
			}
			for j := range out {
				for i, w := range out[j].want {
					if got := out[j].kc.at(int32(i)); got != w {
						t.Fatalf("%d domains, step %d: copy %d changed: domain %d counts %d, want %d", domains, step, j, i, got, w)
					}
				}
			}
			if len(out) > 20 {
				out = out[1:]
			}
		}
	}
}
