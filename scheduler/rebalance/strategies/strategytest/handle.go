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

// Package strategytest helps test rebalance strategies: a recording Handle
// over a snapshot, and schedtest pods and nodes with the strategies' defaults.
package strategytest

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/usage"
)

// Handle records the evictions a strategy asks for. Every pod is evictable
// unless Protected says otherwise; PerNodeLimit bounds evictions per node
// when positive.
type Handle struct {
	nodes []*framework.NodeInfo
	now   time.Time
	// Protected, when set, keeps the pods it returns true for.
	Protected func(*v1.Pod) bool
	// PerNodeLimit bounds the evictions from one node when positive.
	PerNodeLimit int
	// Evicted lists the names of the evicted pods in order.
	Evicted []string
	// Reasons holds the reason given for each evicted pod by name.
	Reasons map[string]string
	// NodeUsage is the store Metrics gives for every query; without it
	// Metrics fails.
	NodeUsage usage.Store
	// PodUsage is the pods' usage Metrics gives; nil gives none, as
	// Prometheus.
	PodUsage func(ctx context.Context, pod *v1.Pod) (v1.ResourceList, error)
	// MetricsErr, when set, is the error of every Metrics call.
	MetricsErr error
	// Queries lists the Metrics calls' queries in order.
	Queries  []strategies.MetricsQuery
	fromNode map[string]int
}

var _ strategies.Handle = (*Handle)(nil)

// NewHandle returns a Handle over a snapshot of pods and nodes at now.
func NewHandle(now time.Time, pods []*v1.Pod, nodes []*v1.Node) *Handle {
	list, _ := cache.NewSnapshot(pods, nodes).List()
	return &Handle{nodes: list, now: now, Reasons: map[string]string{}, fromNode: map[string]int{}}
}

// Nodes returns the snapshot's nodes.
func (h *Handle) Nodes() []*framework.NodeInfo { return h.nodes }

// Now returns the handle's time.
func (h *Handle) Now() time.Time { return h.now }

// Evictable reports whether Protected lets pod go.
func (h *Handle) Evictable(pod *v1.Pod) bool { return h.Protected == nil || !h.Protected(pod) }

// LimitReached reports whether PerNodeLimit pods left nodeName.
func (h *Handle) LimitReached(nodeName string) bool {
	return h.PerNodeLimit > 0 && h.fromNode[nodeName] >= h.PerNodeLimit
}

// Evict records the eviction.
func (h *Handle) Evict(_ context.Context, pod *v1.Pod, reason string) bool {
	if !h.Evictable(pod) || h.LimitReached(pod.Spec.NodeName) {
		return false
	}
	h.fromNode[pod.Spec.NodeName]++
	h.Evicted = append(h.Evicted, pod.Name)
	h.Reasons[pod.Name] = reason
	return true
}

// Metrics records q and returns NodeUsage and PodUsage, NodeLimited when
// PerNodeLimit is set; MetricsErr, or an error without NodeUsage.
func (h *Handle) Metrics(_ context.Context, q strategies.MetricsQuery) (*strategies.Metrics, error) {
	h.Queries = append(h.Queries, q)
	switch {
	case h.MetricsErr != nil:
		return nil, h.MetricsErr
	case h.NodeUsage == nil:
		return nil, errors.New("the test handle has no node usage")
	}
	return &strategies.Metrics{Nodes: h.NodeUsage, PodUsage: h.PodUsage, NodeLimited: h.PerNodeLimit > 0}, nil
}
