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

package lownodeutilization

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
	"github.com/berth-io/berth/scheduler/schedtest"
	nodeusage "github.com/berth-io/berth/scheduler/usage"
)

func TestMetricsArgs(t *testing.T) {
	metricOnly := Thresholds{MetricResource: 30}
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{
			Name: "metrics-server",
			Args: `{"thresholds":{"cpu":20,"memory":20,"pods":20},"targetThresholds":{"cpu":50,"memory":50,"pods":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			Want: &Args{
				Thresholds:         Thresholds{"cpu": 20, "memory": 20, "pods": 20},
				TargetThresholds:   Thresholds{"cpu": 50, "memory": 50, "pods": 50},
				MetricsUtilization: &MetricsUtilization{Source: v1alpha1.MetricsSourceKubernetesMetrics},
			},
		},
		{
			Name: "deprecated metricsServer",
			Args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"metricsServer":true}}`,
			Want: &Args{Thresholds: Thresholds{"cpu": 20}, TargetThresholds: Thresholds{"cpu": 50}, MetricsUtilization: &MetricsUtilization{MetricsServer: true}},
		},
		{
			Name: "prometheus",
			Args: `{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"instance:node_cpu:rate:sum"}}}`,
			Want: &Args{
				Thresholds: metricOnly, TargetThresholds: Thresholds{MetricResource: 60},
				MetricsUtilization: &MetricsUtilization{Source: v1alpha1.MetricsSourcePrometheus, Prometheus: &Prometheus{Query: "instance:node_cpu:rate:sum"}},
			},
		},
		{
			Name:     "no source",
			Args:     `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{}}`,
			WantErrs: []string{"metricsUtilization.source: Required value: KubernetesMetrics or Prometheus; leave metricsUtilization unset to read the pods' requests"},
		},
		{
			Name:     "two sources",
			Args:     `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"metricsServer":true,"source":"KubernetesMetrics"}}`,
			WantErrs: []string{"metricsUtilization.metricsServer: Forbidden: only one source may be set: metricsServer is the deprecated form of source KubernetesMetrics"},
		},
		{
			Name:     "unknown source",
			Args:     `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"Graphite"}}`,
			WantErrs: []string{`metricsUtilization.source: Unsupported value: "Graphite": supported values: "KubernetesMetrics", "Prometheus"`},
		},
		{
			Name:     "prometheus without a query",
			Args:     `{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":" "}}}`,
			WantErrs: []string{"metricsUtilization.prometheus.query: Required value: prometheus query is required when metrics source is Prometheus"},
		},
		{
			Name:     "prometheus config with metrics-server",
			Args:     `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics","prometheus":{"query":"q"}}}`,
			WantErrs: []string{"metricsUtilization.prometheus: Forbidden: prometheus configuration is not allowed when source is KubernetesMetrics"},
		},
		{
			Name: "prometheus thresholds on cpu",
			Args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`,
			WantErrs: []string{
				`thresholds: Invalid value: ["cpu"]: must name MetricResource alone when metricsUtilization.source is Prometheus: the query's value is the only usage Prometheus gives`,
				`targetThresholds: Invalid value: ["cpu"]: must name MetricResource alone when metricsUtilization.source is Prometheus: the query's value is the only usage Prometheus gives`,
			},
		},
		{
			Name: "metrics-server thresholds on an extended resource",
			Args: `{"thresholds":{"cpu":20,"nvidia.com/gpu":20},"targetThresholds":{"cpu":50,"nvidia.com/gpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			WantErrs: []string{
				"thresholds[nvidia.com/gpu]: Invalid value: 20: metrics-server gives cpu and memory only: with metricsUtilization.source KubernetesMetrics thresholds may name cpu, memory and pods",
			},
		},
		{
			Name:     "MetricResource from requests",
			Args:     `{"thresholds":{"MetricResource":20},"targetThresholds":{"MetricResource":50}}`,
			WantErrs: []string{"thresholds[MetricResource]: Invalid value: 20: is the value of a Prometheus query: set metricsUtilization.source to Prometheus"},
		},
	})
}

func TestMetricsSource(t *testing.T) {
	for _, tc := range []struct {
		args, want, at string
	}{
		{args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`},
		{args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"metricsServer":true}}`, want: "KubernetesMetrics", at: "metricsUtilization.metricsServer"},
		{args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`, want: "KubernetesMetrics", at: "metricsUtilization.source"},
		{args: `{"thresholds":{"MetricResource":20},"targetThresholds":{"MetricResource":50},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`, want: "Prometheus", at: "metricsUtilization.source"},
	} {
		s, err := New([]byte(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		src, at := s.(strategies.MetricsReader).MetricsSource()
		if string(src) != tc.want || (at == nil) != (tc.at == "") || (at != nil && at.String() != tc.at) {
			t.Errorf("MetricsSource(%s) = %q at %v, want %q at %q", tc.args, src, at, tc.want, tc.at)
		}
	}
}

// usageCluster is three nodes of 4 CPUs whose pods request what the
// metrics contradict: n1's pods request 3 CPUs, n0's nothing.
func usageCluster() ([]*v1.Pod, []*v1.Node) {
	nodes := []*v1.Node{strategytest.Node("n0").Obj(), strategytest.Node("n1").Obj(), strategytest.Node("n2").Obj()}
	var pods []*v1.Pod
	for i := range 4 {
		pods = append(pods, strategytest.Pod(fmt.Sprintf("n0-p%d", i)).NodeName("n0").Obj())
	}
	pods = append(pods, strategytest.Pod("n1-p0").NodeName("n1").Req("cpu", "3").Obj())
	pods = append(pods, strategytest.Pod("n2-p0").NodeName("n2").Obj())
	return pods, nodes
}

// podUsage gives each pod 600m of CPU and 256Mi of memory, but none to
// those in missing.
func podUsage(missing ...string) func(context.Context, *v1.Pod) (v1.ResourceList, error) {
	return func(_ context.Context, pod *v1.Pod) (v1.ResourceList, error) {
		if slices.Contains(missing, pod.Name) {
			return nil, fmt.Errorf("getting the PodMetrics of pod %s: not found", pod.Name)
		}
		return v1.ResourceList{v1.ResourceCPU: resource.MustParse("600m"), v1.ResourceMemory: resource.MustParse("256Mi")}, nil
	}
}

// busyN0 says n0 uses 90% of its CPU on average (10% lately), n1 10% and n2 50%.
func busyN0(now time.Time) *schedtest.UsageStore {
	return schedtest.NewUsageStore().
		Set("n0", now, nodeusage.Fresh, nodeusage.CPU, nodeusage.Stat{Average: 0.9, Latest: 0.1}, nodeusage.Memory, 0.2).
		Set("n1", now, nodeusage.Fresh, nodeusage.CPU, 0.1, nodeusage.Memory, 0.1).
		Set("n2", now, nodeusage.Fresh, nodeusage.CPU, 0.5, nodeusage.Memory, 0.3)
}

func TestRunWithMetricsServer(t *testing.T) {
	const args = `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`
	now := time.Now()
	tests := []struct {
		name    string
		args    string
		missing []string
		perNode int
		want    []string
	}{
		// n0 uses 3600m, above its 2000m target; n1 (400m) may take up to
		// 2000m. Each pod frees 600m: after three, n0 uses 1800m. By
		// requests, n1 would be the busy node.
		{name: "drains the node busy by usage", args: args, want: []string{"n0-p0", "n0-p1", "n0-p2"}},
		{name: "deprecated metricsServer", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"metricsServer":true}}`,
			want: []string{"n0-p0", "n0-p1", "n0-p2"}},
		// n1's room: 25% of 4 CPUs is 1000m, it uses 400m; one pod fills it.
		{name: "room of the underutilized nodes", args: `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":25},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			want: []string{"n0-p0"}},
		{name: "a pod without metrics stays", args: args, missing: []string{"n0-p1"}, want: []string{"n0-p0", "n0-p2", "n0-p3"}},
		{name: "per-node limit", args: args, perNode: 2, want: []string{"n0-p0", "n0-p1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			pods, nodes := usageCluster()
			h := strategytest.NewHandle(now, pods, nodes)
			h.NodeUsage, h.PodUsage, h.PerNodeLimit = busyN0(now), podUsage(tt.missing...), tt.perNode
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
			if want := []strategies.MetricsQuery{{Source: v1alpha1.MetricsSourceKubernetesMetrics}}; !slices.Equal(h.Queries, want) {
				t.Errorf("queries %v, want %v", h.Queries, want)
			}
			for _, pod := range h.Evicted {
				if r := h.Reasons[pod]; !strings.Contains(r, "usage from metrics-server is above targetThresholds (cpu 90%)") {
					t.Errorf("reason for %s = %q", pod, r)
				}
			}
		})
	}
}

func TestRunWithPrometheus(t *testing.T) {
	const args = `{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`
	now := time.Now()
	nodes := []*v1.Node{strategytest.Node("n0").Obj(), strategytest.Node("n1").Obj(), strategytest.Node("n2").Obj(), strategytest.Node("n3").Obj()}
	var pods []*v1.Pod
	for _, n := range []string{"n0", "n1", "n2", "n3"} {
		for i := range 3 {
			pods = append(pods, strategytest.Pod(fmt.Sprintf("%s-p%d", n, i)).NodeName(n).Obj())
		}
	}
	// n0 and n1 are above 60%, n2 below 30%; 0.605 counts as 60%, as the
	// descheduler counts it, which is not above.
	store := schedtest.NewUsageStore().
		Set("n0", now, nodeusage.Fresh, nodeusage.Metric, 0.9).
		Set("n1", now, nodeusage.Fresh, nodeusage.Metric, 0.8).
		Set("n2", now, nodeusage.Fresh, nodeusage.Metric, 0.1).
		Set("n3", now, nodeusage.Fresh, nodeusage.Metric, 0.605)
	for _, tt := range []struct {
		name    string
		perNode int
		want    []string
	}{
		{name: "one pod per overutilized node", want: []string{"n0-p0", "n1-p0"}},
		{name: "up to the per-node limit", perNode: 2, want: []string{"n0-p0", "n0-p1", "n1-p0", "n1-p1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(args))
			if err != nil {
				t.Fatal(err)
			}
			h := strategytest.NewHandle(now, pods, nodes)
			h.NodeUsage, h.PerNodeLimit = store, tt.perNode
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
			if want := []strategies.MetricsQuery{{Source: v1alpha1.MetricsSourcePrometheus, Query: "q"}}; !slices.Equal(h.Queries, want) {
				t.Errorf("queries %v, want %v", h.Queries, want)
			}
			if r := h.Reasons["n0-p0"]; !strings.Contains(r, "usage from Prometheus is above targetThresholds (MetricResource 90%)") {
				t.Errorf("reason = %q", r)
			}
		})
	}
}

// TestRunRefusesMissingData checks that a run without fresh usage of every
// node fails, naming the node, and evicts nothing.
func TestRunRefusesMissingData(t *testing.T) {
	const args = `{"thresholds":{"cpu":20,"memory":20},"targetThresholds":{"cpu":50,"memory":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`
	now := time.Now()
	for _, tt := range []struct {
		name    string
		args    string
		store   func(*schedtest.UsageStore)
		err     error
		wantErr string
	}{
		{name: "node missing", store: func(s *schedtest.UsageStore) { delete(s.Nodes, "n2") },
			wantErr: "node n2 has no usage in metrics-server's node metrics"},
		{name: "node stale", store: func(s *schedtest.UsageStore) {
			s.Set("n1", now.Add(-time.Hour), nodeusage.Stale, nodeusage.CPU, 0.1, nodeusage.Memory, 0.1)
			s.ReadErr = errors.New("listing NodeMetrics from metrics.k8s.io: the server is currently unable to handle the request")
		}, wantErr: "the usage of node n1 in metrics-server's node metrics is stale: its newest sample was taken at " + now.Add(-time.Hour).UTC().Format(time.RFC3339) +
			", and the last read failed: listing NodeMetrics"},
		{name: "resource missing", store: func(s *schedtest.UsageStore) { s.Set("n0", now, nodeusage.Fresh, nodeusage.CPU, 0.9) },
			wantErr: "node n0 has no memory usage in metrics-server's node metrics"},
		{name: "source fails", err: errors.New(`running Prometheus query "q" at http://p: query for MetricResource: expected a vector, got matrix`),
			args:    `{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`,
			wantErr: `reading node usage from the policy's Prometheus metrics provider: running Prometheus query "q" at http://p: query for MetricResource: expected a vector, got matrix`},
		{name: "prometheus node missing", store: func(s *schedtest.UsageStore) {
			s.Nodes = map[string]schedtest.NodeUsage{}
			s.Set("n0", now, nodeusage.Fresh, nodeusage.Metric, 0.9).Set("n1", now, nodeusage.Fresh, nodeusage.Metric, 0.1)
		}, args: `{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`,
			wantErr: `node n2 has no usage in the result of Prometheus query "q"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.args
			if a == "" {
				a = args
			}
			s, err := New([]byte(a))
			if err != nil {
				t.Fatal(err)
			}
			pods, nodes := usageCluster()
			h := strategytest.NewHandle(now, pods, nodes)
			store := busyN0(now)
			if tt.store != nil {
				tt.store(store)
			}
			h.NodeUsage, h.PodUsage, h.MetricsErr = store, podUsage(), tt.err
			err = s.Run(context.Background(), h)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Run = %v, want an error containing %q", err, tt.wantErr)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("Run = %v, want it to wrap %v", err, tt.err)
			}
			if len(h.Evicted) > 0 {
				t.Errorf("evicted %v on missing data", h.Evicted)
			}
		})
	}
}

// TestRunLeavesOutNodesNotReady checks that a node that is not Ready,
// which has no usage, neither fails the run nor counts.
func TestRunLeavesOutNodesNotReady(t *testing.T) {
	now := time.Now()
	pods, nodes := usageCluster()
	nodes = append(nodes, strategytest.Node("down").Obj())
	nodes[len(nodes)-1].Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionUnknown}}
	s, err := New([]byte(`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.NewHandle(now, pods, nodes)
	h.NodeUsage, h.PodUsage = busyN0(now), podUsage()
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if want := []string{"n0-p0", "n0-p1", "n0-p2"}; !slices.Equal(h.Evicted, want) {
		t.Errorf("evicted %v, want %v", h.Evicted, want)
	}
}

// TestRunFromRequestsReadsNoMetrics checks that without metricsUtilization
// the strategy asks for no usage.
func TestRunFromRequestsReadsNoMetrics(t *testing.T) {
	pods, nodes := usageCluster()
	s, err := New([]byte(`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.NewHandle(time.Now(), pods, nodes)
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if len(h.Queries) != 0 {
		t.Errorf("asked for usage %v", h.Queries)
	}
	// By requests n1 (75%) is the busy node, and n0 the idle one.
	if !slices.Equal(h.Evicted, []string{"n1-p0"}) {
		t.Errorf("evicted %v, want [n1-p0]", h.Evicted)
	}
}
