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

// Package leasefence keeps a replica that lost its leader-election lease
// from writing as if it still led.
//
// Leader election alone does not stop a paused leader: a process stopped
// (SIGSTOP, a long GC or VM pause, a frozen node) past its lease and then
// resumed keeps binding, evicting and deleting from its stale cache until
// its renewal loop notices, seconds later, while another replica already
// leads. The Kubernetes API has no fencing token, so the fence is local: the
// lock records, on the monotonic clock, when each renewal was sent, and the
// wrapped transport refuses every write once the last renewal is older than
// the renew deadline. It looks twice: before the request, and once the
// request's connection is in hand, since a dial (or a pause during it) may
// outlast the lease. Another replica can take the lease only a full lease
// duration after that renewal, so a write the fence lets through reaches
// the apiserver before anyone else may lead, with the difference between
// the lease duration and the renew deadline as the margin. What is left is
// a pause between the second look and the write itself, a few microseconds.
package leasefence

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/clock"
)

// ErrLeaseNotHeld is returned, wrapped, for a write refused by the fence.
var ErrLeaseNotHeld = errors.New("leader-election lease not held")

// Lock is a resourcelock.Interface that records this replica's renewals.
type Lock struct {
	resourcelock.Interface
	clock    clock.PassiveClock
	validFor time.Duration

	mu sync.Mutex
	// renewed is when the last successful acquisition or renewal was sent;
	// zero while this replica does not hold the lease.
	renewed time.Time
}

// Option configures a Lock.
type Option func(*Lock)

// WithClock sets the clock; the default is the real one, whose readings
// carry the monotonic clock.
func WithClock(c clock.PassiveClock) Option { return func(l *Lock) { l.clock = c } }

// NewLock wraps inner; writes are allowed for validFor after each renewal
// was sent. validFor is the elector's renew deadline: after it the elector
// gives up the lease itself.
func NewLock(inner resourcelock.Interface, validFor time.Duration, opts ...Option) *Lock {
	l := &Lock{Interface: inner, clock: clock.RealClock{}, validFor: validFor}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Create creates the lock record, recording an acquisition when it names this replica.
func (l *Lock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := l.clock.Now()
	err := l.Interface.Create(ctx, ler)
	l.observe(sent, ler, err)
	return err
}

// Update updates the lock record, recording a renewal when it names this
// replica and a release when it names nobody.
func (l *Lock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := l.clock.Now()
	err := l.Interface.Update(ctx, ler)
	l.observe(sent, ler, err)
	return err
}

func (l *Lock) observe(sent time.Time, ler resourcelock.LeaderElectionRecord, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil && ler.HolderIdentity == l.Identity():
		l.renewed = sent
	case ler.HolderIdentity != l.Identity():
		// Released, or written for someone else: no longer ours.
		l.renewed = time.Time{}
	}
	// A failed renewal leaves the last successful one in force: the lease
	// is still ours until it runs out.
}

// Check returns nil while this replica holds a lease renewed within the
// renew deadline, and an error wrapping ErrLeaseNotHeld otherwise.
func (l *Lock) Check() error {
	l.mu.Lock()
	renewed := l.renewed
	l.mu.Unlock()
	if renewed.IsZero() {
		return fmt.Errorf("%w: this replica does not lead", ErrLeaseNotHeld)
	}
	if age := l.clock.Since(renewed); age >= l.validFor {
		return fmt.Errorf("%w: last renewed %v ago, past the renew deadline of %v", ErrLeaseNotHeld, age.Round(time.Millisecond), l.validFor)
	}
	return nil
}

// WrapTransport returns a transport that checks the fence before sending
// any write (every method but GET, HEAD and OPTIONS) except events, which
// record what happened and decide nothing. Use it as rest.Config's
// WrapTransport for the clients that bind, evict and delete.
func (l *Lock) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return &fencedTransport{lock: l, next: rt}
}

type fencedTransport struct {
	lock *Lock
	next http.RoundTripper
}

func (t *fencedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isWrite(req) || isEvent(req.URL.Path) {
		return t.next.RoundTrip(req)
	}
	if err := t.lock.Check(); err != nil {
		return nil, t.refuse(req, err)
	}
	// Getting a connection may take a dial, and the process may be paused
	// meanwhile: the lease is checked again once the connection is in
	// hand, the last moment before the request is written. A connection
	// that comes too late is closed unwritten, so the request never leaves.
	// Over HTTP/2 that connection carries this replica's other requests
	// and watches too; they fail with it, which costs nothing, since a
	// replica past its renew deadline is about to exit.
	late := make(chan error, 1)
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if err := t.lock.Check(); err != nil {
			_ = info.Conn.Close()
			select {
			case late <- err:
			default:
			}
		}
	}}
	resp, err := t.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	select {
	case lateErr := <-late:
		if err == nil {
			_ = resp.Body.Close()
		}
		return nil, t.refuse(req, lateErr)
	default:
		return resp, err
	}
}

// refuse closes req's body (again, harmlessly, when the next transport
// already has) and returns why it was not sent.
func (t *fencedTransport) refuse(req *http.Request, err error) error {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return fmt.Errorf("refusing %s %s: %w", req.Method, req.URL.Path, err)
}

func isWrite(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// isEvent reports whether path is a core or events.k8s.io Event path.
func isEvent(path string) bool {
	if strings.HasPrefix(path, "/apis/events.k8s.io/") {
		return true
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// /api/v1/namespaces/NS/events[/NAME] or /api/v1/events
	return len(parts) >= 3 && parts[0] == "api" &&
		(parts[2] == "events" || (len(parts) >= 5 && parts[2] == "namespaces" && parts[4] == "events"))
}
