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
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/dra"
	"github.com/berth-io/berth/scheduler/framework/extender"
	"github.com/berth-io/berth/scheduler/metrics"
)

// Option configures NewFramework.
type Option func(*options)

type options struct {
	clientSet       kubernetes.Interface
	informerFactory informers.SharedInformerFactory
	eventRecorder   events.EventRecorder
	nominator       framework.PodNominator
	snapshot        framework.SharedLister
	parallelism     int
	metrics         *metrics.Metrics
	clock           clock.WithDelayedExecution
	preemptions     *framework.PreemptionsInFlight
	pluginState     *framework.SharedPluginState
	waitingPods     *WaitingPods
	defaultPlugins  *v1alpha1.Plugins
	rnd             func(n int) int
	weightOverrides map[string]WeightOverride
	workloads       framework.WorkloadLister
	activator       framework.PodActivator
	extenderOptions []extender.Option
	bindingPoster   framework.BindingPoster
	allocated       *dra.AllocatedDevices
	slices          dra.SliceSource
	nodeUsage       framework.UsageProvider
	batching        bool
}

// WithOpportunisticBatching sets whether profiles that leave
// opportunisticBatching unset batch pods (see Framework.Batch); off
// unless set.
func WithOpportunisticBatching(on bool) Option { return func(o *options) { o.batching = on } }

// WithBindingPoster sets what the Handle's PostBinding creates Bindings
// with; by default a poster on the client set (apiwrite.NewBindingPoster).
func WithBindingPoster(p framework.BindingPoster) Option {
	return func(o *options) { o.bindingPoster = p }
}

// WithDeviceState shares the scheduler's index of allocated devices and its
// view of ResourceSlices with DynamicResources (the Handle's
// AllocatedDevices and ResourceSlices); without it the plugin lists claims
// and slices itself.
func WithDeviceState(allocated *dra.AllocatedDevices, slices dra.SliceSource) Option {
	return func(o *options) { o.allocated, o.slices = allocated, slices }
}

// WithNodeUsage shares the scheduler's usage stores with load-aware
// plugins (the Handle's NodeUsage); without it they estimate every node's
// use from its pods.
func WithNodeUsage(p framework.UsageProvider) Option {
	return func(o *options) { o.nodeUsage = p }
}

// WithExtenderOptions passes options to the clients of the profile's
// extenders, for example extender.WithSecrets.
func WithExtenderOptions(opts ...extender.Option) Option {
	return func(o *options) { o.extenderOptions = append(o.extenderOptions, opts...) }
}

// WithClientSet sets the Kubernetes client plugins use.
func WithClientSet(c kubernetes.Interface) Option { return func(o *options) { o.clientSet = c } }

// WithInformerFactory sets the informer factory plugins use.
func WithInformerFactory(f informers.SharedInformerFactory) Option {
	return func(o *options) { o.informerFactory = f }
}

// WithEventRecorder sets the recorder plugins use for events.
func WithEventRecorder(r events.EventRecorder) Option {
	return func(o *options) { o.eventRecorder = r }
}

// WithPodNominator sets the nominator behind the framework's PodNominator methods.
func WithPodNominator(n framework.PodNominator) Option { return func(o *options) { o.nominator = n } }

// WithSnapshotSharedLister sets the snapshot plugins read during a cycle.
func WithSnapshotSharedLister(l framework.SharedLister) Option {
	return func(o *options) { o.snapshot = l }
}

// WithParallelism sets how many goroutines Filter and Score use (default 16).
func WithParallelism(n int) Option { return func(o *options) { o.parallelism = n } }

// WithMetrics sets the metrics to record into; nil records nothing.
func WithMetrics(m *metrics.Metrics) Option { return func(o *options) { o.metrics = m } }

// WithClock sets the clock for durations and Permit timeouts. A clock without
// AfterFunc is only used for durations.
func WithClock(c clock.Clock) Option {
	return func(o *options) {
		if d, ok := c.(clock.WithDelayedExecution); ok {
			o.clock = d
			return
		}
		o.clock = timerClock{Clock: c}
	}
}

// WithWaitingPods shares a WaitingPods between frameworks; by default each
// framework has its own, on the framework's clock.
func WithWaitingPods(w *WaitingPods) Option { return func(o *options) { o.waitingPods = w } }

// WithPreemptionsInFlight shares the record of background preemptions
// between frameworks; by default each framework has its own.
func WithPreemptionsInFlight(p *framework.PreemptionsInFlight) Option {
	return func(o *options) { o.preemptions = p }
}

// WithSharedPluginState shares the state plugins keep for the whole
// scheduler between frameworks; by default each framework has its own.
func WithSharedPluginState(s *framework.SharedPluginState) Option {
	return func(o *options) { o.pluginState = s }
}

// WithDefaultPlugins replaces the default plugin set profiles start from.
func WithDefaultPlugins(p *v1alpha1.Plugins) Option { return func(o *options) { o.defaultPlugins = p } }

// WithRand sets the source of tie-breaking: rnd(n) returns a number in [0, n).
func WithRand(rnd func(n int) int) Option { return func(o *options) { o.rnd = rnd } }

// timerClock adds AfterFunc to a clock that only has NewTimer.
type timerClock struct {
	clock.Clock
}

// AfterFunc runs f in its own goroutine once d has passed on the clock.
func (c timerClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &stoppableTimer{Timer: c.NewTimer(d), stop: make(chan struct{})}
	go func() {
		select {
		case <-t.C():
			f()
		case <-t.stop:
		}
	}()
	return t
}

// stoppableTimer ends the AfterFunc goroutine when stopped.
type stoppableTimer struct {
	clock.Timer
	once sync.Once
	stop chan struct{}
}

// Stop stops the timer and its goroutine.
func (t *stoppableTimer) Stop() bool {
	t.once.Do(func() { close(t.stop) })
	return t.Timer.Stop()
}

// WithWorkloads gives plugins the scheduler's view of PodGroups, Kubernetes' own and Berth's.
func WithWorkloads(l framework.WorkloadLister) Option { return func(o *options) { o.workloads = l } }

// WithActivator lets plugins move pending pods straight to the active queue.
func WithActivator(a framework.PodActivator) Option { return func(o *options) { o.activator = a } }
