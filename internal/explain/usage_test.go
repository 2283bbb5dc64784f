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

package explain_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/scheduler"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/usage"
)

// loadProfile serves the default scheduler name with TargetLoadPacking
// (default args: metrics-server, a 40% target) and LoadAwareScheduling
// (above 92% of CPU) on top of the default plugins.
func loadProfile() *v1alpha1.SchedulingProfile {
	return st.Profile("load").Created(t0).SchedulerName(v1.DefaultSchedulerName).Generation(1).
		Enable("score", "TargetLoadPacking").Enable("multiPoint", "LoadAwareScheduling").
		PluginArgs("LoadAwareScheduling", `{"usageThresholds":{"cpu":92,"memory":95}}`).Obj()
}

// nodeMetrics is metrics-server's sample of a node using milliCPU and
// memMi, taken at at.
func nodeMetrics(name string, milliCPU, memMi int64, at time.Time) *metricsv1beta1.NodeMetrics {
	return &metricsv1beta1.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Timestamp:  metav1.NewTime(at),
		Window:     metav1.Duration{Duration: 30 * time.Second},
		Usage: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
		},
	}
}

// metricsClient returns a fake metrics.k8s.io clientset serving samples.
func metricsClient(t *testing.T, samples ...*metricsv1beta1.NodeMetrics) *metricsfake.Clientset {
	t.Helper()
	c := metricsfake.NewSimpleClientset()
	for _, m := range samples {
		if err := c.Tracker().Create(metricsv1beta1.SchemeGroupVersion.WithResource("nodes"), m, ""); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// usageOpts are the Explainer's options reading metrics through c at the
// fake clock's now.
func usageOpts(c *metricsfake.Clientset, now time.Time) []explain.Option {
	return []explain.Option{
		explain.WithClock(clocktesting.NewFakeClock(now)),
		explain.WithSchedulerOptions(scheduler.WithNodeUsageOptions(usage.WithMetricsClient(c))),
	}
}

// nodeUsage returns the only source's usage of a row.
func nodeUsage(t *testing.T, n explain.NodeResult) explain.NodeUsage {
	t.Helper()
	if len(n.Usage) != 1 {
		t.Fatalf("node %s: usage %+v, want one source", n.Node, n.Usage)
	}
	return n.Usage[0]
}

// estimate returns a plugin's estimate in a node's usage, failing without one.
func estimate(t *testing.T, u explain.NodeUsage, plugin string) explain.UsageEstimate {
	t.Helper()
	for _, e := range u.Estimates {
		if e.Plugin == plugin {
			return e
		}
	}
	t.Fatalf("no estimate of %s in %+v", plugin, u.Estimates)
	return explain.UsageEstimate{}
}

// score returns a plugin's normalized score of a row, failing without one.
func score(t *testing.T, n explain.NodeResult, plugin string) int64 {
	t.Helper()
	for _, s := range n.Scores {
		if s.Plugin == plugin {
			return s.Score
		}
	}
	t.Fatalf("node %s has no %s score in %+v", n.Node, plugin, n.Scores)
	return 0
}

// tableOf renders the report as the table.
func tableOf(t *testing.T, r *explain.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lineOf returns the table line of a node.
func lineOf(t *testing.T, table, node string) string {
	t.Helper()
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, node+" ") {
			return l
		}
	}
	t.Fatalf("no line for %s in\n%s", node, table)
	return ""
}

func TestExplainUsage(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	sampledAt := now.Add(-10 * time.Second)
	nodes := []*v1.Node{
		readyNode("busy", 4, 16).Obj(),
		readyNode("calm", 4, 16).Obj(),
		readyNode("hot", 4, 16).Obj(),
		readyNode("unsampled", 4, 16).Obj(),
	}
	pods := []*v1.Pod{
		pendingPod("ns", "web", 250, 256).Obj(),
		// Bound an hour ago: the sample shows it.
		pendingPod("ns", "old", 1000, 1024).NodeName("busy").BoundAt(now.Add(-time.Hour)).Phase(v1.PodRunning).Obj(),
		// Bound after the sample: the plugins add an estimate for it.
		pendingPod("ns", "new", 500, 512).NodeName("calm").BoundAt(now.Add(-5 * time.Second)).Phase(v1.PodRunning).Obj(),
	}
	// busy, with the pod, is at 90% by LoadAwareScheduling's estimate.
	samples := []*metricsv1beta1.NodeMetrics{
		nodeMetrics("busy", 3400, 8192, sampledAt),  // 85% of CPU, 50% of memory
		nodeMetrics("calm", 480, 4096, sampledAt),   // 12%, 25%
		nodeMetrics("hot", 3800, 4096, sampledAt),   // 95%, above LoadAwareScheduling's 92%
		nodeMetrics("gone", 1000, 1024, sampledAt),  // no such node
		nodeMetrics("stale", 1000, 1024, sampledAt), // no such node either
	}

	for _, tc := range []struct {
		name    string
		profile *v1alpha1.SchedulingProfile
		client  *metricsfake.Clientset
		check   func(t *testing.T, r *explain.Report)
	}{{
		name:    "each node's sample, its age and the estimates; the busy node scores lower",
		profile: loadProfile(),
		client:  metricsClient(t, samples...),
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if len(res.Usage) != 2 || res.Usage[0].Plugin != "LoadAwareScheduling" || res.Usage[1].Plugin != "TargetLoadPacking" {
				t.Fatalf("usage sources %+v, want TargetLoadPacking's and LoadAwareScheduling's", res.Usage)
			}
			for _, u := range res.Usage {
				if u.Source != "metrics.k8s.io" || u.Error != "" || u.ReadAt == nil || !u.ReadAt.Time.Equal(now) {
					t.Errorf("%s: %+v, want metrics.k8s.io read at %v", u.Plugin, u, now)
				}
			}

			busy, calm := nodeRow(t, res, "busy"), nodeRow(t, res, "calm")
			bu := nodeUsage(t, busy)
			if bu.Freshness != "fresh" || bu.AgeSeconds == nil || *bu.AgeSeconds != 10 || *bu.CPUPercent != 85 || *bu.MemoryPercent != 50 {
				t.Errorf("busy: %+v, want fresh, 10s old, 85%% CPU, 50%% memory", bu)
			}
			for _, e := range bu.Estimates {
				if e.Basis != "sample" || e.Pods != 0 {
					t.Errorf("busy: %s estimates %+v, want nothing added to the sample", e.Plugin, e)
				}
			}
			cu := nodeUsage(t, calm)
			if cu.Freshness != "fresh" || *cu.CPUPercent != 12 || len(cu.Estimates) != 2 {
				t.Fatalf("calm: %+v, want fresh at 12%% CPU with two estimates", cu)
			}
			// TargetLoadPacking predicts 1.5 × the request, 750m: 18.75% of 4 CPUs;
			// LoadAwareScheduling 85% of it, 425m, and 70% of 512Mi.
			tlp, las := estimate(t, cu, "TargetLoadPacking"), estimate(t, cu, "LoadAwareScheduling")
			if tlp.Basis != "sample" || tlp.Pods != 1 || tlp.MilliCPU != 750 || tlp.CPUPercent != 18.8 || tlp.MemoryBytes != 0 {
				t.Errorf("calm: TargetLoadPacking's estimate %+v, want 750m for one pod", tlp)
			}
			if las.Basis != "sample" || las.Pods != 1 || las.MilliCPU != 425 || las.MemoryBytes != 375809638 {
				t.Errorf("calm: LoadAwareScheduling's estimate %+v, want 425m and 70%% of 512Mi for one pod", las)
			}
			if b, c := score(t, busy, "TargetLoadPacking"), score(t, calm, "TargetLoadPacking"); b >= c {
				t.Errorf("TargetLoadPacking scores busy %d, calm %d: want busy lower", b, c)
			}

			if hot := nodeRow(t, res, "hot"); hot.Feasible || hot.Plugin != "LoadAwareScheduling" || nodeUsage(t, hot).CPUPercent == nil {
				t.Errorf("hot: %+v, want rejected by LoadAwareScheduling with its usage", hot)
			}
			un := nodeUsage(t, nodeRow(t, res, "unsampled"))
			if un.Freshness != "missing" || un.SampledAt != nil || un.CPUPercent != nil {
				t.Errorf("unsampled: %+v, want missing", un)
			}
			if estimate(t, un, "TargetLoadPacking").Basis != "pods" || estimate(t, un, "LoadAwareScheduling").Basis != "none" {
				t.Errorf("unsampled: estimates %+v, want TargetLoadPacking on its pods, LoadAwareScheduling not judging", un.Estimates)
			}

			table := tableOf(t, r)
			if !strings.Contains(table, "USAGE") || !strings.Contains(table, "TargetLoadPacking") {
				t.Errorf("the table has no USAGE or TargetLoadPacking column:\n%s", table)
			}
			for node, want := range map[string]string{
				"busy":      "cpu 85% mem 50%, 10s old",
				"calm":      "cpu 12% mem 25%, 10s old, +11% cpu +2.2% mem (LoadAwareScheduling), +19% cpu (TargetLoadPacking)",
				"hot":       "cpu 95% mem 25%, 10s old  LoadAwareScheduling: node(s) cpu usage exceed threshold",
				"unsampled": "missing",
			} {
				if line := lineOf(t, table, node); !strings.Contains(line, want) {
					t.Errorf("%s's line %q does not hold %q", node, line, want)
				}
			}
		},
	}, {
		name:    "an unreadable source is reported, and every node judged without data",
		profile: loadProfile(),
		client: func() *metricsfake.Clientset {
			c := metricsClient(t, samples...)
			c.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, apiruntime.Object, error) {
				return true, nil, errors.New("the server is currently unable to handle the request")
			})
			return c
		}(),
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			for _, u := range res.Usage {
				if u.ReadAt != nil || !strings.Contains(u.Error, "unable to handle the request") {
					t.Errorf("%s: %+v, want the read's error", u.Plugin, u)
				}
			}
			if res.NumFeasible != 4 {
				t.Errorf("%d of 4 nodes feasible, want all: LoadAwareScheduling lets nodes without a sample through", res.NumFeasible)
			}
			for _, n := range res.Nodes {
				if u := nodeUsage(t, n); u.Freshness != "missing" {
					t.Errorf("%s: %+v, want missing", n.Node, u)
				}
				score(t, n, "TargetLoadPacking")
			}
			table := tableOf(t, r)
			if want := "Usage: LoadAwareScheduling, TargetLoadPacking cannot read metrics.k8s.io: listing NodeMetrics from metrics.k8s.io: the server is currently unable to handle the request."; !strings.Contains(table, want) {
				t.Errorf("the table does not say %q:\n%s", want, table)
			}
		},
	}, {
		name:    "nothing about usage without a load-aware plugin",
		profile: defaultProfile,
		client:  metricsClient(t, samples...),
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if len(res.Usage) != 0 {
				t.Errorf("usage sources %+v, want none", res.Usage)
			}
			for _, n := range res.Nodes {
				if n.Usage != nil {
					t.Errorf("%s: usage %+v, want none", n.Node, n.Usage)
				}
			}
			if table := tableOf(t, r); strings.Contains(table, "USAGE") || strings.Contains(table, "Usage") {
				t.Errorf("the table shows usage:\n%s", table)
			}
			out, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out, []byte(`"usage"`)) {
				t.Errorf("the JSON has usage: %s", out)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster{nodes: nodes, pods: pods, profiles: []*v1alpha1.SchedulingProfile{tc.profile}, opts: usageOpts(tc.client, now)}
			e, _ := c.explainer(t)
			r, err := e.Explain(testContext(t), explain.Request{Namespace: "ns", Name: "web"})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

func TestExplainUsageJSON(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	c := cluster{
		nodes:    []*v1.Node{readyNode("calm", 4, 16).Obj()},
		pods:     []*v1.Pod{pendingPod("ns", "web", 250, 256).Obj()},
		profiles: []*v1alpha1.SchedulingProfile{loadProfile()},
		opts:     usageOpts(metricsClient(t, nodeMetrics("calm", 480, 4096, now.Add(-10*time.Second))), now),
	}
	e, _ := c.explainer(t)
	r, err := e.Explain(testContext(t), explain.Request{Namespace: "ns", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "yaml"} {
		var b bytes.Buffer
		if err := r.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"freshness", "fresh", "ageSeconds", "cpuPercent", "memoryPercent", "sampledAt", "basis", "readAt", "metrics.k8s.io"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s output has no %q:\n%s", format, want, b.String())
			}
		}
	}
}
