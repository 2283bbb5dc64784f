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

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// BenchmarkScheduleOneCycleMetrics is BenchmarkScheduleOneCycle (events
// on) without and with the metrics a manager records, to show what
// recording them costs per pod.
func BenchmarkScheduleOneCycleMetrics(b *testing.B) {
	for _, withMetrics := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%t", withMetrics), func(b *testing.B) {
			var opts []Option
			if withMetrics {
				_, m := st.Metrics(b)
				opts = append(opts, WithMetrics(m))
			}
			s := benchCluster(b, 5000, 2, opts...)
			client, ok := s.client.(*fake.Clientset)
			if !ok {
				b.Fatalf("client is a %T, not the fake", s.client)
			}
			handled := func(k8stesting.Action) (bool, k8sruntime.Object, error) { return true, nil, nil }
			client.PrependReactor("create", "pods", handled)
			client.PrependReactor("create", "events", handled)
			client.PrependReactor("patch", "events", handled)
			ctx := klog.NewContext(context.Background(), logr.Discard())
			logger := logr.Discard()
			b.ReportAllocs()
			b.ResetTimer()
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
