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

package scheduler

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

const testIdle = 3 * time.Second

// goid is the id of the calling goroutine, read from its stack header.
func goid() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(buf[:bytes.IndexByte(buf, ' ')]), 10, 64)
	return id
}

// goroutineState is the state of goroutine id as its stack dump shows it
// ("select", "chan receive", ...), or "" when it is gone.
func goroutineState(id uint64) string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	header := []byte("goroutine " + strconv.FormatUint(id, 10) + " [")
	i := bytes.Index(buf, header)
	if i < 0 {
		return ""
	}
	rest := buf[i+len(header):]
	end := bytes.IndexAny(rest, ",]")
	return string(rest[:end])
}

// waitForState polls until goroutine id is in state want ("" for gone).
func waitForState(t *testing.T, id uint64, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for goroutineState(id) != want {
		if time.Now().After(deadline) {
			t.Fatalf("goroutine %d is %q, want %q", id, goroutineState(id), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// poolHarness runs jobs on a pool as the scheduler does: the WaitGroup is
// added before the hand-off and done by the job.
type poolHarness struct {
	pool *bindingPool
	wg   sync.WaitGroup
}

func newPoolHarness(clk clock.Clock) *poolHarness {
	return &poolHarness{pool: newBindingPool(clk, testIdle)}
}

// runJob runs a job that reports its goroutine and then waits for release
// (nil: returns at once); it returns the goroutine's id once the job began.
func (h *poolHarness) runJob(release <-chan struct{}) uint64 {
	ids := make(chan uint64, 1)
	h.wg.Add(1)
	h.pool.run(func() {
		defer h.wg.Done()
		ids <- goid()
		if release != nil {
			<-release
		}
	})
	return <-ids
}

func TestBindingPoolReusesIdleGoroutine(t *testing.T) {
	tests := []struct {
		name      string
		idleFor   time.Duration // fake time passed between the two jobs
		wantReuse bool
	}{
		{name: "a job right after another reuses its goroutine", wantReuse: true},
		{name: "a goroutine idle for less than the idle time is reused", idleFor: testIdle - time.Nanosecond, wantReuse: true},
		{name: "a goroutine idle for the idle time has exited", idleFor: testIdle},
		{name: "a goroutine idle for longer has exited", idleFor: 10 * testIdle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1700000000, 0))
			h := newPoolHarness(clk)
			first := h.runJob(nil)
			h.wg.Wait()
			waitForState(t, first, "select")
			if got := clk.Waiters(); got != 1 {
				t.Fatalf("idle timers = %d, want 1", got)
			}
			clk.Step(tt.idleFor)
			if !tt.wantReuse {
				waitForState(t, first, "")
			}

			release := make(chan struct{})
			second := h.runJob(release)
			if reused := second == first; reused != tt.wantReuse {
				t.Errorf("second job reused the first goroutine: %v, want %v", reused, tt.wantReuse)
			}
			// While the job runs its goroutine is not idle: no timer waits.
			if got := clk.Waiters(); got != 0 {
				t.Errorf("idle timers while the job runs = %d, want 0", got)
			}
			close(release)
			h.wg.Wait()
			waitForState(t, second, "select")
			// The reused goroutine waits a full idle time again.
			clk.Step(testIdle - time.Nanosecond)
			if got := goroutineState(second); got != "select" {
				t.Errorf("goroutine after a job and less than the idle time is %q, want select", got)
			}
			clk.Step(time.Nanosecond)
			waitForState(t, second, "")
		})
	}
}

func TestBindingPoolHasNoCap(t *testing.T) {
	const n = 100 // a gang held at Permit: every member waits at once
	clk := clocktesting.NewFakeClock(time.Unix(1700000000, 0))
	h := newPoolHarness(clk)
	release := make(chan struct{})
	firstRound := map[uint64]bool{}
	for range n {
		firstRound[h.runJob(release)] = true
	}
	// runJob returns only once its job began, so all n run at once.
	if len(firstRound) != n {
		t.Fatalf("%d jobs ran on %d goroutines, want one each", n, len(firstRound))
	}
	close(release)
	h.wg.Wait()
	for id := range firstRound {
		waitForState(t, id, "select")
	}

	// A second round is served by the idle goroutines alone.
	release = make(chan struct{})
	secondRound := map[uint64]bool{}
	for range n {
		id := h.runJob(release)
		if !firstRound[id] {
			t.Errorf("job ran on a new goroutine %d while %d were idle", id, n)
		}
		secondRound[id] = true
	}
	if len(secondRound) != n {
		t.Errorf("second round ran on %d goroutines, want %d", len(secondRound), n)
	}
	close(release)
	h.wg.Wait()
	for id := range secondRound {
		waitForState(t, id, "select")
	}
	clk.Step(testIdle)
	for id := range firstRound {
		waitForState(t, id, "")
	}
}

func TestBindingPoolLosesNoJob(t *testing.T) {
	const submitters, perSubmitter = 8, 500
	// A tiny real idle time makes goroutines exit while jobs are handed
	// over, the race a lost job would come from.
	pool := newBindingPool(clock.RealClock{}, 5*time.Microsecond)
	var ran atomic.Int64
	var wg sync.WaitGroup
	var submit sync.WaitGroup
	for range submitters {
		submit.Go(func() {
			for range perSubmitter {
				wg.Add(1)
				pool.run(func() {
					defer wg.Done()
					ran.Add(1)
				})
			}
		})
	}
	submit.Wait()
	wg.Wait()
	if got := ran.Load(); got != submitters*perSubmitter {
		t.Errorf("ran %d jobs, want %d", got, submitters*perSubmitter)
	}
}

// BenchmarkBindingHandOff compares a fresh goroutine per job with the pool
// for a job that grows its stack as the binding path does. As in the
// scheduler, where a bind takes milliseconds of network time, the jobs
// are handed over one at a time with the last one finished.
func BenchmarkBindingHandOff(b *testing.B) {
	for _, tc := range []struct {
		name string
		run  func(job func())
	}{
		{name: "goroutine-per-job", run: func(job func()) { go job() }},
		{name: "pool", run: newBindingPool(clock.RealClock{}, time.Second).run},
	} {
		b.Run(tc.name, func(b *testing.B) {
			done := make(chan struct{})
			b.ReportAllocs()
			for b.Loop() {
				tc.run(func() {
					deepStack(16)
					done <- struct{}{}
				})
				<-done
			}
		})
	}
}

// deepStack uses about depth KiB of stack.
//
//go:noinline
func deepStack(depth int) byte {
	var pad [1024]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		return pad[0]
	}
	return deepStack(depth-1) + pad[depth%len(pad)]
}
