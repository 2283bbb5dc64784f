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
	"math"
	"time"
)

// backoffWindow is the ordering window of backoffQ when Pop may take from it:
// pods whose backoff ends in the same window are one batch, sorted among
// themselves as activeQ sorts, and leave backoffQ together when the window is
// over.
const backoffWindow = time.Second

// windowEnd returns the end of the backoff window t falls in.
func windowEnd(t time.Time) time.Time {
	return t.Truncate(backoffWindow).Add(backoffWindow)
}

// backoffDuration is initial doubled for every attempt after the first, capped
// at maxBackoff. No attempt yet, or a zero maxBackoff, means no backoff.
func backoffDuration(attempts int, initial, maxBackoff time.Duration) time.Duration {
	if attempts <= 0 || maxBackoff <= 0 || initial <= 0 {
		return 0
	}
	d := initial
	for i := 1; i < attempts; i++ {
		if d > maxBackoff-d {
			return maxBackoff
		}
		d *= 2
	}
	return min(d, maxBackoff)
}

// groupMaxBackoff is the maximum backoff of a PodGroup member its group's
// cycle requeued with size members in all: maxBackoff times the square
// root of size, as kube-scheduler v1.37.1 stretches a pod group's, so a
// large group that cannot fit retries less often than a pod.
func groupMaxBackoff(maxBackoff time.Duration, size int) time.Duration {
	if size <= 1 {
		return maxBackoff
	}
	return time.Duration(float64(maxBackoff) * math.Sqrt(float64(size)))
}
