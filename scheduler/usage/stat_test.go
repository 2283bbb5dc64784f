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

package usage

import (
	"math"
	"testing"
	"time"
)

func TestSeries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type in struct {
		after time.Duration
		v     float64
	}
	tests := []struct {
		name    string
		window  time.Duration
		samples []in
		want    Stat
		points  int
	}{
		{name: "none", window: time.Hour, want: Stat{}},
		{name: "first sample as is", window: time.Hour, samples: []in{{0, 0.4}}, want: Stat{Average: 0.4, Latest: 0.4}, points: 1},
		{
			name:    "EWMA weighs each new sample 0.1",
			window:  time.Hour,
			samples: []in{{0, 0.5}, {time.Minute, 1}},
			want:    Stat{Average: 0.55, StdDev: 0.25, Latest: 1},
			points:  2,
		},
		{
			name:    "three samples",
			window:  time.Hour,
			samples: []in{{0, 0}, {time.Minute, 1}, {2 * time.Minute, 1}},
			// 0 → 0.1 → 0.19; mean 2/3, variance (4/9+1/9+1/9)/3 = 2/9.
			want:   Stat{Average: 0.19, StdDev: math.Sqrt(2.0 / 9), Latest: 1},
			points: 3,
		},
		{
			name:    "samples older than the window leave StdDev but not the Average",
			window:  15 * time.Minute,
			samples: []in{{0, 0}, {10 * time.Minute, 1}, {20 * time.Minute, 1}},
			want:    Stat{Average: 0.19, StdDev: 0, Latest: 1},
			points:  2,
		},
		{
			name:    "a sample exactly a window old is dropped",
			window:  10 * time.Minute,
			samples: []in{{0, 0}, {10 * time.Minute, 1}},
			want:    Stat{Average: 0.1, StdDev: 0, Latest: 1},
			points:  1,
		},
		{
			name:    "the newest sample stays whatever the window",
			window:  time.Nanosecond,
			samples: []in{{0, 0.2}, {time.Hour, 0.6}},
			want:    Stat{Average: 0.24, Latest: 0.6},
			points:  1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s series
			for _, smp := range tt.samples {
				s.add(t0.Add(smp.after), smp.v, tt.window, true)
			}
			got := s.stat()
			if !near(got.Average, tt.want.Average) || !near(got.StdDev, tt.want.StdDev) || got.Latest != tt.want.Latest {
				t.Errorf("stat() = %+v, want %+v", got, tt.want)
			}
			if len(s.points) != tt.points {
				t.Errorf("kept %d points, want %d", len(s.points), tt.points)
			}
		})
	}
}

func TestSeriesKeepsAtMostMaxPoints(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s series
	for i := range maxPoints + 10 {
		s.add(t0.Add(time.Duration(i)*time.Millisecond), float64(i%2), time.Hour, true)
	}
	if len(s.points) != maxPoints {
		t.Fatalf("kept %d points, want %d", len(s.points), maxPoints)
	}
	if got, want := s.points[0].at, t0.Add(10*time.Millisecond); !got.Equal(want) {
		t.Errorf("oldest point at %v, want %v", got, want)
	}
}

// near reports whether two floats are equal but for rounding.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
