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

package runtime

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
)

// pluginMask is a set of the plugins of one extension point, bit i standing
// for the i-th plugin of the Framework's list.
type pluginMask uint64

// maskablePlugins is how many plugins a pluginMask can hold; an extension
// point with more builds its sets afresh in every cycle.
const maskablePlugins = 64

// maxMemoEntries bounds how many distinct masks a memo keeps. Real
// profiles see a handful (the plugins a plain pod skips, those a pod with
// affinity or volumes skips, ...); a memo that is full stops learning new
// ones rather than growing.
const maxMemoEntries = 32

// memo keeps, per mask of skipped plugins, what a cycle that skips them
// derives from them, so that the cycles that skip the same plugins, nearly
// all of them, share one read-only copy instead of building it each time.
// Lookups take no lock: the map is replaced, never changed, once published.
type memo[V any] struct {
	mu      sync.Mutex
	entries atomic.Pointer[map[pluginMask]V]
}

// get returns the value kept for mask, building and keeping it on a miss.
func (m *memo[V]) get(mask pluginMask, build func(pluginMask) V) V {
	if entries := m.entries.Load(); entries != nil {
		if v, ok := (*entries)[mask]; ok {
			return v
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.entries.Load()
	if old != nil {
		if v, ok := (*old)[mask]; ok {
			return v
		}
	}
	v := build(mask)
	if old != nil && len(*old) >= maxMemoEntries {
		return v
	}
	next := make(map[pluginMask]V, 1+lenOf(old))
	if old != nil {
		for k, e := range *old {
			next[k] = e
		}
	}
	next[mask] = v
	m.entries.Store(&next)
	return v
}

func lenOf[V any](m *map[pluginMask]V) int {
	if m == nil {
		return 0
	}
	return len(*m)
}

// skipMemos are a Framework's memos of what skipped plugins imply: the
// sets of skipped PreFilter and PreScore plugins stored in a CycleState and
// the Filter plugins a cycle runs. Their zero value is ready for use.
type skipMemos struct {
	// filterSkips is keyed by the PreFilter plugins that returned Skip.
	filterSkips memo[sets.Set[string]]
	// scoreSkips is keyed by the PreScore plugins that returned Skip.
	scoreSkips memo[sets.Set[string]]
	// activeFilters is keyed by the Filter plugins a cycle skips.
	activeFilters memo[[]framework.FilterPlugin]
}

// namesOf returns a new set of the names of the plugins of list in mask.
func namesOf[P framework.Plugin](list []P, mask pluginMask) sets.Set[string] {
	out := sets.New[string]()
	for i, pl := range list {
		if mask&(1<<i) != 0 {
			out.Insert(pl.Name())
		}
	}
	return out
}

// skipSet returns the set of names of the plugins of list in mask, shared
// through m with other cycles that skip the same plugins: it must not be
// changed. A list too long for a mask gets a fresh set of names instead,
// those in overflow.
func skipSet[P framework.Plugin](m *memo[sets.Set[string]], list []P, mask pluginMask, overflow []string) sets.Set[string] {
	if len(list) > maskablePlugins {
		return sets.New(overflow...)
	}
	return m.get(mask, func(mask pluginMask) sets.Set[string] { return namesOf(list, mask) })
}
