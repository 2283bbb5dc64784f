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

// Package strategies defines what a rebalance strategy is and what it may
// read and do during one run of a RebalancePolicy. Each strategy lives in a
// sub-package named after it; the rebalancer registers them by the
// descheduler's plugin names.
package strategies

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// Handle is a strategy's view of one run: a consistent snapshot of the
// cluster and an evictor that applies the policy's protections and limits.
type Handle interface {
	// Nodes returns every node of the run's snapshot with the pods bound to it.
	Nodes() []*framework.NodeInfo
	// Evictable reports whether the policy's protections let pod be evicted;
	// nodeFit is checked later, by Evict.
	Evictable(pod *v1.Pod) bool
	// Evict asks for pod to be evicted because of reason. It returns true when
	// the eviction counts against the run's limits: it was planned (dry run)
	// or accepted by the Eviction API.
	Evict(ctx context.Context, pod *v1.Pod, reason string) bool
	// LimitReached reports whether no more pods may leave nodeName in this
	// run, because of the per-node or the total limit. Strategies that
	// account for each eviction stop with it; others keep calling Evict, so
	// that the pods a limit holds back show in the plan as Skipped.
	LimitReached(nodeName string) bool
	// Now returns the time the run started.
	Now() time.Time
	// Metrics reads what nodes and pods really use through the policy's
	// metrics provider of q.Source. An error says why it cannot be read
	// (no such provider, a source that fails); the strategy then evicts
	// nothing.
	Metrics(ctx context.Context, q MetricsQuery) (*Metrics, error)
}

// Strategy chooses pods to evict.
type Strategy interface {
	// Name returns the strategy's descheduler name.
	Name() v1alpha1.StrategyName
	// Run chooses pods from the handle's snapshot and evicts them through it.
	Run(ctx context.Context, h Handle) error
}

// Factory builds a strategy from its JSON arguments (nil when the policy
// gives none), applying defaults and validating them, as args.Load does
// with the owner "strategy <Name>": its errors name the strategy, and
// arguments that decode but do not validate are an *args.InvalidError.
type Factory func(args []byte) (Strategy, error)

// Registry maps strategy names to their factories.
type Registry map[v1alpha1.StrategyName]Factory

// Register adds a factory; a name already registered is an error.
func (r Registry) Register(name v1alpha1.StrategyName, f Factory) error {
	if _, ok := r[name]; ok {
		return fmt.Errorf("strategy %q is already registered", name)
	}
	r[name] = f
	return nil
}

// Build returns the named strategy built from args; an unknown name is an
// error. The factory's errors are returned as they are: they name the
// strategy already.
func (r Registry) Build(name v1alpha1.StrategyName, args []byte) (Strategy, error) {
	f, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("strategy %q is not implemented", name)
	}
	return f(args)
}
