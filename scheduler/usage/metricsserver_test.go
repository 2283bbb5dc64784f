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

package usage

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
)

// nodeMetrics returns the NodeMetrics of a node whose window ends at end.
func nodeMetrics(name string, end time.Time, cpu, mem string) *metricsv1beta1.NodeMetrics {
	usage := corev1.ResourceList{}
	if cpu != "" {
		usage[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		usage[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return &metricsv1beta1.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Timestamp:  metav1.NewTime(end),
		Window:     metav1.Duration{Duration: 15 * time.Second},
		Usage:      usage,
	}
}

// allocatable returns an AllocatableFunc over a fixed map of nodes, each
// given as [cpuMilli, memBytes].
func allocatable(nodes map[string][2]int64) AllocatableFunc {
	return func(name string) (int64, int64, bool) {
		a, ok := nodes[name]
		return a[0], a[1], ok && a[0] > 0 && a[1] > 0
	}
}

func TestMetricsServerReader(t *testing.T) {
	end := t0.Add(-5 * time.Second)
	alloc := allocatable(map[string][2]int64{
		"n1":   {4000, 8 << 30},
		"n2":   {2000, 4 << 30},
		"zero": {0, 4 << 30},
	})
	tests := []struct {
		name    string
		objects []runtime.Object
		listErr error
		want    map[string]sample
		wantErr string
	}{
		{
			name: "usage over allocatable, sampled at the end of the window",
			objects: []runtime.Object{
				nodeMetrics("n1", end, "1", "2Gi"),
				nodeMetrics("n2", end.Add(-time.Second), "1500m", "5Gi"),
			},
			want: map[string]sample{
				"n1": {at: end, values: map[Resource]float64{CPU: 0.25, Memory: 0.25}},
				// Usage beyond allocatable is given as it is.
				"n2": {at: end.Add(-time.Second), values: map[Resource]float64{CPU: 0.75, Memory: 1.25}},
			},
		},
		{
			name: "nodes without allocatable are skipped",
			objects: []runtime.Object{
				nodeMetrics("n1", end, "2", "4Gi"),
				nodeMetrics("unknown", end, "1", "1Gi"),
				nodeMetrics("zero", end, "1", "1Gi"),
			},
			want: map[string]sample{"n1": {at: end, values: map[Resource]float64{CPU: 0.5, Memory: 0.5}}},
		},
		{
			name:    "a resource metrics-server did not give is left out",
			objects: []runtime.Object{nodeMetrics("n1", end, "", "4Gi"), nodeMetrics("n2", end, "", "")},
			want:    map[string]sample{"n1": {at: end, values: map[Resource]float64{Memory: 0.5}}},
		},
		{
			name:    "no timestamp: the time of the read",
			objects: []runtime.Object{nodeMetrics("n1", time.Time{}, "2", "4Gi")},
			want:    map[string]sample{"n1": {at: t0, values: map[Resource]float64{CPU: 0.5, Memory: 0.5}}},
		},
		{
			name:    "no metrics",
			objects: nil,
			want:    map[string]sample{},
		},
		{
			name:    "list fails",
			listErr: errors.New("the server is currently unable to handle the request"),
			wantErr: "listing NodeMetrics from metrics.k8s.io: the server is currently unable to handle the request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := metricsClient(t, tt.objects...)
			if tt.listErr != nil {
				client.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tt.listErr
				})
			}
			m := &metricsServerReader{client: client, allocatable: alloc, now: func() time.Time { return t0 }}
			got, err := m.read(context.Background())
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("read() error = %v, want %q", err, tt.wantErr)
				}
				if !errors.Is(err, tt.listErr) {
					t.Errorf("read() error does not wrap %v", tt.listErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("read() error = %v", err)
			}
			assertSamples(t, got, tt.want)
			var verbs []string
			for _, a := range client.Actions() {
				verbs = append(verbs, a.GetVerb()+" "+a.GetResource().Resource)
			}
			if strings.Join(verbs, ",") != "list nodes" {
				t.Errorf("actions = %v, want a single list of nodes", verbs)
			}
		})
	}
}

func TestAllocatableFromLister(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range []*corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("3500m"), corev1.ResourceMemory: resource.MustParse("2Gi"),
		}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "new"}},
	} {
		if err := idx.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	f := AllocatableFromLister(corelisters.NewNodeLister(idx))
	tests := []struct {
		node     string
		cpu, mem int64
		ok       bool
	}{
		{node: "n1", cpu: 3500, mem: 2 << 30, ok: true},
		{node: "new", ok: false},
		{node: "gone", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			cpu, mem, ok := f(tt.node)
			if cpu != tt.cpu || mem != tt.mem || ok != tt.ok {
				t.Errorf("allocatable(%q) = %d, %d, %v, want %d, %d, %v", tt.node, cpu, mem, ok, tt.cpu, tt.mem, tt.ok)
			}
		})
	}
}

// nodeMetricsGVR is where metrics.k8s.io serves NodeMetrics; the fake
// clientset's tracker would guess "nodemetricses" from the kind, where List
// does not look.
var nodeMetricsGVR = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "nodes"}

// metricsClient returns a fake metrics.k8s.io clientset serving objects.
func metricsClient(t *testing.T, objects ...runtime.Object) *metricsfake.Clientset {
	t.Helper()
	c := metricsfake.NewSimpleClientset()
	for _, o := range objects {
		if err := c.Tracker().Create(nodeMetricsGVR, o, ""); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// assertSamples fails t unless got and want hold the same samples.
func assertSamples(t *testing.T, got, want map[string]sample) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("read %d nodes %v, want %d %v", len(got), got, len(want), want)
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("node %q missing from the read", name)
			continue
		}
		if !g.at.Equal(w.at) {
			t.Errorf("node %q sampled at %v, want %v", name, g.at, w.at)
		}
		if len(g.values) != len(w.values) {
			t.Errorf("node %q values = %v, want %v", name, g.values, w.values)
		}
		for r, v := range w.values {
			if gv, ok := g.values[r]; !ok || !near(gv, v) {
				t.Errorf("node %q %s = %v, want %v", name, r, g.values[r], v)
			}
		}
	}
}
