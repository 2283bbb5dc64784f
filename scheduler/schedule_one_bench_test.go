package scheduler

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// benchCluster is a scheduler whose cache holds nodes and bound pods, with
// the default profile live; nothing runs in the background.
func benchCluster(b *testing.B, nodes, podsPerNode int) *Scheduler {
	b.Helper()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	s, err := New(ctx, fake.NewClientset(), WithSeed(1))
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 1, &v1alpha1.SchedulingProfileSpec{}); err != nil {
		b.Fatal(err)
	}
	logger := logr.Discard()
	zones := []string{"zone-a", "zone-b", "zone-c"}
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		alloc := v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110"),
		}
		s.cache.AddNode(logger, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				v1.LabelHostname: name, v1.LabelTopologyZone: zones[i%len(zones)],
			}},
			Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc},
		})
		for j := range podsPerNode {
			pod := benchPod(fmt.Sprintf("bound-%05d-%d", i, j))
			pod.Spec.NodeName = name
			if err := s.cache.AddPod(logger, pod); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s
}

func benchPod(name string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name, UID: types.UID(name)},
		Spec: v1.PodSpec{
			SchedulerName: v1.DefaultSchedulerName,
			Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi"),
			}}}},
		},
	}
}

// BenchmarkSchedulePod measures one scheduling cycle's search (snapshot
// update, PreFilter, Filter, PreScore, Score, selection) with the default
// profile over 5,000 nodes holding 10,000 pods.
func BenchmarkSchedulePod(b *testing.B) {
	for _, tc := range []struct {
		name       string
		percentage *int32
	}{
		{name: "adaptive"},
		{name: "all-nodes", percentage: ptrTo(int32(100))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchCluster(b, 5000, 2)
			ctx := klog.NewContext(context.Background(), logr.Discard())
			prof := s.profiles.Get(v1.DefaultSchedulerName)
			if tc.percentage != nil {
				if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 2, &v1alpha1.SchedulingProfileSpec{PercentageOfNodesToScore: tc.percentage}); err != nil {
					b.Fatal(err)
				}
				prof = s.profiles.Get(v1.DefaultSchedulerName)
			}
			pod := benchPod("incoming")
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPUPerOp(b)()
			for b.Loop() {
				if _, err := s.schedulePod(ctx, prof.Framework, framework.NewCycleState(), pod); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
