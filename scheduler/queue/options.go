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

package queue

import (
	"time"

	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/metrics"
)

// Defaults used when an option does not override them.
const (
	// DefaultPodInitialBackoff is the first backoff of a pod whose profile is unknown.
	DefaultPodInitialBackoff = time.Second
	// DefaultPodMaxBackoff caps the backoff of a pod whose profile is unknown.
	DefaultPodMaxBackoff = 10 * time.Second
	// DefaultUnschedulableTimeout is how long a pod may wait for an event before it is retried anyway.
	DefaultUnschedulableTimeout = 5 * time.Minute
	// DefaultBackoffFlushInterval is how often pods whose backoff ended move to activeQ.
	DefaultBackoffFlushInterval = time.Second
	// DefaultUnschedulableFlushInterval is how often unschedulable pods are checked against the timeout.
	DefaultUnschedulableFlushInterval = 30 * time.Second
)

// Option configures a PriorityQueue.
type Option func(*config)

type config struct {
	clock                   clock.WithTicker
	initialBackoff          time.Duration
	maxBackoff              time.Duration
	unschedulableTimeout    time.Duration
	backoffFlushEvery       time.Duration
	unschedulableFlushEvery time.Duration
	popFromBackoff          bool
	metrics                 *metrics.Metrics
	groupAdmission          string
}

func defaultConfig() config {
	return config{
		clock:                   clock.RealClock{},
		initialBackoff:          DefaultPodInitialBackoff,
		maxBackoff:              DefaultPodMaxBackoff,
		unschedulableTimeout:    DefaultUnschedulableTimeout,
		backoffFlushEvery:       DefaultBackoffFlushInterval,
		unschedulableFlushEvery: DefaultUnschedulableFlushInterval,
		popFromBackoff:          true,
	}
}

// WithMetrics counts the pods entering each queue in
// scheduler_queue_incoming_pods_total; nil counts nothing.
func WithMetrics(m *metrics.Metrics) Option {
	return func(cfg *config) { cfg.metrics = m }
}

// WithClock sets the clock the queue reads time and builds tickers from.
func WithClock(c clock.WithTicker) Option {
	return func(cfg *config) { cfg.clock = c }
}

// WithDefaultPodBackoff sets the backoff of pods whose profile lookup returns nil.
func WithDefaultPodBackoff(initial, maxBackoff time.Duration) Option {
	return func(cfg *config) {
		cfg.initialBackoff = initial
		cfg.maxBackoff = maxBackoff
	}
}

// WithGroupAdmission names the PreEnqueue plugin that admits a PodGroup's
// members to the queue once: a member tried before is not asked again, as
// kube-scheduler keeps a tried group queued as one entity, while the other
// PreEnqueue plugins (a preemption in flight) still hold it back. Without
// it, a tried member passes PreEnqueue unasked.
func WithGroupAdmission(plugin string) Option {
	return func(cfg *config) { cfg.groupAdmission = plugin }
}

// WithPopFromBackoff says whether Pop takes a pod from backoffQ when activeQ
// is empty, as kube-scheduler does with its SchedulerPopFromBackoffQ feature
// gate (on by default since v1.33). On, which is the default, backoffQ sorts
// the pods whose backoff ends in the same one-second window by activeQ's
// order, a backoff ends with the window it falls in, and the flush of
// backoffQ runs at the start of each window; pods that failed with an error
// rather than a plugin's rejection, and members of PodGroups, scheduling.k8s.io
// (as kube-scheduler v1.37.1 keeps its pod groups) or Berth's, wait out their
// backoff in a heap of their own, which Pop never takes from. Off, a pod in
// backoffQ waits for its backoff to end whatever activeQ holds.
func WithPopFromBackoff(on bool) Option {
	return func(cfg *config) { cfg.popFromBackoff = on }
}
