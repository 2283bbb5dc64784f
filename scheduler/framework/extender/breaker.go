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

package extender

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// The breaker's cool-down after an extender stopped answering: it starts at
// minCooldown and doubles, up to maxCooldown, each time a probe finds the
// extender still unreachable.
const (
	minCooldown = 10 * time.Second
	maxCooldown = 5 * time.Minute
)

// breaker stops calling an extender that does not answer at all. Extenders
// are called inside the scheduling cycle, which is serial and shared by
// every profile, so one black-holed extender would otherwise stall every
// profile for its httpTimeout per pod. After a call that got no HTTP answer
// (a timeout, a refused or reset connection) the breaker opens: calls fail
// at once, and once the cool-down has passed the next call is sent in the
// background as a probe while that pod's cycle still fails fast. The first
// HTTP answer, whatever its status, closes the breaker. An extender that
// answers slowly, but within its httpTimeout, is not cut off.
type breaker struct {
	clock clock.PassiveClock
	// onChange, when set, is told whether the breaker is open each time a
	// call or probe settles it.
	onChange func(open bool)

	mu        sync.Mutex
	open      bool
	openUntil time.Time
	cooldown  time.Duration
	probing   bool
	lastErr   error
}

// admit reports whether a call may be sent in the cycle (call), whether it
// should be sent as a background probe (probe), or neither, in which case
// err says why.
func (b *breaker) admit() (call, probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return true, false, nil
	}
	now := b.clock.Now()
	if !b.probing && !now.Before(b.openUntil) {
		b.probing = true
		probe = true
	}
	return false, probe, fmt.Errorf("not called: it did not answer its last call (%v); retried in the background every %v until it answers", b.lastErr, b.cooldown)
}

// probeNotSent records that the probe admit asked for could not be built:
// the next call after the cool-down may probe again.
func (b *breaker) probeNotSent() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
}

// answered records that the extender answered with any HTTP status.
func (b *breaker) answered() {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasOpen := b.open
	b.open, b.probing, b.cooldown, b.lastErr = false, false, 0, nil
	if wasOpen && b.onChange != nil {
		b.onChange(false)
	}
}

// unreachable records that a call or a probe got no HTTP answer.
func (b *breaker) unreachable(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.open:
		b.cooldown = minCooldown
	case b.probing:
		b.cooldown = min(2*b.cooldown, maxCooldown)
	}
	b.open, b.probing, b.lastErr = true, false, err
	b.openUntil = b.clock.Now().Add(b.cooldown)
	if b.onChange != nil {
		b.onChange(true)
	}
}
