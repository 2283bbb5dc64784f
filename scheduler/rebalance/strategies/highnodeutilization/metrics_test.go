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

package highnodeutilization

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
	"github.com/berth-io/berth/scheduler/schedtest"
	nodeusage "github.com/berth-io/berth/scheduler/usage"
)

const (
	metricsServerArgs = `{"thresholds":{"cpu":20},"metricsUtilization":{"source":"KubernetesMetrics"}}`
	prometheusArgs    = `{"thresholds":{"MetricResource":30},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`
)

func TestMetricsArgs(t *testing.T) {
	strategytest.RunArgsCases(t, []strategytest.ArgsCase[Args]{
		{
			Name: "metrics-server",
			Args: `{"thresholds":{"cpu":20,"memory":20,"pods":20},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			Want: &Args{
				Thresholds:         map[v1.ResourceName]Percentage{"cpu": 20, "memory": 20, "pods": 20},
				MetricsUtilization: &strategies.MetricsUtilization{Source: v1alpha1.MetricsSourceKubernetesMetrics},
			},
		},
		{
			Name: "deprecated metricsServer",
			Args: `{"thresholds":{"cpu":20},"metricsUtilization":{"metricsServer":true}}`,
			Want: &Args{Thresholds: map[v1.ResourceName]Percentage{"cpu": 20}, MetricsUtilization: &strategies.MetricsUtilization{MetricsServer: true}},
		},
		{
			Name: "prometheus",
			Args: `{"thresholds":{"MetricResource":30},"numberOfNodes":1,"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"instance:node_cpu:rate:sum"}}}`,
			Want: &Args{
				Thresholds: map[v1.ResourceName]Percentage{strategies.MetricResource: 30}, NumberOfNodes: 1,
				MetricsUtilization: &strategies.MetricsUtilization{
					Source: v1alpha1.MetricsSourcePrometheus, Prometheus: &strategies.Prometheus{Query: "instance:node_cpu:rate:sum"},
				},
			},
		},
		{
			Name:     "no source",
			Args:     `{"thresholds":{"cpu":20},"metricsUtilization":{}}`,
			WantErrs: []string{"metricsUtilization.source: Required value: KubernetesMetrics or Prometheus; leave metricsUtilization unset to read the pods' requests"},
		},
		{
			Name:     "two sources",
			Args:     `{"thresholds":{"cpu":20},"metricsUtilization":{"metricsServer":true,"source":"KubernetesMetrics"}}`,
			WantErrs: []string{"metricsUtilization.metricsServer: Forbidden: only one source may be set: metricsServer is the deprecated form of source KubernetesMetrics"},
		},
		{
			Name:     "unknown source",
			Args:     `{"thresholds":{"cpu":20},"metricsUtilization":{"source":"Graphite"}}`,
			WantErrs: []string{`metricsUtilization.source: Unsupported value: "Graphite": supported values: "KubernetesMetrics", "Prometheus"`},
		},
		{
			Name:     "prometheus without a query",
			Args:     `{"thresholds":{"MetricResource":30},"metricsUtilization":{"source":"Prometheus"}}`,
			WantErrs: []string{"metricsUtilization.prometheus.query: Required value: prometheus query is required when metrics source is Prometheus"},
		},
		{
			Name:     "prometheus config with metrics-server",
			Args:     `{"thresholds":{"cpu":20},"metricsUtilization":{"source":"KubernetesMetrics","prometheus":{"query":"q"}}}`,
			WantErrs: []string{"metricsUtilization.prometheus: Forbidden: prometheus configuration is not allowed when source is KubernetesMetrics"},
		},
		{
			Name: "prometheus thresholds on cpu",
			Args: `{"thresholds":{"MetricResource":30,"cpu":20},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`,
			WantErrs: []string{
				`thresholds: Invalid value: ["MetricResource","cpu"]: must name MetricResource alone when metricsUtilization.source is Prometheus: the query's value is the only usage Prometheus gives`,
			},
		},
		{
			Name: "metrics-server thresholds on an extended resource",
			Args: `{"thresholds":{"cpu":20,"nvidia.com/gpu":20},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			WantErrs: []string{
				"thresholds[nvidia.com/gpu]: Invalid value: 20: metrics-server gives cpu and memory only: with metricsUtilization.source KubernetesMetrics thresholds may name cpu, memory and pods",
			},
		},
		{
			Name:     "MetricResource from requests",
			Args:     `{"thresholds":{"MetricResource":20}}`,
			WantErrs: []string{"thresholds[MetricResource]: Invalid value: 20: is the value of a Prometheus query: set metricsUtilization.source to Prometheus"},
		},
		{
			Name: "every problem",
			Args: `{"thresholds":{"MetricResource":120},"evictableNamespaces":{"include":["a"]},"metricsUtilization":{"source":"Prometheus"}}`,
			WantErrs: []string{
				"thresholds[MetricResource]: Invalid value: 120: is not a percentage from 0 to 100",
				"evictableNamespaces.include: Forbidden: only exclude is supported",
				"metricsUtilization.prometheus.query: Required value: prometheus query is required when metrics source is Prometheus",
			},
		},
	})
}

func TestMetricsSource(t *testing.T) {
	for _, tc := range []struct {
		args, want, at string
	}{
		{args: `{"thresholds":{"cpu":20}}`},
		{args: `{"thresholds":{"cpu":20},"metricsUtilization":{"metricsServer":true}}`, want: "KubernetesMetrics", at: "metricsUtilization.metricsServer"},
		{args: metricsServerArgs, want: "KubernetesMetrics", at: "metricsUtilization.source"},
		{args: prometheusArgs, want: "Prometheus", at: "metricsUtilization.source"},
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

// usageCluster is three nodes of 4 CPUs whose pods request what
// busyN0's usage contradicts: n0's two pods request 100m each, n1's two
// 2 CPUs each, n2's one 1 CPU.
func usageCluster() ([]*v1.Pod, []*v1.Node) {
	nodes := []*v1.Node{strategytest.Node("n0").Obj(), strategytest.Node("n1").Obj(), strategytest.Node("n2").Obj()}
	var pods []*v1.Pod
	for _, p := range []struct{ name, cpu string }{{"n0-p0", "100m"}, {"n0-p1", "100m"}, {"n1-p0", "2"}, {"n1-p1", "2"}, {"n2-p0", "1"}} {
		pods = append(pods, strategytest.Pod(p.name).NodeName(p.name[:2]).Req("cpu", p.cpu).Obj())
	}
	return pods, nodes
}

// busyN0 says n0 uses 90% of its CPU on average (10% lately), n1 10% and
// n2 50%; memory 20%, 10% and 30%.
func busyN0(now time.Time) *schedtest.UsageStore {
	return schedtest.NewUsageStore().
		Set("n0", now, nodeusage.Fresh, nodeusage.CPU, nodeusage.Stat{Average: 0.9, Latest: 0.1}, nodeusage.Memory, 0.2).
		Set("n1", now, nodeusage.Fresh, nodeusage.CPU, 0.1, nodeusage.Memory, 0.1).
		Set("n2", now, nodeusage.Fresh, nodeusage.CPU, 0.5, nodeusage.Memory, 0.3)
}

func TestRunWithMetricsServer(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name      string
		args      string
		perNode   int
		protected string
		want      []string
		// wantReason is in the reason of every eviction.
		wantReason string
	}{
		// n1 uses 10% though its pods request all of it; n0 and n2 have
		// 3800m and 3000m left by requests. By requests, n0 (5%) would
		// be the one emptied.
		{name: "empties the node idle by usage", args: metricsServerArgs, want: []string{"n1-p0", "n1-p1"},
			wantReason: "node's usage from metrics-server is at or below thresholds (cpu 10%); its pods can pack onto busier nodes"},
		{name: "deprecated metricsServer", args: `{"thresholds":{"cpu":20},"metricsUtilization":{"metricsServer":true}}`, want: []string{"n1-p0", "n1-p1"}},
		// n1 and n2 are at or below 50%; n0 alone takes pods, with 3800m
		// left by requests: n1's two pods fill it, and n2's stays.
		{name: "the targets' room is their requests'", args: `{"thresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			want: []string{"n1-p0", "n1-p1"}},
		{name: "every threshold", args: `{"thresholds":{"cpu":20,"memory":10},"metricsUtilization":{"source":"KubernetesMetrics"}}`,
			want: []string{"n1-p0", "n1-p1"}, wantReason: "(cpu 10%, memory 10%)"},
		{name: "memory above its threshold", args: `{"thresholds":{"cpu":20,"memory":5},"metricsUtilization":{"source":"KubernetesMetrics"}}`},
		// pods counts the node's pods: two of 110 are above 1%.
		{name: "pods counts the pods", args: `{"thresholds":{"cpu":20,"pods":1},"metricsUtilization":{"source":"KubernetesMetrics"}}`},
		{name: "numberOfNodes not exceeded", args: `{"thresholds":{"cpu":20},"numberOfNodes":1,"metricsUtilization":{"source":"KubernetesMetrics"}}`},
		{name: "every node idle by usage", args: `{"thresholds":{"cpu":90},"metricsUtilization":{"source":"KubernetesMetrics"}}`},
		{name: "per-node limit", args: metricsServerArgs, perNode: 1, want: []string{"n1-p0"}},
		{name: "protected pods stay", args: metricsServerArgs, protected: "n1-p0", want: []string{"n1-p1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			pods, nodes := usageCluster()
			h := strategytest.NewHandle(now, pods, nodes)
			h.NodeUsage, h.PerNodeLimit = busyN0(now), tt.perNode
			h.Protected = func(p *v1.Pod) bool { return p.Name == tt.protected }
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
				if r := h.Reasons[pod]; !strings.Contains(r, tt.wantReason) {
					t.Errorf("reason for %s = %q, want it to contain %q", pod, r, tt.wantReason)
				}
			}
		})
	}
}

func TestRunWithPrometheus(t *testing.T) {
	now := time.Now()
	var nodes []*v1.Node
	var pods []*v1.Pod
	for _, n := range []string{"n0", "n1", "n2", "n3"} {
		nodes = append(nodes, strategytest.Node(n).Obj())
		for i := range 3 {
			pods = append(pods, strategytest.Pod(fmt.Sprintf("%s-p%d", n, i)).NodeName(n).Req("cpu", "500m").Obj())
		}
	}
	// n1, n2 and n3 are at or below 30%: 0.309 counts as 30%, as the
	// descheduler counts it. n0 alone takes pods, with 2500m left by
	// requests: five pods of 500m.
	store := schedtest.NewUsageStore().
		Set("n0", now, nodeusage.Fresh, nodeusage.Metric, 0.9).
		Set("n1", now, nodeusage.Fresh, nodeusage.Metric, 0.1).
		Set("n2", now, nodeusage.Fresh, nodeusage.Metric, 0.05).
		Set("n3", now, nodeusage.Fresh, nodeusage.Metric, 0.309)
	for _, tt := range []struct {
		name    string
		perNode int
		want    []string
	}{
		// Emptying a node takes all its pods: the emptiest node goes
		// whole, then the next until the room is used up.
		{name: "every pod of the emptiest nodes", want: []string{"n2-p0", "n2-p1", "n2-p2", "n1-p0", "n1-p1"}},
		{name: "up to the per-node limit", perNode: 1, want: []string{"n2-p0", "n1-p0", "n3-p0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New([]byte(prometheusArgs))
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
			const want = "node's usage from Prometheus is at or below thresholds (MetricResource 5%); its pods can pack onto busier nodes"
			if r := h.Reasons["n2-p0"]; r != want {
				t.Errorf("reason = %q, want %q", r, want)
			}
		})
	}
}

// TestRunRefusesMissingData checks that a run without fresh usage of every
// node fails, naming the node, and evicts nothing.
func TestRunRefusesMissingData(t *testing.T) {
	const args = `{"thresholds":{"cpu":20,"memory":20},"metricsUtilization":{"source":"KubernetesMetrics"}}`
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
			s.Set("n0", now.Add(-time.Hour), nodeusage.Stale, nodeusage.CPU, 0.9, nodeusage.Memory, 0.2)
			s.ReadErr = errors.New("listing NodeMetrics from metrics.k8s.io: the server is currently unable to handle the request")
		}, wantErr: "the usage of node n0 in metrics-server's node metrics is stale: its newest sample was taken at " + now.Add(-time.Hour).UTC().Format(time.RFC3339) +
			", and the last read failed: listing NodeMetrics"},
		{name: "resource missing", store: func(s *schedtest.UsageStore) { s.Set("n0", now, nodeusage.Fresh, nodeusage.CPU, 0.9) },
			wantErr: "node n0 has no memory usage in metrics-server's node metrics"},
		{name: "source fails", err: errors.New(`running Prometheus query "q" at http://p: query for MetricResource: expected a vector, got matrix`),
			args:    prometheusArgs,
			wantErr: `reading node usage from the policy's Prometheus metrics provider: running Prometheus query "q" at http://p: query for MetricResource: expected a vector, got matrix`},
		{name: "prometheus node missing", store: func(s *schedtest.UsageStore) {
			s.Nodes = map[string]schedtest.NodeUsage{}
			s.Set("n0", now, nodeusage.Fresh, nodeusage.Metric, 0.9).Set("n1", now, nodeusage.Fresh, nodeusage.Metric, 0.1)
		}, args: prometheusArgs, wantErr: `node n2 has no usage in the result of Prometheus query "q"`},
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
			h.NodeUsage, h.MetricsErr = store, tt.err
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
// which has no usage, neither fails the run nor counts: its pods stay and
// it takes none.
func TestRunLeavesOutNodesNotReady(t *testing.T) {
	now := time.Now()
	pods, nodes := usageCluster()
	down := strategytest.Node("down").Obj()
	down.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
	nodes = append(nodes, down)
	pods = append(pods, strategytest.Pod("down-p0").NodeName("down").Obj())
	s, err := New([]byte(metricsServerArgs))
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.NewHandle(now, pods, nodes)
	h.NodeUsage = busyN0(now)
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if want := []string{"n1-p0", "n1-p1"}; !slices.Equal(h.Evicted, want) {
		t.Errorf("evicted %v, want %v", h.Evicted, want)
	}
}

// TestRunFromRequestsReadsNoMetrics checks that without metricsUtilization
// the strategy asks for no usage and judges the nodes by requests.
func TestRunFromRequestsReadsNoMetrics(t *testing.T) {
	pods, nodes := usageCluster()
	s, err := New([]byte(`{"thresholds":{"cpu":20}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.NewHandle(time.Now(), pods, nodes)
	h.NodeUsage = busyN0(time.Now())
	if err := s.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if len(h.Queries) != 0 {
		t.Errorf("asked for usage %v", h.Queries)
	}
	// By requests n0 (5%) is the idle node.
	if want := []string{"n0-p0", "n0-p1"}; !slices.Equal(h.Evicted, want) {
		t.Errorf("evicted %v, want %v", h.Evicted, want)
	}
	if r := h.Reasons["n0-p0"]; r != "node is at or below thresholds (cpu 5%); its pods can pack onto busier nodes" {
		t.Errorf("reason = %q", r)
	}
}
