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
