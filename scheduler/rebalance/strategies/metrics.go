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

package strategies

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/usage"
)

// MetricsQuery says what real usage a strategy reads: through which of the
// policy's metrics providers and, for Prometheus, with which query.
type MetricsQuery struct {
	// Source is the provider's source.
	Source v1alpha1.MetricsSource
	// Query is the Prometheus query: an instant vector of one sample per
	// node, labelled instance=<node name>, valued in [0, 1]. Empty for
	// KubernetesMetrics.
	Query string
}

// Metrics is what nodes and pods really use, as one run reads it.
type Metrics struct {
	// Nodes holds every node's usage: for KubernetesMetrics the store
	// metrics-server is polled into, shared with the load-aware plugins
	// reading it (usage.CPU and usage.Memory); for Prometheus the result of
	// one run of the query (usage.Metric).
	Nodes usage.Store
	// PodUsage returns the CPU and memory a pod uses now; nil when the
	// source gives no pod's usage (Prometheus).
	PodUsage func(ctx context.Context, pod *v1.Pod) (v1.ResourceList, error)
	// NodeLimited says whether the policy bounds the evictions from one
	// node in a run (limits.maxPodsToEvictPerNode): a strategy that cannot
	// tell how much an eviction frees (no PodUsage) then evicts up to that
	// bound, and otherwise one pod per node.
	NodeLimited bool
}

// MetricsReader is implemented by the strategies that may read real usage,
// so that a policy is refused when it does not configure the provider one
// of them reads.
type MetricsReader interface {
	// MetricsSource returns the provider's source the strategy reads and
	// the path, in its args, of the field that asks for it; "" when the
	// strategy reads none.
	MetricsSource() (v1alpha1.MetricsSource, *field.Path)
}
