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

package shadow

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// DefaultRecent is how many disagreements a Recorder keeps.
const DefaultRecent = 10

// Disagreement is one pod the live profile and the shadow place differently.
type Disagreement struct {
	// Pod is namespace/name.
	Pod string
	// Decision is the comparison.
	Decision Decision
	// Time is when the shadow evaluated the pod.
	Time time.Time
}

// PluginCount is how many disagreements a plugin decided.
type PluginCount struct {
	// Plugin is the plugin's name.
	Plugin string
	// Count is the number of disagreements.
	Count int64
}

// Stats are a shadow profile's figures since Since.
type Stats struct {
	// Since is when the Recorder started counting.
	Since time.Time
	// Outcomes counts the attempts by outcome (the Outcome constants);
	// the evaluated attempts are all but OutcomeDropped.
	Outcomes map[string]int64
	// Deciding counts the plugins deciding disagreements, most first.
	Deciding []PluginCount
	// Recent are the last disagreements, newest first.
	Recent []Disagreement
}

// Evaluated returns the number of attempts the shadow evaluated.
func (s Stats) Evaluated() int64 {
	var n int64
	for outcome, c := range s.Outcomes {
		if outcome != OutcomeDropped {
			n += c
		}
	}
	return n
}

// Recorder accumulates one shadow profile's decisions. It is safe for
// concurrent use: the shadow's worker records, the controller reads.
type Recorder struct {
	clock  clock.PassiveClock
	recent int

	mu       sync.Mutex
	since    time.Time
	outcomes map[string]int64
	deciding map[string]int64
	// ring holds the last disagreements; next is where the next one goes.
	ring []Disagreement
	next int
	// version counts the changes, so a reader can tell nothing changed.
	version uint64
}

// RecorderOption configures a Recorder.
type RecorderOption func(*Recorder)

// WithRecent sets how many disagreements are kept (DefaultRecent by default).
func WithRecent(n int) RecorderOption { return func(r *Recorder) { r.recent = max(n, 1) } }

// NewRecorder returns a Recorder counting from the clock's now.
func NewRecorder(clk clock.PassiveClock, opts ...RecorderOption) *Recorder {
	r := &Recorder{clock: clk, recent: DefaultRecent, outcomes: make(map[string]int64), deciding: make(map[string]int64)}
	for _, opt := range opts {
		opt(r)
	}
	r.since = clk.Now()
	return r
}

// Record adds one compared pod.
func (r *Recorder) Record(pod string, d Decision) {
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.version++
	r.outcomes[d.Outcome]++
	if d.Outcome == OutcomeAgreed {
		return
	}
	for _, p := range d.Deciding {
		r.deciding[p]++
	}
	entry := Disagreement{Pod: pod, Decision: d, Time: now}
	if len(r.ring) < r.recent {
		r.ring = append(r.ring, entry)
	} else {
		r.ring[r.next] = entry
	}
	r.next = (r.next + 1) % r.recent
}

// Count adds an attempt with an outcome that carries no comparison
// (OutcomeDropped, OutcomeError).
func (r *Recorder) Count(outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.version++
	r.outcomes[outcome]++
}

// Version returns a number that changes whenever the figures do.
func (r *Recorder) Version() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.version
}

// Stats returns a copy of the figures.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Stats{Since: r.since, Outcomes: make(map[string]int64, len(r.outcomes))}
	for k, v := range r.outcomes {
		s.Outcomes[k] = v
	}
	for p, c := range r.deciding {
		s.Deciding = append(s.Deciding, PluginCount{Plugin: p, Count: c})
	}
	slices.SortFunc(s.Deciding, func(a, b PluginCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Plugin, b.Plugin)
	})
	for i := range len(r.ring) {
		// Newest first: the one before next, going back.
		s.Recent = append(s.Recent, r.ring[(r.next-1-i+2*len(r.ring))%len(r.ring)])
	}
	return s
}
