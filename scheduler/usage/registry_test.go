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
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	testingclock "k8s.io/utils/clock/testing"
)

// testRegistry is a Registry on a fake clock whose sources are read by
// fakeReaders.
type testRegistry struct {
	*Registry
	clock *testingclock.FakeClock

	mu      sync.Mutex
	readers []*fakeReader
	// script is what every new reader returns.
	script []read
}

func newTestRegistry(t *testing.T, opts ...Option) *testRegistry {
	t.Helper()
	tr := &testRegistry{clock: testingclock.NewFakeClock(t0)}
	tr.Registry = NewRegistry(append([]Option{WithClock(tr.clock)}, opts...)...)
	tr.newReader = func(Source) reader {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		fr := &fakeReader{reads: tr.script}
		tr.readers = append(tr.readers, fr)
		return fr
	}
	t.Cleanup(func() { waitPollers(t, tr.Registry) })
	return tr
}

// reader returns the i-th reader made.
func (tr *testRegistry) reader(t *testing.T, i int) *fakeReader {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if i >= len(tr.readers) {
		t.Fatalf("%d readers made, want at least %d", len(tr.readers), i+1)
	}
	return tr.readers[i]
}

func (tr *testRegistry) readerCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.readers)
}

// tick moves the clock a poll interval on once the poller waits for it.
func (tr *testRegistry) tick(t *testing.T) {
	t.Helper()
	eventually(t, "the poller to wait for its ticker", tr.clock.HasWaiters)
	tr.clock.Step(tr.interval)
}

// eventually fails t unless cond becomes true within a few seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitPollers fails t unless every polling goroutine of r ends soon.
func waitPollers(t *testing.T, r *Registry) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		r.pollers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("polling goroutines still running")
	}
}

var (
	metricsServer = Source{Type: MetricsServer}
	promA         = Source{Type: Prometheus, Address: "http://a:9090", Queries: map[Resource]string{CPU: "cpu_q"}}
)

func TestRegistryAcquireShares(t *testing.T) {
	tests := []struct {
		name       string
		a, b       Source
		wantStores int
	}{
		{name: "equal sources share a store", a: metricsServer, b: Source{Type: MetricsServer}, wantStores: 1},
		{
			name:       "equal Prometheus sources share a store",
			a:          promA,
			b:          Source{Type: Prometheus, Address: "http://a:9090/", Queries: map[Resource]string{CPU: "cpu_q"}},
			wantStores: 1,
		},
		{name: "different sources get a store each", a: metricsServer, b: promA, wantStores: 2},
		{
			name:       "different queries get a store each",
			a:          promA,
			b:          Source{Type: Prometheus, Address: "http://a:9090", Queries: map[Resource]string{CPU: "other"}},
			wantStores: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTestRegistry(t)
			sa, releaseA := tr.Acquire(context.Background(), tt.a)
			defer releaseA()
			sb, releaseB := tr.Acquire(context.Background(), tt.b)
			defer releaseB()
			if got := sa == sb; got != (tt.wantStores == 1) {
				t.Errorf("same store = %v, want %v", got, tt.wantStores == 1)
			}
			if got := tr.readerCount(); got != tt.wantStores {
				t.Errorf("%d readers made, want %d", got, tt.wantStores)
			}
			if sa.Source().key() != tt.a.key() || sb.Source().key() != tt.b.key() {
				t.Errorf("stores read %v and %v, want %v and %v", sa.Source(), sb.Source(), tt.a, tt.b)
			}
		})
	}
}

func TestRegistryPollsUntilTheLastRelease(t *testing.T) {
	tr := newTestRegistry(t)
	tr.script = []read{{samples: map[string]sample{"n1": at(0, 0.5)}}}
	s, release1 := tr.Acquire(context.Background(), metricsServer)
	_, release2 := tr.Acquire(context.Background(), metricsServer)
	fr := tr.reader(t, 0)

	eventually(t, "the first read, at once", func() bool { return fr.count() == 1 })
	if u, f := s.Node("n1"); f != Fresh || u.Usage[CPU].Latest != 0.5 {
		t.Errorf("Node(n1) = %+v, %v after the first read", u, f)
	}
	tr.tick(t)
	eventually(t, "the second read, a poll interval later", func() bool { return fr.count() == 2 })

	release1()
	release1() // A second call does nothing.
	tr.tick(t)
	eventually(t, "a read while one holder is left", func() bool { return fr.count() == 3 })

	release2()
	waitPollers(t, tr.Registry)
	tr.clock.Step(10 * tr.interval)
	time.Sleep(10 * time.Millisecond)
	if got := fr.count(); got != 3 {
		t.Errorf("%d reads after the last release, want 3", got)
	}
	fr.mu.Lock()
	closed := fr.closed
	fr.mu.Unlock()
	if !closed {
		t.Error("the reader was not closed after the last release")
	}

	// Acquired again: a new store, read at once.
	s2, release3 := tr.Acquire(context.Background(), metricsServer)
	defer release3()
	if s2 == s {
		t.Error("a source acquired after its last release got its old store")
	}
	eventually(t, "the new store's first read", func() bool { return tr.readerCount() == 2 && tr.reader(t, 1).count() == 1 })
}

func TestRegistryStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tr := newTestRegistry(t, WithContext(ctx))
	_, release := tr.Acquire(context.Background(), metricsServer)
	defer release()
	_, release2 := tr.Acquire(context.Background(), promA)
	defer release2()
	eventually(t, "both first reads", func() bool {
		return tr.readerCount() == 2 && tr.reader(t, 0).count() == 1 && tr.reader(t, 1).count() == 1
	})
	cancel()
	waitPollers(t, tr.Registry)
}

func TestRegistryReadNow(t *testing.T) {
	tr := newTestRegistry(t)
	tr.script = []read{
		{samples: map[string]sample{"n1": at(0, 0.5)}},
		{samples: map[string]sample{"n1": at(time.Second, 1)}},
	}
	shared, release := tr.Acquire(context.Background(), metricsServer)
	defer release()
	fr := tr.reader(t, 0)
	eventually(t, "the first read", func() bool { return fr.count() == 1 })

	t.Run("acquired source: into the shared store", func(t *testing.T) {
		s, err := tr.ReadNow(context.Background(), metricsServer)
		if err != nil {
			t.Fatal(err)
		}
		if s != shared {
			t.Error("ReadNow of an acquired source did not use its store")
		}
		if u, _ := shared.Node("n1"); !near(u.Usage[CPU].Average, 0.55) {
			t.Errorf("Node(n1) = %+v, want the second sample folded in", u)
		}
	})
	t.Run("source not acquired: a store of its own", func(t *testing.T) {
		tr.script = []read{{err: errors.New("boom")}}
		s, err := tr.ReadNow(context.Background(), promA)
		if err == nil || err.Error() != "boom" || s.Err() != err {
			t.Fatalf("ReadNow() = %v (store's Err %v), want boom", err, s.Err())
		}
		if s == shared {
			t.Error("ReadNow of another source used the shared store")
		}
		fr := tr.reader(t, 1)
		fr.mu.Lock()
		defer fr.mu.Unlock()
		if fr.calls != 1 || !fr.closed {
			t.Errorf("the one-off reader was read %d times, closed %v; want once, closed", fr.calls, fr.closed)
		}
	})
}

func TestRegistryForget(t *testing.T) {
	tr := newTestRegistry(t)
	tr.script = []read{{samples: map[string]sample{"n1": at(0, 0.5), "n2": at(0, 0.5)}}}
	a, releaseA := tr.Acquire(context.Background(), metricsServer)
	defer releaseA()
	b, releaseB := tr.Acquire(context.Background(), promA)
	defer releaseB()
	eventually(t, "both first reads", func() bool {
		return tr.readerCount() == 2 && tr.reader(t, 0).count() == 1 && tr.reader(t, 1).count() == 1
	})
	tr.Forget("n1")
	for _, s := range []Store{a, b} {
		if _, f := s.Node("n1"); f != Missing {
			t.Errorf("%v: forgotten node is %v", s.Source(), f)
		}
		if _, f := s.Node("n2"); f != Fresh {
			t.Errorf("%v: other node is %v", s.Source(), f)
		}
	}
}

func TestRegistryDefaults(t *testing.T) {
	tests := []struct {
		name                         string
		opts                         []Option
		interval, staleAfter, window time.Duration
	}{
		{name: "defaults", interval: 15 * time.Second, staleAfter: time.Minute, window: 15 * time.Minute},
		{
			name:     "stale after three intervals",
			opts:     []Option{WithPollInterval(30 * time.Second)},
			interval: 30 * time.Second, staleAfter: 90 * time.Second, window: 15 * time.Minute,
		},
		{
			name:     "set",
			opts:     []Option{WithPollInterval(5 * time.Second), WithStaleAfter(10 * time.Second), WithWindow(time.Minute)},
			interval: 5 * time.Second, staleAfter: 10 * time.Second, window: time.Minute,
		},
		{
			name:     "zero means default",
			opts:     []Option{WithPollInterval(0), WithStaleAfter(-1), WithWindow(0)},
			interval: 15 * time.Second, staleAfter: time.Minute, window: 15 * time.Minute,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry(tt.opts...)
			if r.interval != tt.interval || r.staleAfter != tt.staleAfter || r.window != tt.window {
				t.Errorf("interval, staleAfter, window = %v, %v, %v, want %v, %v, %v",
					r.interval, r.staleAfter, r.window, tt.interval, tt.staleAfter, tt.window)
			}
		})
	}
}

func TestRegistryReaders(t *testing.T) {
	end := t0.Add(-5 * time.Second)
	alloc := allocatable(map[string][2]int64{"n1": {4000, 8 << 30}})
	fp := &fakePrometheus{token: "s3cret", results: map[string]string{
		"load": vector("instance=n1 0.5", "instance=deleted 0.5"),
	}}
	srv := httptest.NewServer(fp)
	defer srv.Close()
	prom := Source{
		Type: Prometheus, Address: srv.URL, Queries: map[Resource]string{Metric: "load"},
		Token: &SecretKeyRef{Namespace: "monitoring", Name: "prom", Key: "token"},
	}
	getter := secrets(map[string]string{"monitoring/prom/token": "s3cret"})
	tests := []struct {
		name    string
		opts    []Option
		src     Source
		want    map[string]map[Resource]float64
		wantErr string
	}{
		{
			name: "metrics-server",
			opts: []Option{
				WithMetricsClient(metricsClient(t, nodeMetrics("n1", end, "1", "2Gi"), nodeMetrics("n2", end, "1", "2Gi"))),
				WithAllocatable(alloc),
			},
			src:  metricsServer,
			want: map[string]map[Resource]float64{"n1": {CPU: 0.25, Memory: 0.25}},
		},
		{
			name:    "metrics-server without a client",
			opts:    []Option{WithAllocatable(alloc)},
			src:     metricsServer,
			wantErr: "no metrics.k8s.io client configured",
		},
		{
			name:    "metrics-server without allocatable",
			opts:    []Option{WithMetricsClient(metricsClient(t))},
			src:     metricsServer,
			wantErr: "no node allocatable configured to divide metrics-server's usage by",
		},
		{
			name: "prometheus, nodes no longer in the cluster pruned",
			opts: []Option{WithSecretGetter(getter), WithAllocatable(alloc)},
			src:  prom,
			want: map[string]map[Resource]float64{"n1": {Metric: 0.5}},
		},
		{
			name: "prometheus without allocatable keeps every node",
			opts: []Option{WithSecretGetter(getter)},
			src:  prom,
			want: map[string]map[Resource]float64{"n1": {Metric: 0.5}, "deleted": {Metric: 0.5}},
		},
		{
			name:    "invalid source",
			src:     Source{Type: Prometheus, Queries: map[Resource]string{CPU: "q"}},
			wantErr: "invalid usage source: prometheus source has no address",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(t0)
			r := NewRegistry(append(tt.opts, WithClock(clk))...)
			defer waitPollers(t, r)
			s, release := r.Acquire(context.Background(), tt.src)
			defer release()
			eventually(t, "a read", func() bool { return !s.LastRead().IsZero() || s.Err() != nil })
			if tt.wantErr != "" {
				if err := s.Err(); err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Err() = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err := s.Err(); err != nil {
				t.Fatalf("Err() = %v", err)
			}
			for _, node := range []string{"n1", "n2", "deleted"} {
				u, f := s.Node(node)
				want, ok := tt.want[node]
				if !ok {
					if f != Missing {
						t.Errorf("Node(%q) = %+v, %v, want missing", node, u, f)
					}
					continue
				}
				if f != Fresh || len(u.Usage) != len(want) {
					t.Errorf("Node(%q) = %+v, %v, want fresh %v", node, u, f, want)
				}
				for res, v := range want {
					if got := u.Usage[res]; !near(got.Latest, v) || !near(got.Average, v) {
						t.Errorf("Node(%q).Usage[%s] = %+v, want %v", node, res, got, v)
					}
				}
			}
		})
	}
}

func TestRegistryLogsReadErrorsOnChange(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{})
	tr := newTestRegistry(t, WithContext(logr.NewContext(context.Background(), logger)))
	boom := read{err: errors.New("boom")}
	tr.script = []read{boom, boom, boom, {samples: map[string]sample{}}}
	_, release := tr.Acquire(context.Background(), metricsServer)
	defer release()
	fr := tr.reader(t, 0)
	eventually(t, "the first read", func() bool { return fr.count() == 1 })
	for i := 2; i <= 4; i++ {
		tr.tick(t)
		eventually(t, "the next read", func() bool { return fr.count() == i })
	}
	mu.Lock()
	defer mu.Unlock()
	var failed, recovered int
	for _, l := range lines {
		if !strings.Contains(l, `"source"="KubernetesMetricsServer"`) {
			t.Errorf("log line without the source: %s", l)
		}
		if strings.Contains(l, "Reading node usage failed") {
			failed++
		}
		if strings.Contains(l, "Reading node usage works again") {
			recovered++
		}
	}
	if failed != 1 || recovered != 1 {
		t.Errorf("logged %d failures and %d recoveries, want one each:\n%s", failed, recovered, strings.Join(lines, "\n"))
	}
}

func TestRegistryStoreIsReadWhileRetained(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := newTestRegistry(t, WithContext(ctx))
	s := tr.Store(metricsServer)
	if again := tr.Store(Source{Type: MetricsServer}); again != s {
		t.Error("Store of an equal source gave another store")
	}
	fr := tr.reader(t, 0)
	if n := fr.count(); n != 0 {
		t.Errorf("read %d times before a Retain named the source", n)
	}
	tr.Retain([]Source{metricsServer, promA})
	eventually(t, "the first read", func() bool { return fr.count() == 1 })
	tr.tick(t)
	eventually(t, "the next read", func() bool { return fr.count() == 2 })

	// A Retain that no longer names it stops its polling; the store stays
	// the one its holders read, and is read again once retained again.
	tr.Retain([]Source{promA})
	tr.Retain(nil)
	waitPollers(t, tr.Registry)
	if again := tr.Store(metricsServer); again != s {
		t.Error("a store Store handed out was replaced after its polling stopped")
	}
	tr.Retain([]Source{metricsServer})
	eventually(t, "a read once retained again", func() bool { return fr.count() == 3 })
	if got := tr.readerCount(); got != 2 {
		t.Errorf("%d readers made, want 2 (one a source)", got)
	}
	cancel()
	waitPollers(t, tr.Registry)
}

func TestRegistryAcquireAfterStoreKeepsTheStore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := newTestRegistry(t, WithContext(ctx))
	acquired, release := tr.Acquire(context.Background(), promA)
	if s := tr.Store(promA); s != acquired {
		t.Error("Store after Acquire gave another store")
	}
	fr := tr.reader(t, 0)
	eventually(t, "the first read", func() bool { return fr.count() == 1 })
	release()
	waitPollers(t, tr.Registry)
	again, releaseAgain := tr.Acquire(context.Background(), promA)
	defer releaseAgain()
	if again != acquired {
		t.Error("the store Store handed out was dropped at the last release")
	}
	eventually(t, "a read once acquired again", func() bool { return fr.count() == 2 })
}
