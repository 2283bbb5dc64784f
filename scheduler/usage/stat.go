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
	"time"
)

// ewmaWeight is the weight of each new sample in Stat.Average: the
// descheduler's metrics collector keeps 0.9 of the old average.
const ewmaWeight = 0.1

// maxPoints bounds the samples a series keeps for StdDev whatever the window
// and the poll interval (15 minutes of 15-second polls is 60).
const maxPoints = 1024

// point is one sample of one resource.
type point struct {
	at time.Time
	v  float64
}

// series is the history of one resource of one node.
type series struct {
	// avg is the exponentially weighted average of every sample folded.
	avg float64
	// at is when the newest sample was taken; zero before the first.
	at time.Time
	// points are the samples taken within the window before at, oldest
	// first; the newest is last.
	points []point
	// spread is the standard deviation a Prometheus source gave for the
	// resource (CPUStdDev, MemoryStdDev) in the sample taken at spreadAt;
	// it is StdDev while that is the newest sample.
	spread   float64
	spreadAt time.Time
}

// add folds a sample taken at at into the series, dropping the samples
// older than window before it. Without smooth, the average is the newest
// sample: a Prometheus query aggregates over its own window
// (avg_over_time), and the descheduler takes its value as it is.
func (s *series) add(at time.Time, v float64, window time.Duration, smooth bool) {
	if !smooth || (len(s.points) == 0 && s.at.IsZero()) {
		s.avg = v
	} else {
		s.avg += ewmaWeight * (v - s.avg)
	}
	s.at = at
	s.points = append(s.points, point{at: at, v: v})
	drop := 0
	for drop < len(s.points)-1 && (at.Sub(s.points[drop].at) >= window || len(s.points)-drop > maxPoints) {
		drop++
	}
	if drop > 0 {
		s.points = append(s.points[:0], s.points[drop:]...)
	}
}

// setSpread records the standard deviation the source gave with the sample
// taken at at.
func (s *series) setSpread(at time.Time, v float64) {
	s.spread, s.spreadAt = v, at
}

// stat returns the series as a Stat; the zero Stat before the first sample.
// StdDev is the spread the source gave with the newest sample, if it gave
// one, and the standard deviation of the window's samples otherwise.
func (s *series) stat() Stat {
	if len(s.points) == 0 {
		return Stat{}
	}
	st := Stat{Average: s.avg, Latest: s.points[len(s.points)-1].v}
	if !s.spreadAt.IsZero() && s.spreadAt.Equal(s.at) {
		st.StdDev = s.spread
	} else {
		st.StdDev = stdDev(s.points)
	}
	return st
}

// spreadOf returns the resource whose StdDev a spread resource gives.
func spreadOf(r Resource) (Resource, bool) {
	switch r {
	case CPUStdDev:
		return CPU, true
	case MemoryStdDev:
		return Memory, true
	default:
		return "", false
	}
}

// stdDev is the population standard deviation of the points' values.
func stdDev(ps []point) float64 {
	if len(ps) < 2 {
		return 0
	}
	var mean float64
	for _, p := range ps {
		mean += p.v
	}
	mean /= float64(len(ps))
	var sq float64
	for _, p := range ps {
		d := p.v - mean
		sq += d * d
	}
	return math.Sqrt(sq / float64(len(ps)))
}
