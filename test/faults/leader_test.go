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

package faults_test

import (
	"context"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/test/faults/faultproxy"
)

// burst is the pending pods of the leader scenarios: 5,000 pods of 250m
// CPU fill 50 kwok nodes to 100 of their 110 pods.
const burst = 5000

// startPair starts two managers and returns the leader, then the standby,
// both ready.
func startPair(ctx context.Context, scenario string) (leader, standby *manager) {
	GinkgoHelper()
	leader = startManager("berth-" + scenario + "-a")
	leader.waitReady(ctx)
	leader.waitLeader(ctx)
	standby = startManager("berth-" + scenario + "-b")
	standby.waitReady(ctx)
	return leader, standby
}

// writesAfter counts the pod writes (binds, evictions, deletes, patches)
// that reached the apiserver through m's proxy after t.
func writesAfter(m *manager, t time.Time) int {
	n := 0
	for _, verb := range []string{"create", "update", "patch", "delete"} {
		for _, r := range m.proxy.Requests(faultproxy.Match{Verb: verb, Resource: "pods"}) {
			if r.Time.After(t) && r.Fault == "" {
				n++
			}
		}
	}
	return n
}

// lastRenewal returns when m's proxy last passed a successful Lease write.
func lastRenewal(m *manager) time.Time {
	var last time.Time
	for _, verb := range []string{"create", "update"} {
		for _, r := range m.proxy.Requests(faultproxy.Match{Verb: verb, Resource: "leases"}) {
			if r.Code >= 200 && r.Code < 300 && r.Time.After(last) {
				last = r.Time
			}
		}
	}
	return last
}

// firstBind returns when m's proxy first passed a binding that the
// apiserver accepted after t; zero if none.
func firstBind(m *manager, t time.Time) time.Time {
	for _, r := range m.proxy.Requests(faultproxy.Match{Verb: "create", Resource: "pods", Subresource: "binding"}) {
		if r.Time.After(t) && r.Code >= 200 && r.Code < 300 {
			return r.Time
		}
	}
	return time.Time{}
}

var _ = Describe("the leader", Label("ci"), func() {
	It("killed during a burst of 5,000 pending pods: the standby binds within 20 s, each pod once, no node overcommitted", func(ctx SpecContext) {
		ns := newNamespace(ctx, "kill")
		leader, standby := startPair(ctx, "kill")
		b := watchBindings(ctx, ns)
		all := manyPods(ns, "p", burst, "250m", "256Mi")
		go func() {
			defer GinkgoRecover()
			createPods(ctx, all)
		}()
		b.waitBound(ctx, 1000, 3*time.Minute)

		// As a crash would: the Lease is not released.
		leader.Kill()
		killed := time.Now()
		var first time.Time
		Eventually(ctx, func() bool {
			first = firstBind(standby, killed)
			return !first.IsZero()
		}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(BeTrue(), "the standby bound no pod after the leader died")
		figure("kill/seconds-from-kill-to-next-bind", first.Sub(killed).Round(100*time.Millisecond).Seconds())
		Expect(first.Sub(killed)).To(BeNumerically("<=", 20*time.Second))

		b.waitBoundBy(ctx, standby, burst, 5*time.Minute)
		expectBoundOnce("kill", ns, b, podNames(all))
		expectNoOvercommit(ctx, "kill")
		standby.expectCacheSettles(ctx, "kill")
	}, SpecTimeout(12*time.Minute))

	It("paused past its lease and resumed: it writes nothing once the lease expired, and exits", func(ctx SpecContext) {
		ns := newNamespace(ctx, "pause")
		leader, standby := startPair(ctx, "pause")
		b := watchBindings(ctx, ns)
		all := manyPods(ns, "p", burst, "250m", "256Mi")
		go func() {
			defer GinkgoRecover()
			createPods(ctx, all)
		}()
		b.waitBound(ctx, 300, 3*time.Minute)

		Expect(leader.Signal(syscall.SIGSTOP)).To(Succeed())
		paused := time.Now()
		standby.waitLeader(ctx)
		tookOver := time.Now()
		figure("pause/seconds-from-pause-to-takeover", tookOver.Sub(paused).Round(100*time.Millisecond).Seconds())
		// Resume it while the new leader still binds the burst: the old
		// one's queue and cache still hold the pods it meant to bind.
		Expect(leader.Signal(syscall.SIGCONT)).To(Succeed())
		Eventually(ctx, leader.Exited).WithTimeout(30*time.Second).Should(BeTrue(), "the old leader kept running after losing its lease")
		figure("pause/old-leader-exit", leader.Err())

		expired := lastRenewal(leader).Add(leaseDuration)
		figure("pause/old-leader-writes-after-lease-expiry", writesAfter(leader, expired))
		figure("pause/old-leader-writes-after-takeover", writesAfter(leader, tookOver))
		Expect(writesAfter(leader, expired)).To(BeZero())
		Expect(writesAfter(leader, tookOver)).To(BeZero())

		b.waitBoundBy(ctx, standby, burst, 5*time.Minute)
		expectBoundOnce("pause", ns, b, podNames(all))
		expectNoOvercommit(ctx, "pause")
		standby.expectCacheSettles(ctx, "pause")
	}, SpecTimeout(12*time.Minute))
})
