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

package scheduler

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// CacheReport is what CompareCache found.
type CacheReport struct {
	// Nodes and Pods are how many the informers hold.
	Nodes, Pods int
	// AssumedPods are the pods assumed and not yet confirmed by the informer.
	AssumedPods int
	// Mismatch lists how the cache differs from the informers; nil when it does not.
	Mismatch *schedcache.MismatchError
}

// CompareCache checks the cache against the informers' nodes and pods, as
// kube-scheduler's cache comparer does, and logs the result. `berth
// manager` runs it on SIGUSR2; the fault suite reads its log line.
func (s *Scheduler) CompareCache(ctx context.Context) (*CacheReport, error) {
	nodes, err := s.informerFactory.Core().V1().Nodes().Lister().List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing nodes from the informer: %w", err)
	}
	pods, err := s.podLister.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing pods from the informer: %w", err)
	}
	r := &CacheReport{Nodes: len(nodes), Pods: len(pods), AssumedPods: len(s.cache.Dump().AssumedPods)}
	if err := schedcache.Compare(s.cache, nodes, pods); err != nil && !errors.As(err, &r.Mismatch) {
		return nil, err
	}
	differences := ""
	if r.Mismatch != nil {
		differences = r.Mismatch.Error()
	}
	klog.FromContext(ctx).Info("Compared the scheduler's cache with its informers",
		"nodes", r.Nodes, "pods", r.Pods, "assumedPods", r.AssumedPods, "consistent", r.Mismatch == nil, "differences", differences)
	return r, nil
}
