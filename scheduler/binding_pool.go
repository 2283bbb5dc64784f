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
	"time"

	"k8s.io/utils/clock"
)

// defaultBindingIdle is how long a binding goroutine that finished its job
// waits for another before it exits.
const defaultBindingIdle = 2 * time.Second

// bindingPool runs binding cycles on goroutines that outlive one job. A
// fresh goroutine starts with a small stack that the binding path (client,
// HTTP/2) grows again for every pod; a reused one keeps its grown stack.
// The pool has no cap: a job is handed to an idle goroutine when one waits,
// otherwise a goroutine is started for it, so it never waits behind another
// job. Bounding the bindings in flight is the caller's business.
type bindingPool struct {
	clock clock.Clock
	idle  time.Duration
	// jobs is unbuffered: a send completes only when an idle goroutine
	// takes the job, so a job is never left in a buffer nobody reads.
	jobs chan func()
}

// newBindingPool returns a pool whose goroutines wait idle for a job before
// they exit, timed by clk.
func newBindingPool(clk clock.Clock, idle time.Duration) *bindingPool {
	return &bindingPool{clock: clk, idle: idle, jobs: make(chan func())}
}

// run runs job on an idle goroutine of the pool, or on a new one when none
// waits. It does not wait for job to finish.
func (p *bindingPool) run(job func()) {
	select {
	case p.jobs <- job:
	default:
		go p.work(job)
	}
}

// work runs job, then the jobs handed to it, until it has waited idle for
// p.idle.
func (p *bindingPool) work(job func()) {
	var timer clock.Timer
	for {
		job()
		// Nothing of the finished job is kept alive while waiting.
		job = nil
		if timer == nil {
			timer = p.clock.NewTimer(p.idle)
		} else {
			timer.Reset(p.idle)
		}
		select {
		case job = <-p.jobs:
			if !timer.Stop() {
				// The timer fired as the job came; drop the stale tick so the
				// next idle wait is a full one.
				select {
				case <-timer.C():
				default:
				}
			}
		case <-timer.C():
			return
		}
	}
}
