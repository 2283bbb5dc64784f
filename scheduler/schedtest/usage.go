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

package schedtest

import (
	"maps"
	"time"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/usage"
)

// UsageStore is a usage.Store whose nodes a test sets.
type UsageStore struct {
	// Src is what Source returns.
	Src usage.Source
	// Nodes are the nodes' usage, with their freshness.
	Nodes map[string]NodeUsage
	// ReadErr is what Err returns.
	ReadErr error
	// Read is what LastRead returns.
	Read time.Time
}

// NodeUsage is a node's usage in a UsageStore.
type NodeUsage struct {
	usage.NodeUsage
	Freshness usage.Freshness
}

var _ usage.Store = (*UsageStore)(nil)

// NewUsageStore returns an empty store.
func NewUsageStore() *UsageStore { return &UsageStore{Nodes: map[string]NodeUsage{}} }

// Set gives the node fresh usage sampled at t: pairs of resource and
// fraction, e.g. usage.CPU, 0.8.
func (s *UsageStore) Set(node string, t time.Time, f usage.Freshness, pairs ...any) *UsageStore {
	nu := NodeUsage{NodeUsage: usage.NodeUsage{Usage: map[usage.Resource]usage.Stat{}, SampledAt: t}, Freshness: f}
	for i := 0; i+1 < len(pairs); i += 2 {
		res := pairs[i].(usage.Resource)
		switch v := pairs[i+1].(type) {
		case float64:
			nu.Usage[res] = usage.Stat{Average: v, Latest: v}
		case usage.Stat:
			nu.Usage[res] = v
		default:
			panic("schedtest: usage values are float64 or usage.Stat")
		}
	}
	s.Nodes[node] = nu
	return s
}

// Source returns Src.
func (s *UsageStore) Source() usage.Source { return s.Src }

// Node returns the node's usage as set, Missing when it was not.
func (s *UsageStore) Node(name string) (usage.NodeUsage, usage.Freshness) {
	nu, ok := s.Nodes[name]
	if !ok {
		return usage.NodeUsage{}, usage.Missing
	}
	return usage.NodeUsage{Usage: maps.Clone(nu.Usage), SampledAt: nu.SampledAt}, nu.Freshness
}

// View returns the store itself: its freshness is set, not timed.
func (s *UsageStore) View() usage.View { return s }

// Err returns ReadErr.
func (s *UsageStore) Err() error { return s.ReadErr }

// LastRead returns Read.
func (s *UsageStore) LastRead() time.Time { return s.Read }

// UsageProvider gives Store for every source and records what was asked.
type UsageProvider struct {
	// Given is returned for every source.
	Given usage.Store
	// Asked are the sources asked for, in order.
	Asked []usage.Source
}

var _ framework.UsageProvider = (*UsageProvider)(nil)

// Store records src and returns Given.
func (p *UsageProvider) Store(src usage.Source) usage.Store {
	p.Asked = append(p.Asked, src)
	return p.Given
}
