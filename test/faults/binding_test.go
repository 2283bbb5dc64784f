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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/test/faults/faultproxy"
)

// CI runs the 500 and the lost reply (label ci): a failed bind retried, and
// a bind that landed unseen; make test-faults runs them all.
var _ = Describe("binding calls that fail", func() {
	const pods = 300
	bindings := faultproxy.Match{Verb: "create", Resource: "pods", Subresource: "binding"}

	DescribeTable("binds each pod once, leaves no assumed pod and a cache equal to the apiserver's",
		func(ctx SpecContext, scenario string, rule faultproxy.Rule) {
			ns := newNamespace(ctx, "bind-"+scenario)
			m := startManager("berth-bind-" + scenario)
			m.waitReady(ctx)
			m.waitLeader(ctx)
			rule.Match = bindings
			rule.Match.Namespace = ns
			m.proxy.Inject(rule)

			b := watchBindings(ctx, ns)
			all := manyPods(ns, "p", pods, "100m", "128Mi")
			start := time.Now()
			createPods(ctx, all)
			b.waitBound(ctx, pods, 3*time.Minute)
			figure("binding-"+scenario+"/seconds-to-bind-all", time.Since(start).Round(100*time.Millisecond).Seconds())

			injected := 0
			for _, r := range m.proxy.Requests(rule.Match) {
				if r.Fault != "" {
					injected++
				}
			}
			figure("binding-"+scenario+"/faults-injected", injected)
			Expect(injected).To(BeNumerically(">", 0), "no fault was injected")

			expectBoundOnce("binding-"+scenario, ns, b, podNames(all))
			m.expectCacheSettles(ctx, "binding-"+scenario)
			expectNoOvercommit(ctx, "binding-"+scenario)
		},
		Entry("500", Label("ci"), "5xx", faultproxy.Rule{Fault: faultproxy.FaultStatus, Status: 500, Probability: 0.3}, SpecTimeout(6*time.Minute)),
		Entry("409", "conflict", faultproxy.Rule{Fault: faultproxy.FaultStatus, Status: 409, Probability: 0.3}, SpecTimeout(6*time.Minute)),
		Entry("a 30 s hang", "hang", faultproxy.Rule{Fault: faultproxy.FaultDelay, Delay: 30 * time.Second, Count: 20}, SpecTimeout(6*time.Minute)),
		Entry("a reset connection", "reset", faultproxy.Rule{Fault: faultproxy.FaultReset, Probability: 0.3}, SpecTimeout(6*time.Minute)),
		Entry("a lost reply", Label("ci"), "lost-reply", faultproxy.Rule{Fault: faultproxy.FaultLoseReply, Probability: 0.3}, SpecTimeout(6*time.Minute)),
	)
})
