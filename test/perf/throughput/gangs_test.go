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

import (
	"reflect"
	"testing"
	"time"
)

func TestGangTiming(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name  string
		bound map[string]time.Time
		n     int
		want  *GangTiming
	}{{
		name:  "from the start to the last member, and from the first member to the last",
		bound: map[string]time.Time{podName(0): at(900), podName(1): at(400), podName(2): at(700), podName(3): at(5000)},
		n:     3,
		want:  &GangTiming{Bound: 900 * time.Millisecond, Span: 500 * time.Millisecond},
	}, {
		name:  "a member not bound",
		bound: map[string]time.Time{podName(0): at(900), podName(2): at(700)},
		n:     3,
	}, {
		name: "no gang",
		n:    0,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gangTiming(tt.bound, tt.n, start)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("gangTiming() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
