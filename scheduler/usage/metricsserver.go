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
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// AllocatableFunc returns a node's allocatable CPU in millicores and memory
// in bytes; ok is false for a node that is not in the cluster (any more) or
// has no allocatable CPU or memory yet.
type AllocatableFunc func(name string) (cpuMilli, memBytes int64, ok bool)

// AllocatableFromLister returns an AllocatableFunc that reads nodes'
// status.allocatable from a node lister.
func AllocatableFromLister(nodes corelisters.NodeLister) AllocatableFunc {
	return func(name string) (int64, int64, bool) {
		n, err := nodes.Get(name)
		if err != nil {
			return 0, 0, false
		}
		cpu, mem := n.Status.Allocatable.Cpu().MilliValue(), n.Status.Allocatable.Memory().Value()
		return cpu, mem, cpu > 0 && mem > 0
	}
}

// metricsServerReader reads every node's CPU and memory from metrics.k8s.io
// with one List of NodeMetricses.
type metricsServerReader struct {
	client      metricsclient.Interface
	allocatable AllocatableFunc
	now         func() time.Time
}

func (m *metricsServerReader) read(ctx context.Context) (map[string]sample, error) {
	list, err := m.client.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing NodeMetrics from metrics.k8s.io: %w", err)
	}
	logger := logr.FromContextOrDiscard(ctx)
	out := make(map[string]sample, len(list.Items))
	for i := range list.Items {
		nm := &list.Items[i]
		cpu, mem, ok := m.allocatable(nm.Name)
		if !ok || cpu <= 0 || mem <= 0 {
			logger.V(5).Info("Skipping node metrics of a node without allocatable CPU or memory", "node", klog.KRef("", nm.Name))
			continue
		}
		at := nm.Timestamp.Time
		if at.IsZero() {
			at = m.now()
		}
		s := sample{at: at, values: make(map[Resource]float64, 2)}
		if q, ok := nm.Usage[corev1.ResourceCPU]; ok {
			s.values[CPU] = float64(q.MilliValue()) / float64(cpu)
		}
		if q, ok := nm.Usage[corev1.ResourceMemory]; ok {
			s.values[Memory] = float64(q.Value()) / float64(mem)
		}
		if len(s.values) > 0 {
			out[nm.Name] = s
		}
	}
	return out, nil
}
