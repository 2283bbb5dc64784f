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
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestBreaker(t *testing.T) {
	// Each step happens after advance; want is what admit then says.
	type step struct {
		advance   time.Duration
		event     string // "answered", "unreachable" or "" (none)
		wantCall  bool
		wantProbe bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "closed admits every call", steps: []step{{wantCall: true}, {event: "answered", wantCall: true}}},
		{name: "an unanswered call opens it; calls then fail fast", steps: []step{
			{event: "unreachable"},
			{advance: minCooldown - time.Second},
		}},
		{name: "after the cool-down one call becomes a probe, the others fail fast", steps: []step{
			{event: "unreachable"},
			{advance: minCooldown, wantProbe: true},
			{},
		}},
		{name: "a probe that gets an answer closes it", steps: []step{
			{event: "unreachable"},
			{advance: minCooldown, wantProbe: true},
			{event: "answered", wantCall: true},
		}},
		{name: "a failed probe doubles the cool-down", steps: []step{
			{event: "unreachable"},
			{advance: minCooldown, wantProbe: true},
			{event: "unreachable"},
			{advance: minCooldown},
			{advance: minCooldown, wantProbe: true},
		}},
		{name: "the cool-down stops doubling at its maximum", steps: []step{
			{event: "unreachable"},
			{advance: minCooldown, wantProbe: true}, {event: "unreachable"}, // 20s
			{advance: 20 * time.Second, wantProbe: true}, {event: "unreachable"}, // 40s
			{advance: 40 * time.Second, wantProbe: true}, {event: "unreachable"}, // 80s
			{advance: 80 * time.Second, wantProbe: true}, {event: "unreachable"}, // 160s
			{advance: 160 * time.Second, wantProbe: true}, {event: "unreachable"}, // 300s, not 320s
			{advance: maxCooldown, wantProbe: true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
			b := &breaker{clock: clk}
			for i, s := range tc.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				switch s.event {
				case "answered":
					b.answered()
				case "unreachable":
					b.unreachable(errors.New("i/o timeout"))
				}
				call, probe, err := b.admit()
				if call != s.wantCall || probe != s.wantProbe {
					t.Fatalf("step %d: admit() = call %v, probe %v (%v); want call %v, probe %v", i, call, probe, err, s.wantCall, s.wantProbe)
				}
				if !call && (err == nil || !strings.Contains(err.Error(), "i/o timeout")) {
					t.Fatalf("step %d: admit() refused with %v, want the last error named", i, err)
				}
			}
		})
	}
}

// TestBlackholedExtenderFailsFast checks the breaker end to end: an
// extender that stops answering costs one timeout, then calls fail at once
// until a background probe finds it answering again.
func TestBlackholedExtenderFailsFast(t *testing.T) {
	var answering atomic.Bool
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !answering.Load() {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			return
		}
		_ = json.NewEncoder(w).Encode(FilterResult{NodeNames: &[]string{"n1"}})
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	cfg := makeCfg(srv.URL).filter().nodeCache().obj()
	cfg.HTTPTimeout = &metav1.Duration{Duration: 100 * time.Millisecond}
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	e, err := New(cfg, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	filter := func() (time.Duration, error) {
		start := time.Now()
		_, _, _, err := e.Filter(ctx, st.Pod("p").Obj(), st.NamedNodeInfos("n1"))
		return time.Since(start), err
	}

	if _, err := filter(); err == nil {
		t.Fatal("the black-holed call succeeded")
	}
	for range 3 {
		took, err := filter()
		if err == nil || !strings.Contains(err.Error(), "not called") {
			t.Fatalf("a call while open = %v, want it refused", err)
		}
		if took > 50*time.Millisecond {
			t.Fatalf("a refused call took %v", took)
		}
	}

	answering.Store(true)
	clk.SetTime(clk.Now().Add(minCooldown))
	if _, err := filter(); err == nil {
		t.Fatal("the call that sent the probe was made in the cycle")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := filter(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the probe never closed the breaker")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	var followed atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Store(true) }))
	t.Cleanup(target.Close)
	srv := httptest.NewServer(http.RedirectHandler(target.URL+"/filter", http.StatusTemporaryRedirect))
	t.Cleanup(srv.Close)
	e, err := New(makeCfg(srv.URL).filter().obj())
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = e.Filter(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1"))
	if err == nil || !strings.Contains(err.Error(), "HTTP 307") {
		t.Fatalf("Filter() = %v, want the redirect refused", err)
	}
	if followed.Load() {
		t.Fatal("the redirect was followed")
	}
}

// TestRefusedCallEncodesNothing checks that the breaker is asked before the
// request is encoded, and that a probe that could not be encoded does not
// keep the breaker from probing again.
func TestRefusedCallEncodesNothing(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	e, err := New(makeCfg("http://127.0.0.1:1").filter().obj(), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	e.breaker.unreachable(errors.New("i/o timeout"))
	unencodable := map[string]any{"c": make(chan int)}
	send := func() error { return e.send(context.Background(), "filter", "filter", unencodable, &FilterResult{}) }

	if err := send(); err == nil || !strings.Contains(err.Error(), "not called") {
		t.Fatalf("a call while open = %v, want it refused before encoding", err)
	}
	clk.SetTime(clk.Now().Add(minCooldown))
	for i := range 2 {
		if err := send(); err == nil || !strings.Contains(err.Error(), "encoding") {
			t.Fatalf("probe %d = %v, want the encoding error", i, err)
		}
	}
}
