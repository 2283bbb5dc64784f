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
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestAwaitLease(t *testing.T) {
	lapsed := errors.New("last renewed 9s ago")
	tests := []struct {
		name string
		// failures is how many checks fail before one passes; -1: all fail.
		failures int
		want     bool
	}{
		{name: "a held lease lets the loop go on at once", failures: 0, want: true},
		{name: "a lease held again resumes the loop", failures: 3, want: true},
		{name: "a lease never held again waits until the loop stops", failures: -1, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
			var checks atomic.Int32
			s := &Scheduler{clock: clk, leaseCheck: func() error {
				n := int(checks.Add(1))
				if tc.failures < 0 || n <= tc.failures {
					return lapsed
				}
				return nil
			}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan bool)
			go func() { done <- s.awaitLease(ctx) }()
			var got bool
			for waiting := true; waiting; {
				select {
				case got = <-done:
					waiting = false
				case <-time.After(time.Millisecond):
					if tc.failures < 0 && checks.Load() > 5 {
						cancel()
					}
					clk.Step(leasePoll)
				}
			}
			if got != tc.want {
				t.Fatalf("awaitLease = %v, want %v", got, tc.want)
			}
			if tc.failures >= 0 && int(checks.Load()) != tc.failures+1 {
				t.Fatalf("checked %d times, want %d", checks.Load(), tc.failures+1)
			}
		})
	}
}

func TestNoLeaseCheckNeverWaits(t *testing.T) {
	s := &Scheduler{clock: clocktesting.NewFakeClock(time.Unix(1000, 0))}
	if !s.awaitLease(context.Background()) {
		t.Fatal("awaitLease without a lease check = false")
	}
}
