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
	"time"

	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/berth-io/berth/scheduler/profile"
	"github.com/berth-io/berth/scheduler/usage"

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
func benchCluster(b *testing.B, nodes, podsPerNode int, opts ...Option) *Scheduler {
	b.Helper()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	s, err := New(ctx, fake.NewClientset(), append([]Option{WithSeed(1), inTree()}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 1, &v1alpha1.SchedulingProfileSpec{}); err != nil {
		b.Fatal(err)
	}
	logger := logr.Discard()
	zones := []string{"zone-a", "zone-b", "zone-c"}
	boundAt := metav1.NewTime(time.Now().Add(-time.Hour))
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
			// Bound an hour ago, as the apiserver records it: a usage
			// sample shows these pods.
			pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: boundAt}}
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
		// shadow adds a shadow identical to the live profile at 100%
		// sampling, its worker running beside the loop as in the scheduler.
		shadow bool
		// record keeps the chosen node's and the runners-up's scores, as
		// a profile with spec.recordDecisions does.
		record bool
		// loadAware adds TargetLoadPacking and LoadAwareScheduling to the
		// default profile, reading metrics-server usage of every node.
		loadAware bool
	}{
		{name: "adaptive"},
		{name: "adaptive-shadow-100", shadow: true},
		{name: "adaptive-record", record: true},
		{name: "all-nodes", percentage: ptrTo(int32(100))},
		{name: "adaptive-load-aware", loadAware: true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var opts []Option
			if tc.loadAware {
				opts = append(opts, benchUsage(b, 5000))
			}
			s := benchCluster(b, 5000, 2, opts...)
			ctx := klog.NewContext(context.Background(), logr.Discard())
			prof := s.profiles.Get(v1.DefaultSchedulerName)
			if tc.loadAware {
				prof = benchLoadAwareProfile(ctx, b, s, 5000)
			}
			if tc.percentage != nil {
				if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 2, &v1alpha1.SchedulingProfileSpec{PercentageOfNodesToScore: tc.percentage}); err != nil {
					b.Fatal(err)
				}
				prof = s.profiles.Get(v1.DefaultSchedulerName)
			}
			if tc.shadow {
				fwk, err := s.CompileShadow(ctx, "shadow", &v1alpha1.SchedulingProfileSpec{ShadowOf: v1.DefaultSchedulerName})
				if err != nil {
					b.Fatal(err)
				}
				s.InstallShadow(ctx, &ShadowProfile{Framework: fwk, Source: "shadow", Generation: 1, Of: v1.DefaultSchedulerName, SampleRatePercent: 100})
				workerCtx, stop := context.WithCancel(ctx)
				go s.shadows.Run(workerCtx)
				defer stop()
			}
			pod := benchPod("incoming")
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPUPerOp(b)()
			var cycle int64
			for b.Loop() {
				cycle++
				s.shadows.Begin(pod, prof.Framework, s.nextStartNodeIndex)
				result, err := s.schedulePod(ctx, prof.Framework, framework.NewCycleState(), pod, tc.record, cycle)
				if err != nil {
					b.Fatal(err)
				}
				s.shadows.End(result.Host, nil)
			}
			if st, ok := s.ShadowStats("shadow"); ok {
				b.ReportMetric(float64(st.Evaluated())/float64(b.N), "shadow-evaluated/op")
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// benchUsage serves NodeMetrics for the bench cluster's nodes, each at a
// CPU use from 0% to 99%, through a fake metrics client.
func benchUsage(b *testing.B, nodes int) Option {
	b.Helper()
	metrics := metricsfake.NewSimpleClientset()
	gvr := metricsv1beta1.SchemeGroupVersion.WithResource("nodes")
	for i := range nodes {
		m := &metricsv1beta1.NodeMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i)},
			Timestamp:  metav1.Now(),
			Window:     metav1.Duration{Duration: 30 * time.Second},
			Usage: v1.ResourceList{
				v1.ResourceCPU:    *resource.NewMilliQuantity(int64(i%100)*40, resource.DecimalSI),
				v1.ResourceMemory: resource.MustParse("8Gi"),
			},
		}
		if err := metrics.Tracker().Create(gvr, m, ""); err != nil {
			b.Fatal(err)
		}
	}
	// The bench adds nodes to the cache, not to the informers.
	allocatable := func(string) (int64, int64, bool) { return 4000, 32 << 30, true }
	return WithNodeUsageOptions(usage.WithMetricsClient(metrics), usage.WithAllocatable(allocatable))
}

// benchLoadAwareProfile makes the default profile load-aware and waits
// until its store has read every node.
func benchLoadAwareProfile(ctx context.Context, b *testing.B, s *Scheduler, nodes int) *profile.Profile {
	b.Helper()
	spec := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
		Score:      &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "TargetLoadPacking"}}},
		MultiPoint: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "LoadAwareScheduling"}}},
	}}
	if err := s.SetProfile(ctx, v1.DefaultSchedulerName, "default", 2, spec); err != nil {
		b.Fatal(err)
	}
	store := s.NodeUsage().Store(usage.Source{Type: usage.MetricsServer})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, fresh := store.Node(fmt.Sprintf("node-%05d", nodes-1)); fresh == usage.Fresh {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the usage store has not read the nodes: %v", store.Err())
		}
	}
	return s.profiles.Get(v1.DefaultSchedulerName)
}

// BenchmarkFilterScoreColdNodes measures the per-node part of a cycle alone:
// PreFilter, Filter, PreScore and Score of the default profile over the
// snapshot of a 5,000-node cache, each cycle starting where the last one
// stopped as the scheduler does. With the adaptive percentage a cycle visits
// about 500 nodes, so the nodes it reads were last touched ten cycles ago and
// the ~6 MB of NodeInfos they live in is far larger than L2: the cost is
// dominated by the cache lines each node brings in.
func BenchmarkFilterScoreColdNodes(b *testing.B) {
	s := benchCluster(b, 5000, 2)
	ctx := klog.NewContext(context.Background(), logr.Discard())
	fwk := s.profiles.Get(v1.DefaultSchedulerName).Framework
	if err := s.cache.UpdateSnapshot(logr.Discard(), s.snapshot); err != nil {
		b.Fatal(err)
	}
	nodes, err := s.snapshot.NodeInfos().List()
	if err != nil {
		b.Fatal(err)
	}
	pod := benchPod("incoming")
	start, visited := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPUPerOp(b)()
	for b.Loop() {
		state := framework.NewCycleState()
		if _, st, _ := fwk.RunPreFilterPlugins(ctx, state, pod); !st.IsSuccess() {
			b.Fatal(st)
		}
		feasible, next, statuses, err := fwk.FindFeasibleNodes(ctx, state, pod, nodes, start)
		if err != nil {
			b.Fatal(err)
		}
		visited += len(feasible) + statuses.Len()
		start = next
		if st := fwk.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			b.Fatal(st)
		}
		scores, st := fwk.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			b.Fatal(st)
		}
		fwk.ReleaseScores(scores)
		fwk.ReleaseFeasible(feasible)
	}
	b.ReportMetric(float64(visited)/float64(b.N), "nodes/op")
}
