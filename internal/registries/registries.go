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

// Package registries is the one place that says what a Berth binary can
// run: the in-tree scheduling plugins and rebalance strategies, plus the
// ones the binary adds. The public builder (cmd/berth/app) and
// test/berthtest build a Set here; every other package (the scheduler, the
// webhook, the rebalancer, validate, convert and explain) receives it.
package registries

import (
	"errors"
	"fmt"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/rebalance"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Set is the scheduling plugins profiles may name and the rebalance
// strategies policies may name, in one binary.
type Set struct {
	// Plugins maps plugin names to their factories.
	Plugins runtime.Registry
	// Strategies maps strategy names to their factories.
	Strategies strategies.Registry
}

// Plugin is a scheduling plugin a binary adds to the in-tree ones.
type Plugin struct {
	// Name is the name profiles enable it by.
	Name string
	// Factory builds it from its args.
	Factory framework.PluginFactory
}

// Strategy is a rebalance strategy a binary adds to the in-tree ones.
type Strategy struct {
	// Name is the name RebalancePolicies list it by.
	Name v1alpha1.StrategyName
	// Factory builds it from its args.
	Factory strategies.Factory
}

// InTree returns a new Set of every in-tree plugin and strategy: what the
// stock berth binary runs.
func InTree() Set {
	return Set{
		Plugins:    runtime.Registry(plugins.NewInTreeRegistry()),
		Strategies: rebalance.NewInTreeRegistry(),
	}
}

// Add registers the plugins and strategies in s. A name registered twice,
// in-tree or added, an empty name or a nil factory is an error; s keeps
// what was added before it.
func (s Set) Add(ps []Plugin, ss []Strategy) error {
	for _, p := range ps {
		if p.Name == "" || p.Factory == nil {
			return fmt.Errorf("adding plugin %q: a plugin needs a name and a factory", p.Name)
		}
		if err := s.Plugins.Register(p.Name, p.Factory); err != nil {
			return fmt.Errorf("adding plugin %q: %w", p.Name, err)
		}
	}
	for _, st := range ss {
		if st.Name == "" || st.Factory == nil {
			return fmt.Errorf("adding strategy %q: a strategy needs a name and a factory", st.Name)
		}
		if err := s.Strategies.Register(st.Name, st.Factory); err != nil {
			return fmt.Errorf("adding strategy %q: %w", st.Name, err)
		}
	}
	return nil
}

// Check reports a Set that lacks its plugins or its strategies.
func (s Set) Check() error {
	if s.Plugins == nil || s.Strategies == nil {
		return errNotSet
	}
	return nil
}

var errNotSet = errors.New("no plugin or strategy registry: build one with registries.InTree")
