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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// PodUsage returns the CPU and memory pod uses now, summed over the
// containers of its PodMetrics in metrics.k8s.io: metrics-server's latest
// window, not smoothed (the descheduler reads pods the same way when it
// chooses what to evict). A pod without PodMetrics, or with a container
// that lacks CPU or memory, is an error naming the pod.
func PodUsage(ctx context.Context, c metricsclient.Interface, pod *corev1.Pod) (corev1.ResourceList, error) {
	if c == nil {
		return nil, errors.New("no metrics.k8s.io client configured")
	}
	pm, err := c.MetricsV1beta1().PodMetricses(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting the PodMetrics of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if len(pm.Containers) == 0 {
		return nil, fmt.Errorf("the PodMetrics of pod %s/%s lists no container", pod.Namespace, pod.Name)
	}
	total := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(0, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(0, resource.BinarySI),
	}
	for _, ctr := range pm.Containers {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			q, ok := ctr.Usage[name]
			if !ok {
				return nil, fmt.Errorf("the PodMetrics of pod %s/%s: container %q has no %s usage", pod.Namespace, pod.Name, ctr.Name, name)
			}
			sum := total[name]
			sum.Add(q)
			total[name] = sum
		}
	}
	return total, nil
}

// PodUsage returns the CPU and memory pod uses now, read with PodUsage
// through the registry's metrics.k8s.io client.
func (r *Registry) PodUsage(ctx context.Context, pod *corev1.Pod) (corev1.ResourceList, error) {
	return PodUsage(ctx, r.metrics, pod)
}
