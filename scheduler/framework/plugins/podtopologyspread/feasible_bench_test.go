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

package podtopologyspread_test

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// feasibleZones is how many zones the bench's nodes are spread over, as the
// perf harness spreads them.
const feasibleZones = 3

// spreadingNode is the harness's node: 4 CPU, 32Gi, 110 pods, a hostname
// and one of three zones.
func spreadingNode(i int) *v1.Node {
	name := fmt.Sprintf("node-%d", i)
	capacity := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname:     name,
			v1.LabelTopologyZone: fmt.Sprintf("zone-%d", i%feasibleZones),
		}},
		Status: v1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// spreadingPod is the TopologySpreading workload's pod: a hard zone spread
// (maxSkew 5) over the pods labelled color=blue, which it is.
func spreadingPod(name, nodeName string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: k8stypes.UID("uid-" + name), Labels: map[string]string{"color": "blue"}},
		Spec: v1.PodSpec{
			NodeName: nodeName,
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi"),
			}}}},
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
				MaxSkew:           5,
				TopologyKey:       v1.LabelTopologyZone,
				WhenUnsatisfiable: v1.DoNotSchedule,
				LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
			}},
		},
	}
}

// BenchmarkFindFeasibleNodesSpreading is one cycle's search of the default
// profile for the TopologySpreading pod over 5,000 nodes in three zones,
// two of which already hold more than maxSkew extra matching pods: their
// two thirds of the nodes are rejected, each with a status, as in the
// harness's run whenever one zone lags.
func BenchmarkFindFeasibleNodesSpreading(b *testing.B) {
	const n = 5000
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		nodes[i] = spreadingNode(i)
	}
	var pods []*v1.Pod
	for i := range 2 * n {
		// Zones 1 and 2 get two pods for every one of zone 0's.
		node := i % n
		if node%feasibleZones == 0 && i >= n {
			continue
		}
		pods = append(pods, spreadingPod(fmt.Sprintf("running-%d", i), nodes[node].Name))
	}
	snap := cache.NewSnapshot(pods, nodes)
	client := fake.NewClientset()
	ctx := context.Background()
	f, err := runtime.NewFramework(ctx, runtime.Registry(plugins.NewInTreeRegistry()), "bench",
		&v1alpha1.SchedulingProfileSpec{},
		runtime.WithClientSet(client), runtime.WithInformerFactory(informers.NewSharedInformerFactory(client, 0)),
		runtime.WithSnapshotSharedLister(snap))
	if err != nil {
		b.Fatal(err)
	}
	all, err := snap.NodeInfos().List()
	if err != nil {
		b.Fatal(err)
	}
	pod := spreadingPod("incoming", "")
	start, rejected := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		if _, s, _ := f.RunPreFilterPlugins(ctx, state, pod); !s.IsSuccess() {
			b.Fatal(s)
		}
		feasible, next, statuses, err := f.FindFeasibleNodes(ctx, state, pod, all, start)
		if err != nil {
			b.Fatal(err)
		}
		if len(feasible) == 0 {
			b.Fatal("no feasible node")
		}
		rejected += statuses.Len()
		f.ReleaseFeasible(feasible)
		start = next
	}
	b.ReportMetric(float64(rejected)/float64(b.N), "rejected/op")
}
