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
	for _, events := range []bool{true, false} {
		b.Run(fmt.Sprintf("events=%t", events), func(b *testing.B) {
			s := benchCluster(b, 5000, 2)
			if !events {
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
				i++
				s.queue.Add(logger, pod)
				s.scheduleOne(ctx)
				s.bindings.Wait()
			}
		})
	}
}
