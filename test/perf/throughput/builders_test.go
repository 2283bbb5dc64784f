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

package throughput

import "time"

// bindsAt returns bind times at the given offsets from a fixed origin.
func bindsAt(offsets ...time.Duration) []time.Time {
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]time.Time, len(offsets))
	for i, o := range offsets {
		out[i] = origin.Add(o)
	}
	return out
}

// evenly returns n offsets spread evenly over d, the first at 0 and the last at d.
func evenly(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		if n > 1 {
			out[i] = d * time.Duration(i) / time.Duration(n-1)
		}
	}
	return out
}
