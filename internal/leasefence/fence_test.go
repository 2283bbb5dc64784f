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

package leasefence

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeLock is a resourcelock.Interface whose writes fail when err is set.
type fakeLock struct {
	resourcelock.Interface
	id  string
	err error
}

func (f *fakeLock) Identity() string { return f.id }
func (f *fakeLock) Create(context.Context, resourcelock.LeaderElectionRecord) error {
	return f.err
}
func (f *fakeLock) Update(context.Context, resourcelock.LeaderElectionRecord) error {
	return f.err
}

// step is one thing that happens to the lock, then the fence's verdict.
type step struct {
	advance time.Duration // the clock moves on first
	write   bool          // a record naming holder is written
	create  bool          // by Create instead of Update
	holder  string        // "" releases
	fail    bool          // the write fails
	held    bool          // Check then passes
}

func TestCheck(t *testing.T) {
	const validFor = 8 * time.Second
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "never acquired", steps: []step{{held: false}}},
		{name: "acquired by Create, valid until the renew deadline", steps: []step{
			{write: true, create: true, holder: "me", held: true},
			{advance: validFor - time.Millisecond, held: true},
			{advance: time.Millisecond, held: false},
		}},
		{name: "each renewal extends the fence", steps: []step{
			{write: true, holder: "me", held: true},
			{advance: 5 * time.Second, write: true, holder: "me", held: true},
			{advance: 5 * time.Second, held: true},
			{advance: 3 * time.Second, held: false},
		}},
		{name: "a failed renewal keeps the last good one", steps: []step{
			{write: true, holder: "me", held: true},
			{advance: 2 * time.Second, write: true, holder: "me", fail: true, held: true},
			{advance: 6 * time.Second, held: false},
		}},
		{name: "a failed acquisition holds nothing", steps: []step{
			{write: true, create: true, holder: "me", fail: true, held: false},
		}},
		{name: "release ends the fence at once", steps: []step{
			{write: true, holder: "me", held: true},
			{advance: time.Second, write: true, holder: "", held: false},
		}},
		{name: "a record naming another replica ends the fence", steps: []step{
			{write: true, holder: "me", held: true},
			{write: true, holder: "other", held: false},
		}},
		{name: "a pause past the deadline is caught on resume", steps: []step{
			{write: true, holder: "me", held: true},
			{advance: 15 * time.Second, held: false},
			{write: true, holder: "me", held: true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
			inner := &fakeLock{id: "me"}
			l := NewLock(inner, validFor, WithClock(clk))
			for i, s := range tc.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				inner.err = nil
				if s.fail {
					inner.err = errors.New("apiserver unavailable")
				}
				rec := resourcelock.LeaderElectionRecord{HolderIdentity: s.holder}
				switch {
				case s.write && s.create:
					_ = l.Create(context.Background(), rec)
				case s.write:
					_ = l.Update(context.Background(), rec)
				}
				err := l.Check()
				if got := err == nil; got != s.held {
					t.Fatalf("step %d: Check() = %v, want held=%v", i, err, s.held)
				}
				if err != nil && !errors.Is(err, ErrLeaseNotHeld) {
					t.Fatalf("step %d: Check() = %v, want it to wrap ErrLeaseNotHeld", i, err)
				}
			}
		})
	}
}

func TestWrapTransport(t *testing.T) {
	tests := []struct {
		method, path string
		held         bool
		wantSent     bool
	}{
		{method: http.MethodPost, path: "/api/v1/namespaces/ns/pods/p/binding", held: true, wantSent: true},
		{method: http.MethodPost, path: "/api/v1/namespaces/ns/pods/p/binding", held: false, wantSent: false},
		{method: http.MethodPost, path: "/api/v1/namespaces/ns/pods/p/eviction", held: false, wantSent: false},
		{method: http.MethodDelete, path: "/api/v1/namespaces/ns/pods/p", held: false, wantSent: false},
		{method: http.MethodPatch, path: "/api/v1/namespaces/ns/pods/p/status", held: false, wantSent: false},
		{method: http.MethodPut, path: "/api/v1/persistentvolumes/pv", held: false, wantSent: false},
		{method: http.MethodGet, path: "/api/v1/pods", held: false, wantSent: true},
		{method: http.MethodGet, path: "/api/v1/pods?watch=true", held: false, wantSent: true},
		{method: http.MethodPost, path: "/api/v1/namespaces/ns/events", held: false, wantSent: true},
		{method: http.MethodPatch, path: "/api/v1/namespaces/ns/events/e", held: false, wantSent: true},
		{method: http.MethodPost, path: "/apis/events.k8s.io/v1/namespaces/ns/events", held: false, wantSent: true},
		{method: http.MethodPost, path: "/api/v1/namespaces/events/pods/p/binding", held: false, wantSent: false},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			sent := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent = true }))
			defer srv.Close()
			clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
			l := NewLock(&fakeLock{id: "me"}, time.Second, WithClock(clk))
			if tc.held {
				_ = l.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
			}
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Client{Transport: l.WrapTransport(http.DefaultTransport)}).Do(req)
			if err == nil {
				_ = resp.Body.Close()
			}
			if sent != tc.wantSent {
				t.Fatalf("sent = %v, want %v (err %v)", sent, tc.wantSent, err)
			}
			if !tc.wantSent && !errors.Is(err, ErrLeaseNotHeld) {
				t.Fatalf("err = %v, want ErrLeaseNotHeld", err)
			}
		})
	}
}

// TestWrapTransportChecksAgainOnceConnected checks the fence's second look:
// a lease that lapses while the connection is being dialed (a pause, say)
// keeps the request from being written.
func TestWrapTransportChecksAgainOnceConnected(t *testing.T) {
	tests := []struct {
		name     string
		dialTook time.Duration
		wantSent bool
	}{
		{name: "a dial within the renew deadline sends", dialTook: 500 * time.Millisecond, wantSent: true},
		{name: "a dial past the renew deadline sends nothing", dialTook: 2 * time.Second, wantSent: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sent atomic.Bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Store(true) }))
			defer srv.Close()
			clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
			l := NewLock(&fakeLock{id: "me"}, time.Second, WithClock(clk))
			_ = l.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
			dialer := &net.Dialer{}
			inner := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				clk.SetTime(clk.Now().Add(tc.dialTook))
				return dialer.DialContext(ctx, network, addr)
			}}
			defer inner.CloseIdleConnections()
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/namespaces/ns/pods/p/binding", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Client{Transport: l.WrapTransport(inner)}).Do(req)
			if err == nil {
				_ = resp.Body.Close()
			}
			if sent.Load() != tc.wantSent {
				t.Fatalf("sent = %v, want %v (err %v)", sent.Load(), tc.wantSent, err)
			}
			if !tc.wantSent && !errors.Is(err, ErrLeaseNotHeld) {
				t.Fatalf("err = %v, want ErrLeaseNotHeld", err)
			}
		})
	}
}
