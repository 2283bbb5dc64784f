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

package metrics

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// seriesCache keeps the series of a metric vector resolved once per label
// set, so an observation skips the vector's label hashing, validation and
// lookup. It is safe for concurrent use: readers load an immutable map
// without locking, and the rare first observation of a label set copies
// it. A series is never dropped, which holds as long as nothing deletes
// series from the vector (nothing here does); the cache holds as many label
// sets as the vector itself.
type seriesCache[K comparable, V any] struct {
	series  atomic.Pointer[map[K]V]
	mu      sync.Mutex // serializes the copies
	resolve func(K) V
}

func newSeriesCache[K comparable, V any](resolve func(K) V) *seriesCache[K, V] {
	c := &seriesCache[K, V]{resolve: resolve}
	c.series.Store(&map[K]V{})
	return c
}

// get returns the series of key, resolving it through the vector the first time.
func (c *seriesCache[K, V]) get(key K) V {
	if v, ok := (*c.series.Load())[key]; ok {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	current := *c.series.Load()
	if v, ok := current[key]; ok {
		return v
	}
	v := c.resolve(key)
	next := make(map[K]V, len(current)+1)
	maps.Copy(next, current)
	next[key] = v
	c.series.Store(&next)
	return v
}

// extensionPointKey is the label set of framework_extension_point_duration_seconds.
type extensionPointKey struct{ extensionPoint, status, profile string }

// pluginKey is the label set of plugin_execution_duration_seconds.
type pluginKey struct{ plugin, extensionPoint, status string }

// attemptKey is the label set of the schedule attempt metrics.
type attemptKey struct{ result, profile string }

// attemptSeries are the two series an attempt is recorded in.
type attemptSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// observerCaches holds the resolved series of every metric observed per pod.
type observerCaches struct {
	extensionPoint *seriesCache[extensionPointKey, prometheus.Observer]
	plugin         *seriesCache[pluginKey, prometheus.Observer]
	attempt        *seriesCache[attemptKey, attemptSeries]
	// sli is keyed by the number of attempts, capped at 15 as the label is.
	sli           *seriesCache[int, prometheus.Observer]
	permitWait    *seriesCache[string, prometheus.Observer]
	incoming      *seriesCache[incomingKey, prometheus.Counter]
	goroutines    *seriesCache[string, prometheus.Gauge]
	eventHandling *seriesCache[string, prometheus.Observer]
}

// incomingKey is the label set of queue_incoming_pods_total.
type incomingKey struct{ queue, event string }

func (m *Metrics) newObserverCaches() observerCaches {
	return observerCaches{
		extensionPoint: newSeriesCache(func(k extensionPointKey) prometheus.Observer {
			return m.extensionPointSeconds.WithLabelValues(k.extensionPoint, k.status, k.profile)
		}),
		plugin: newSeriesCache(func(k pluginKey) prometheus.Observer {
			return m.pluginExecutionSeconds.WithLabelValues(k.plugin, k.extensionPoint, k.status)
		}),
		attempt: newSeriesCache(func(k attemptKey) attemptSeries {
			return attemptSeries{
				count:    m.scheduleAttempts.WithLabelValues(k.result, k.profile),
				duration: m.schedulingAttemptSeconds.WithLabelValues(k.result, k.profile),
			}
		}),
		sli: newSeriesCache(func(attempts int) prometheus.Observer {
			return m.podSchedulingSLISeconds.WithLabelValues(attemptsLabel(attempts))
		}),
		permitWait: newSeriesCache(func(result string) prometheus.Observer {
			return m.permitWaitSeconds.WithLabelValues(result)
		}),
		incoming: newSeriesCache(func(k incomingKey) prometheus.Counter {
			return m.queueIncomingPods.WithLabelValues(k.queue, k.event)
		}),
		goroutines: newSeriesCache(func(operation string) prometheus.Gauge {
			return m.goroutines.WithLabelValues(operation)
		}),
		eventHandling: newSeriesCache(func(event string) prometheus.Observer {
			return m.eventHandlingSeconds.WithLabelValues(event)
		}),
	}
}
