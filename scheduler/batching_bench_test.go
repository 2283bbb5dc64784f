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
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
)

// BenchmarkScheduleOneBatching is BenchmarkScheduleOneCycle's loop over
// 5,000 nodes with a profile that signs every pod (upstream's default
// plugins without PodTopologySpread, whose system default constraints
// sign none), with opportunistic batching on and off: what a hint saves
// a run of identical pods.
func BenchmarkScheduleOneBatching(b *testing.B) {
	spec := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
		MultiPoint: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "PodTopologySpread"}}},
	}}
	for _, batching := range []bool{true, false} {
		b.Run(fmt.Sprintf("batching=%v", batching), func(b *testing.B) {
			s := benchCluster(b, 5000, 2, WithOpportunisticBatching(batching))
			ctx := klog.NewContext(context.Background(), logr.Discard())
			if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 2, spec); err != nil {
				b.Fatal(err)
			}
			client := s.client.(*fake.Clientset)
			handled := func(k8stesting.Action) (bool, k8sruntime.Object, error) { return true, nil, nil }
			client.PrependReactor("create", "pods", handled)
			client.PrependReactor("create", "events", handled)
			client.PrependReactor("patch", "events", handled)
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
			if fw := s.profiles.Get(v1.DefaultSchedulerName).Framework; fw.Batch() != nil {
				b.ReportMetric(float64(fw.Batch().Batched())/float64(i), "hinted/op")
			}
		})
	}
}
