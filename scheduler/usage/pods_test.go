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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
)

// podMetricsGVR is where metrics.k8s.io serves PodMetrics, and where the
// fake clientset's Get looks.
var podMetricsGVR = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}

func podMetrics(name string, containers ...metricsv1beta1.ContainerMetrics) *metricsv1beta1.PodMetrics {
	return &metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Containers: containers}
}

func container(name string, usage ...string) metricsv1beta1.ContainerMetrics {
	c := metricsv1beta1.ContainerMetrics{Name: name, Usage: corev1.ResourceList{}}
	for i := 0; i+1 < len(usage); i += 2 {
		c.Usage[corev1.ResourceName(usage[i])] = resource.MustParse(usage[i+1])
	}
	return c
}

func TestPodUsage(t *testing.T) {
	c := metricsfake.NewSimpleClientset()
	for _, pm := range []*metricsv1beta1.PodMetrics{
		podMetrics("two", container("a", "cpu", "250m", "memory", "100Mi"), container("b", "cpu", "1", "memory", "1Gi")),
		podMetrics("no-memory", container("a", "cpu", "250m")),
		podMetrics("empty"),
	} {
		if err := c.Tracker().Create(podMetricsGVR, pm, "ns"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		pod      string
		cpu, mem int64
		wantErr  string
	}{
		{pod: "two", cpu: 1250, mem: (100 + 1024) << 20},
		{pod: "no-memory", wantErr: `the PodMetrics of pod ns/no-memory: container "a" has no memory usage`},
		{pod: "empty", wantErr: "the PodMetrics of pod ns/empty lists no container"},
		{pod: "gone", wantErr: "getting the PodMetrics of pod ns/gone: "},
	}
	for _, tt := range tests {
		t.Run(tt.pod, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tt.pod, Namespace: "ns"}}
			got, err := NewRegistry(WithMetricsClient(c)).PodUsage(context.Background(), pod)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PodUsage = %v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cpu, mem := got.Cpu().MilliValue(), got.Memory().Value(); cpu != tt.cpu || mem != tt.mem {
				t.Errorf("PodUsage = %dm CPU, %d bytes; want %dm, %d", cpu, mem, tt.cpu, tt.mem)
			}
		})
	}
	if _, err := PodUsage(context.Background(), nil, &corev1.Pod{}); err == nil {
		t.Error("PodUsage without a client succeeded")
	}
}
