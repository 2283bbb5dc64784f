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
	"cmp"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// read is one scripted result of a fakeReader.
type read struct {
	samples map[string]sample
	err     error
}

// fakeReader returns its reads in turn, then the last one again, and counts
// its calls.
type fakeReader struct {
	mu     sync.Mutex
	reads  []read
	calls  int
	closed bool
}

func (f *fakeReader) read(context.Context) (map[string]sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(f.reads) == 0 {
		return map[string]sample{}, nil
	}
	r := f.reads[0]
	if len(f.reads) > 1 {
		f.reads = f.reads[1:]
	}
	return r.samples, r.err
}

func (f *fakeReader) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
}

func (f *fakeReader) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// at returns a sample of cpu (and memory when given) taken d after t0.
func at(d time.Duration, cpu float64, mem ...float64) sample {
	s := sample{at: t0.Add(d), values: map[Resource]float64{CPU: cpu}}
	for _, m := range mem {
		s.values[Memory] = m
	}
	return s
}

func TestStore(t *testing.T) {
	boom := errors.New("boom")
	type step struct {
		// advance moves the clock before the read.
		advance time.Duration
		read    read
	}
	type check struct {
		node      string
		freshness Freshness
		usage     map[Resource]Stat
		sampledAt time.Time
	}
	tests := []struct {
		name     string
		src      SourceType
		known    func(string) bool
		steps    []step
		forget   string
		advance  time.Duration
		err      error
		lastRead time.Time
		checks   []check
	}{
		{
			name:   "never read",
			checks: []check{{node: "n1", freshness: Missing}},
		},
		{
			name:     "first sample is fresh",
			steps:    []step{{read: read{samples: map[string]sample{"n1": at(0, 0.5, 0.25)}}}},
			lastRead: t0,
			checks: []check{
				{node: "n1", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{
					CPU: {Average: 0.5, Latest: 0.5}, Memory: {Average: 0.25, Latest: 0.25},
				}},
				{node: "n2", freshness: Missing},
			},
		},
		{
			name:     "fresh up to staleAfter",
			steps:    []step{{read: read{samples: map[string]sample{"n1": at(0, 0.5)}}}},
			advance:  time.Minute,
			lastRead: t0,
			checks:   []check{{node: "n1", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}}},
		},
		{
			name:     "stale beyond staleAfter, usage still given",
			steps:    []step{{read: read{samples: map[string]sample{"n1": at(0, 0.5)}}}},
			advance:  time.Minute + time.Nanosecond,
			lastRead: t0,
			checks:   []check{{node: "n1", freshness: Stale, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}}},
		},
		{
			name: "samples fold into the average and the standard deviation",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5)}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(15*time.Second, 1)}}},
			},
			lastRead: t0.Add(15 * time.Second),
			checks: []check{{node: "n1", freshness: Fresh, sampledAt: t0.Add(15 * time.Second), usage: map[Resource]Stat{
				CPU: {Average: 0.55, StdDev: 0.25, Latest: 1},
			}}},
		},
		{
			name: "a Prometheus source is not smoothed again: its query aggregates",
			src:  Prometheus,
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5)}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(15*time.Second, 1)}}},
			},
			lastRead: t0.Add(15 * time.Second),
			checks: []check{{node: "n1", freshness: Fresh, sampledAt: t0.Add(15 * time.Second), usage: map[Resource]Stat{
				CPU: {Average: 1, StdDev: 0.25, Latest: 1},
			}}},
		},
		{
			name: "the same window read again is folded once",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5)}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(0, 0.5)}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(-time.Second, 1)}}},
			},
			lastRead: t0.Add(30 * time.Second),
			checks:   []check{{node: "n1", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}}},
		},
		{
			name: "a node absent from a read keeps its data and ages",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5), "n2": at(0, 0.1)}}},
				{advance: 50 * time.Second, read: read{samples: map[string]sample{"n2": at(50*time.Second, 0.1)}}},
			},
			advance:  20 * time.Second,
			lastRead: t0.Add(50 * time.Second),
			checks: []check{
				{node: "n1", freshness: Stale, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}},
				{node: "n2", freshness: Fresh, sampledAt: t0.Add(50 * time.Second), usage: map[Resource]Stat{CPU: {Average: 0.1, Latest: 0.1}}},
			},
		},
		{
			name: "a failed read keeps the data and sets Err",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5)}}},
				{advance: 15 * time.Second, read: read{err: boom}},
			},
			err:      boom,
			lastRead: t0,
			checks:   []check{{node: "n1", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}}},
		},
		{
			name: "a later success clears Err",
			steps: []step{
				{read: read{err: boom}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(15*time.Second, 0.5)}}},
			},
			lastRead: t0.Add(15 * time.Second),
			checks:   []check{{node: "n1", freshness: Fresh, sampledAt: t0.Add(15 * time.Second), usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}}},
		},
		{
			name: "a resource the newest sample lacks is left out",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5, 0.3)}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(15*time.Second, 0.5)}}},
			},
			lastRead: t0.Add(15 * time.Second),
			checks:   []check{{node: "n1", freshness: Fresh, sampledAt: t0.Add(15 * time.Second), usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}}},
		},
		{
			name: "a spread the source gives is the StdDev of its resource",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5, 0.3)}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": {
					at:     t0.Add(15 * time.Second),
					values: map[Resource]float64{CPU: 1, CPUStdDev: 0.125, Memory: 0.3, MemoryStdDev: 0.05},
				}}}},
			},
			lastRead: t0.Add(15 * time.Second),
			checks: []check{{node: "n1", freshness: Fresh, sampledAt: t0.Add(15 * time.Second), usage: map[Resource]Stat{
				CPU:    {Average: 0.55, StdDev: 0.125, Latest: 1},
				Memory: {Average: 0.3, StdDev: 0.05, Latest: 0.3},
			}}},
		},
		{
			name: "a spread from an older sample is not used",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": {at: t0, values: map[Resource]float64{CPU: 0.5, CPUStdDev: 0.4}}}}},
				{advance: 15 * time.Second, read: read{samples: map[string]sample{"n1": at(15*time.Second, 1)}}},
			},
			lastRead: t0.Add(15 * time.Second),
			checks: []check{{node: "n1", freshness: Fresh, sampledAt: t0.Add(15 * time.Second), usage: map[Resource]Stat{
				CPU: {Average: 0.55, StdDev: 0.25, Latest: 1},
			}}},
		},
		{
			name: "a spread without its resource gives no Stat",
			steps: []step{
				{read: read{samples: map[string]sample{"n1": {at: t0, values: map[Resource]float64{Metric: 0.5, CPUStdDev: 0.4}}}}},
			},
			lastRead: t0,
			checks: []check{{node: "n1", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{
				Metric: {Average: 0.5, Latest: 0.5},
			}}},
		},
		{
			name:     "forgotten nodes are missing",
			steps:    []step{{read: read{samples: map[string]sample{"n1": at(0, 0.5), "n2": at(0, 0.2)}}}},
			forget:   "n1",
			lastRead: t0,
			checks: []check{
				{node: "n1", freshness: Missing},
				{node: "n2", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.2, Latest: 0.2}}},
			},
		},
		{
			name:  "nodes no longer known are pruned after a read",
			known: func(name string) bool { return name != "gone" },
			steps: []step{
				{read: read{samples: map[string]sample{"n1": at(0, 0.5), "gone": at(0, 0.2)}}},
			},
			lastRead: t0,
			checks: []check{
				{node: "gone", freshness: Missing},
				{node: "n1", freshness: Fresh, sampledAt: t0, usage: map[Resource]Stat{CPU: {Average: 0.5, Latest: 0.5}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(t0)
			fr := &fakeReader{}
			s := &store{
				src:        Source{Type: cmp.Or(tt.src, MetricsServer)},
				clock:      clk,
				staleAfter: time.Minute,
				window:     15 * time.Minute,
				known:      tt.known,
				rd:         fr,
				nodes:      make(map[string]*nodeSeries),
			}
			for _, st := range tt.steps {
				clk.Step(st.advance)
				fr.reads = []read{st.read}
				if err := s.refresh(context.Background()); !errors.Is(err, st.read.err) {
					t.Fatalf("refresh() = %v, want %v", err, st.read.err)
				}
			}
			if tt.forget != "" {
				s.forget(tt.forget)
			}
			clk.Step(tt.advance)
			if err := s.Err(); !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Errorf("Err() = %v, want %v", err, tt.err)
			}
			if got := s.LastRead(); !got.Equal(tt.lastRead) {
				t.Errorf("LastRead() = %v, want %v", got, tt.lastRead)
			}
			for _, c := range tt.checks {
				u, f := s.Node(c.node)
				if f != c.freshness {
					t.Errorf("Node(%q) freshness = %v, want %v", c.node, f, c.freshness)
				}
				if !u.SampledAt.Equal(c.sampledAt) {
					t.Errorf("Node(%q).SampledAt = %v, want %v", c.node, u.SampledAt, c.sampledAt)
				}
				if len(u.Usage) != len(c.usage) {
					t.Errorf("Node(%q).Usage = %+v, want %+v", c.node, u.Usage, c.usage)
				}
				for r, want := range c.usage {
					got, ok := u.Usage[r]
					if !ok || !near(got.Average, want.Average) || !near(got.StdDev, want.StdDev) || got.Latest != want.Latest {
						t.Errorf("Node(%q).Usage[%s] = %+v, want %+v", c.node, r, got, want)
					}
				}
			}
		})
	}
}

func TestStoreNodeKeepsWhatItReturned(t *testing.T) {
	s := &store{
		clock:      testingclock.NewFakeClock(t0),
		staleAfter: time.Minute,
		window:     time.Minute,
		rd: &fakeReader{reads: []read{
			{samples: map[string]sample{"n1": at(0, 0.5)}},
			{samples: map[string]sample{"n1": at(time.Second, 1)}},
		}},
		nodes: make(map[string]*nodeSeries),
	}
	if err := s.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Node("n1")
	if err := s.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A cycle that took a node's usage reads the same numbers to its end.
	if got := before.Usage[CPU].Latest; got != 0.5 {
		t.Errorf("a later read changed a NodeUsage returned before: Latest = %v, want 0.5", got)
	}
	if after, _ := s.Node("n1"); after.Usage[CPU].Latest != 1 {
		t.Errorf("Node after the second read: %+v, want Latest 1", after.Usage)
	}
}

func TestFreshnessString(t *testing.T) {
	for f, want := range map[Freshness]string{Missing: "missing", Stale: "stale", Fresh: "fresh"} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", f, got, want)
		}
	}
}

func TestStoreIgnoresReadsItsCallerCancelled(t *testing.T) {
	s := &store{
		clock:      testingclock.NewFakeClock(t0),
		staleAfter: time.Minute,
		window:     time.Minute,
		rd:         &fakeReader{reads: []read{{err: context.Canceled}}},
		nodes:      make(map[string]*nodeSeries),
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.refresh(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("refresh() = %v, want context.Canceled", err)
	}
	if err := s.Err(); err != nil {
		t.Errorf("Err() = %v after a read its caller cancelled, want nil", err)
	}
}
