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

package intern

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// BenchmarkPod interns replicas of one workload, as the pod informer does
// on every add and update.
func BenchmarkPod(b *testing.B) {
	template := replica("web")
	pods := make([]*v1.Pod, 4096)
	for i := range pods {
		pods[i] = template.DeepCopy()
	}
	table := New()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// After the first len(pods) the pods are already interned: the
		// idempotent path, which does the same lookups.
		table.Pod(pods[i%len(pods)])
	}
}
