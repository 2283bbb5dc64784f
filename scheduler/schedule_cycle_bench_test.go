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
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
)

// BenchmarkScheduleOneCycle measures what the scheduler spends on one pod
// from the queue to its Scheduled event, over the 5,000-node cluster of
// BenchmarkSchedulePod: Pop, the scheduling cycle, assume, Reserve,
// Permit, the binding goroutine (PreBind, Bind, PostBind, FinishBinding)
// and the Scheduled event. The apiserver is mocked: the fake client
// answers the binding and the event at once, so the figures are the
// scheduler's own. Each pod is new, and stays bound, as in the throughput
// bench.
//
// It uses only what v0.1 (30a5b5e) already had, so that make
// bench-compare-go copies it into older trees and compares like with like.
func BenchmarkScheduleOneCycle(b *testing.B) {
	for _, tc := range []struct {
		name   string
		events bool
		// spread gives each pod the constraint of the throughput bench's
		// TopologySpreading workload: at most 5 more pods of its label in
		// one zone than in another, counting the pods already placed.
		spread bool
	}{
		{name: "events=true", events: true},
		{name: "events=false"},
		{name: "spread", events: true, spread: true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchCluster(b, 5000, 2)
			if !tc.events {
				s.scheduledEvents = nil
			}
			client, ok := s.client.(*fake.Clientset)
			if !ok {
				b.Fatalf("client is a %T, not the fake", s.client)
			}
			// Bindings and events are answered without the object tracker,
			// which would otherwise grow with every pod.
			handled := func(k8stesting.Action) (bool, k8sruntime.Object, error) { return true, nil, nil }
			client.PrependReactor("create", "pods", handled)
			client.PrependReactor("create", "events", handled)
			client.PrependReactor("patch", "events", handled)
			ctx := klog.NewContext(context.Background(), logr.Discard())
			logger := logr.Discard()
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPUPerOp(b)()
			i := 0
			for b.Loop() {
				pod := benchPod(fmt.Sprintf("incoming-%d", i))
				if tc.spread {
					spreadInZones(pod)
				}
				i++
				s.queue.Add(logger, pod)
				s.scheduleOne(ctx)
				s.bindings.Wait()
			}
		})
	}
}

// spreadInZones labels pod and spreads it over zones as the throughput
// bench's TopologySpreading pods are.
func spreadInZones(pod *v1.Pod) {
	pod.Labels = map[string]string{"color": "blue"}
	pod.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
		MaxSkew:           5,
		TopologyKey:       v1.LabelTopologyZone,
		WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
	}}
}
