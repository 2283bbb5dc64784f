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

package rebalance_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/rebalance"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
	"github.com/berth-io/berth/scheduler/usage"
)

// busyByUse is three nodes of 4 CPUs whose requests and use disagree:
// n0's four pods ask for 100m each and use 900m each (90% of n0 used),
// while n1 and n2 each hold two pods that ask for 1500m and use 200m.
// Two pods leave n0 for it to drop to 50%. Requests alone put any pod back
// on n0; use sends it to n1 or n2.
func busyByUse(t *testing.T, schedulerName string) ([]k8sruntime.Object, *metricsfake.Clientset) {
	t.Helper()
	var objs []k8sruntime.Object
	mc := metricsfake.NewSimpleClientset()
	add := func(gvr string, obj k8sruntime.Object, ns string) {
		t.Helper()
		if err := mc.Tracker().Create(metricsv1beta1.SchemeGroupVersion.WithResource(gvr), obj, ns); err != nil {
			t.Fatal(err)
		}
	}
	for node, use := range map[string]string{"n0": "3600m", "n1": "400m", "n2": "400m"} {
		objs = append(objs, strategytest.Node(node).Obj())
		add("nodes", &metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: node}, Window: metav1.Duration{Duration: 15 * time.Second},
			Usage: v1.ResourceList{v1.ResourceCPU: resource.MustParse(use), v1.ResourceMemory: resource.MustParse("1Gi")}}, "")
	}
	pod := func(name, node, cpu, used string) {
		// Started long before the sample: its use is in the node's.
		objs = append(objs, strategytest.Pod(name).NodeName(node).SchedulerName(schedulerName).Req("cpu", cpu).
			StartTime(time.Now().Add(-time.Hour)).Obj())
		add("pods", &metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Containers: []metricsv1beta1.ContainerMetrics{{Name: "c", Usage: v1.ResourceList{v1.ResourceCPU: resource.MustParse(used), v1.ResourceMemory: resource.MustParse("100Mi")}}}}, "default")
	}
	for i := range 4 {
		pod(fmt.Sprintf("n0-p%d", i), "n0", "100m", "900m")
	}
	for _, node := range []string{"n1", "n2"} {
		for i := range 2 {
			pod(fmt.Sprintf("%s-p%d", node, i), node, "1500m", "200m")
		}
	}
	return objs, mc
}

// requestsOnly scores by requests alone: the default plugins.
var requestsOnly = &v1alpha1.SchedulingProfileSpec{}

// loadAware adds TargetLoadPacking, reading metrics-server, to the defaults.
var loadAware = &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
	MultiPoint: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "TargetLoadPacking", Weight: ptr.To[int32](10)}}},
}}

// lnuByUse is a live LowNodeUtilization on metrics-server's CPU: under
// 20% idle, over 50% busy.
func lnuByUse(profileRef string) *v1alpha1.RebalancePolicySpec {
	spec := &v1alpha1.RebalancePolicySpec{
		Schedule: v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}}, DryRun: ptr.To(false),
		MetricsProviders: []v1alpha1.MetricsProvider{{Source: v1alpha1.MetricsSourceKubernetesMetrics}},
		Strategies: []v1alpha1.Strategy{{Name: "LowNodeUtilization", Args: k8sruntime.RawExtension{Raw: []byte(
			`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`)}}},
	}
	if profileRef != "" {
		spec.ProfileRef = &v1alpha1.ProfileReference{Name: profileRef}
	}
	return spec
}

func TestUsageEvictionsSkipPodsThatWouldComeStraightBack(t *testing.T) {
	tests := []struct {
		name string
		// serving is the live profile serving the pods' schedulerName "berth"; nil serves none.
		serving *v1alpha1.SchedulingProfileSpec
		// wantEvicted counts the pods of n0 evicted; wantExpected the nodes the plan expects them on.
		wantEvicted  int
		wantExpected []string
		// wantSkipped is in the reason of every skipped entry.
		wantSkipped string
	}{
		{name: "a load-aware profile sends them to the idle nodes", serving: loadAware, wantEvicted: 2, wantExpected: []string{"n1", "n2"}},
		{name: "a profile of requests would place them straight back", serving: requestsOnly,
			wantSkipped: `the profile serving "berth" would place it straight back on node n0`},
		{name: "no profile of Berth serves them: evicted unchecked, as the descheduler does", wantEvicted: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			objs, mc := busyByUse(t, "berth")
			c := fake.NewClientset(objs...)
			var evicted []string
			c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
				if a.GetSubresource() != "eviction" {
					return false, nil, nil
				}
				evicted = append(evicted, a.(k8stesting.CreateAction).GetObject().(metav1.Object).GetName())
				return true, nil, nil
			})
			s, err := scheduler.New(ctx, c, scheduler.WithSeed(1), scheduler.WithRegistry(runtime.Registry(plugins.NewInTreeRegistry())),
				scheduler.WithNodeUsageOptions(usage.WithMetricsClient(mc)))
			if err != nil {
				t.Fatal(err)
			}
			if tt.serving != nil {
				if err := s.SetProfile(ctx, "berth", "berth", 1, tt.serving); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.SyncOnce(ctx); err != nil {
				t.Fatal(err)
			}
			// The store TargetLoadPacking holds was first read before the
			// cache knew the nodes; this is its next poll.
			if _, err := s.NodeUsage().ReadNow(ctx, usage.Source{Type: usage.MetricsServer}); err != nil {
				t.Fatal(err)
			}
			r := rebalance.New(c, nil, s, rebalance.NewInTreeRegistry(), rebalance.WithInformerFactory(s.InformerFactory()),
				rebalance.WithNodeUsage(s.NodeUsage()), rebalance.WithServingProfiles(s.ServingFramework))
			res := runPolicy(ctx, t, r, lnuByUse(""))
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if len(evicted) != tt.wantEvicted || slices.ContainsFunc(evicted, func(p string) bool { return !strings.HasPrefix(p, "n0-") }) {
				t.Errorf("evicted %v, want %d pods of n0", evicted, tt.wantEvicted)
			}
			var expected []string
			for _, e := range res.Plan {
				switch e.Result {
				case v1alpha1.EvictionEvicted:
					if e.ExpectedNode != "" {
						expected = append(expected, e.ExpectedNode)
					}
				case v1alpha1.EvictionSkipped:
					if tt.wantSkipped == "" || !strings.Contains(e.Reason, tt.wantSkipped) {
						t.Errorf("skipped %s: %s, want a reason with %q", e.Pod, e.Reason, tt.wantSkipped)
					}
				}
			}
			slices.Sort(expected)
			expected = slices.Compact(expected)
			if !slices.Equal(expected, tt.wantExpected) {
				t.Errorf("expected nodes %v, want %v (plan %+v)", expected, tt.wantExpected, res.Plan)
			}
			if tt.wantSkipped != "" && len(res.Plan) == 0 {
				t.Errorf("no plan entry says why the pods stay")
			}
		})
	}
}

// runPolicy runs spec once on r and returns the run.
func runPolicy(ctx context.Context, t *testing.T, r *rebalance.Rebalancer, spec *v1alpha1.RebalancePolicySpec) rebalance.RunResult {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Start(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if err := r.SetPolicy("p", 1, spec); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if res, ok := r.LastRun("p"); ok {
			return res
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the policy did not run within 10s")
	return rebalance.RunResult{}
}
