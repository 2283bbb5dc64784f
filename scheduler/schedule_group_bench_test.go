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
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// BenchmarkGangCycle measures the cycle of a gang of 8 identical members
// kept in one rack, as the throughput bench's Gangs workload has them:
// 5,000 nodes in racks of 50, each gang new, bound and kept. The fake
// client answers every write. One op is one gang; cpu-ns/pod is the CPU
// per member.
func BenchmarkGangCycle(b *testing.B) {
	benchmarkGangCycle(b, 8)
}

// BenchmarkBigGangCycle is BenchmarkGangCycle with the throughput bench's
// gang of 1,000: every rack holds it, so the cycle tries all 100 racks.
func BenchmarkBigGangCycle(b *testing.B) {
	benchmarkGangCycle(b, 1000)
}

func benchmarkGangCycle(b *testing.B, gangSize int) {
	const nodes, rackSize = 5000, 50
	var all []*v1.Node
	for i := range nodes {
		all = append(all, rackNode(fmt.Sprintf("node-%05d", i), fmt.Sprintf("rack-%03d", i/rackSize), "4").Hostname().Obj())
	}
	h := newGroupHarness(b, &v1alpha1.SchedulingProfileSpec{}, all)
	// Writes are answered without the object tracker, which would
	// otherwise cost more than the cycle and grow with every pod.
	handled := func(k8stesting.Action) (bool, k8sruntime.Object, error) { return true, nil, nil }
	for _, verb := range []string{"create", "patch", "update"} {
		for _, resource := range []string{"pods", "events", "podgroups"} {
			h.client.PrependReactor(verb, resource, handled)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := reportCPUPerOp(b)
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("g-%d", i)
		i++
		pg := st.WorkloadGroup(name).Gang(int32(gangSize)).Topology(testRack).Obj()
		pods := members(name, gangSize, "100m")
		if err := h.s.workloads.Informer().GetStore().Add(pg); err != nil {
			b.Fatal(err)
		}
		for _, p := range pods {
			if err := h.s.informerFactory.Core().V1().Pods().Informer().GetIndexer().Add(p); err != nil {
				b.Fatal(err)
			}
			h.s.queue.Add(logr.Discard(), p)
		}
		h.client.ClearActions()
		h.cycle()
		if bound := h.bound(); len(bound) != gangSize {
			b.Fatalf("gang %s: %d of %d members bound", name, len(bound), gangSize)
		}
	}
	cpu()
}
