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

package cache

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestAssumedPodExpiry(t *testing.T) {
	const ttl = 10 * time.Second
	p1 := st.Pod("p1").NodeName("n1").Obj()
	tests := []struct {
		name        string
		ttl         time.Duration
		finish      bool
		confirm     bool
		advance     time.Duration
		wantExpired bool
	}{
		{name: "expires after the TTL once binding finished", ttl: ttl, finish: true, advance: ttl + time.Second, wantExpired: true},
		{name: "kept before the TTL", ttl: ttl, finish: true, advance: ttl - time.Second},
		{name: "kept exactly at the deadline", ttl: ttl, finish: true, advance: ttl},
		{name: "never expires while binding is in flight", ttl: ttl, advance: time.Hour},
		{name: "confirmed pod never expires", ttl: ttl, finish: true, confirm: true, advance: time.Hour},
		{name: "no TTL means no expiry", ttl: 0, finish: true, advance: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Unix(1000, 0))
			c := New(quietContext(), WithClock(clk), WithAssumedPodTTL(tt.ttl))
			l := logr.Discard()
			c.AddNode(l, cacheNode("n1").Obj())
			if err := c.AssumePod(l, p1); err != nil {
				t.Fatal(err)
			}
			if tt.finish {
				if err := c.FinishBinding(l, p1); err != nil {
					t.Fatal(err)
				}
			}
			if tt.confirm {
				if err := c.AddPod(l, p1); err != nil {
					t.Fatal(err)
				}
			}
			clk.Step(tt.advance)
			c.expireAssumedPods(clk.Now())
			_, err := c.GetPod(p1)
			if expired := err != nil; expired != tt.wantExpired {
				t.Fatalf("expired = %v, want %v", expired, tt.wantExpired)
			}
			if tt.wantExpired && len(c.Dump().Nodes["n1"].Pods) != 0 {
				t.Fatal("expired pod still counted on its node")
			}
		})
	}
}

func TestRunExpiresWithFakeClock(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
	c := New(quietContext(), WithClock(clk), WithAssumedPodTTL(5*time.Second), WithCleanupPeriod(time.Second))
	l := logr.Discard()
	p := st.Pod("p1").NodeName("n1").Obj()
	if err := c.AssumePod(l, p); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishBinding(l, p); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	deadline := time.Now().Add(5 * time.Second)
	for {
		if n, _ := c.PodCount(); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("assumed pod was not expired by Run")
		}
		if clk.HasWaiters() {
			clk.Step(time.Second)
		}
		time.Sleep(time.Millisecond)
	}
	if c.NodeCount() != 0 {
		t.Fatal("placeholder of the expired pod's node should be gone")
	}
}

func TestRunWithoutTTLReturns(t *testing.T) {
	c := New(context.Background())
	done := make(chan struct{})
	go func() { c.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run without a TTL should return at once")
	}
}

// quietContext carries a logger that drops everything, for background logging.
func quietContext() context.Context {
	return klog.NewContext(context.Background(), logr.Discard())
}
