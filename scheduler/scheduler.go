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

// Package scheduler runs Berth's scheduling loop: informers feed one cache
// and one queue shared by every live profile; a serial scheduling cycle picks
// a node for one pod at a time and an asynchronous, bounded binding cycle
// binds it through the pods/binding subresource.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/apiwrite"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/dra"
	"github.com/berth-io/berth/scheduler/framework/extender"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/foreign"
	"github.com/berth-io/berth/scheduler/internal/shadowrun"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/profile"
	"github.com/berth-io/berth/scheduler/queue"
	"github.com/berth-io/berth/scheduler/usage"
	"github.com/berth-io/berth/scheduler/workload"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// Defaults of the scheduler's options.
const (
	// DefaultParallelism is how many nodes are filtered and scored at once.
	DefaultParallelism = 16
	// DefaultBindingConcurrency bounds the binding cycles in flight.
	DefaultBindingConcurrency = 64
)

// Scheduler places pending pods on nodes with the live profile named by each
// pod's spec.schedulerName.
type Scheduler struct {
	client          kubernetes.Interface
	informerFactory informers.SharedInformerFactory
	// informersStarted is set by the first of RunInformers and Start.
	informersStarted atomic.Bool
	// loopStarted is set once Start begins scheduling; EvaluatePod refuses then.
	loopStarted atomic.Bool
	// handlers are the registrations of the pod and node handlers that
	// feed the cache and the queue.
	handlers    []cache.ResourceEventHandlerRegistration
	podLister   corelisters.PodLister
	broadcaster events.EventBroadcaster
	registry    runtime.Registry
	metrics     *metrics.Metrics
	clock       clock.WithTickerAndDelayedExecution
	rand        func(n int) int
	parallelism int
	batching    bool

	cache    *schedcache.Cache
	queue    *queue.PriorityQueue
	snapshot *schedcache.Snapshot
	waiting  *runtime.WaitingPods
	// preemptions are the background preemptions of every profile and
	// generation, so a profile swap does not forget one in flight.
	preemptions *framework.PreemptionsInFlight
	// pluginState is what plugins keep across profiles and generations
	// (DynamicResources' allocations in flight).
	pluginState *framework.SharedPluginState
	// allocated indexes the devices allocated claims hold, for DynamicResources.
	allocated *dra.AllocatedDevices
	// bindingPoster creates the Bindings of every profile's DefaultBinder.
	bindingPoster *apiwrite.BindingPoster
	// workloads are the PodGroups: Kubernetes' own (scheduling.k8s.io/v1beta1),
	// served when the apiserver serves them, and Berth's, served when
	// WithPodGroupClient gave a client.
	workloads *workload.Groups
	profiles  *profile.Map
	parked    *profile.Parked
	// shadows are the shadow profiles and their worker.
	shadows *shadowrun.Runner
	// foreign notices pods of the served schedulerNames that another
	// scheduler binds.
	foreign *foreign.Watch
	// secrets are the Secrets extenders read their TLS material from.
	secrets *extender.NamespaceSecrets
	// usage keeps one store per source of what nodes really use, for the
	// load-aware plugins of every profile and for the rebalancer.
	usage *usage.Registry
	// usageMu orders retainUsage's reads of the profiles with its Retain.
	usageMu sync.Mutex

	// routeMu orders the routing of unassigned pods (queue or parked) against
	// profile installs and removals, so that no pod is parked after its
	// profile appeared.
	routeMu sync.Mutex

	// nextStartNodeIndex is where the next cycle's search for feasible nodes starts.
	nextStartNodeIndex int

	bindingSlots chan struct{}
	bindings     sync.WaitGroup
	// groupWrites orders the PodGroup condition writes of the group cycles.
	groupWrites groupWrites
	// statusPatcher sends the pods' PodScheduled patches.
	statusPatcher *apiwrite.StatusPatcher
	// bindingPool runs the binding cycles on reused goroutines.
	bindingPool *bindingPool
	// scheduledEvents writes the Scheduled event of every bound pod; nil
	// when those are turned off.
	scheduledEvents *apiwrite.ScheduledEventWriter
	// leaseCheck says whether this replica may write as the leader; nil
	// without leader election.
	leaseCheck func() error
	// slices is the ResourceSlices as DynamicResources sees them, with
	// DeviceTaintRules applied when WithDeviceTaintRules asked for them.
	slices *tracker.Tracker
}

// Option configures a Scheduler.
type Option func(*options)

type options struct {
	registry           runtime.Registry
	metrics            *metrics.Metrics
	clock              clock.WithTickerAndDelayedExecution
	seed               uint64
	parallelism        int
	batching           bool
	bindingConcurrency int
	queueOptions       []queue.Option
	podGroupClient     rest.Interface
	compositeGroups    bool
	scheduledEvents    bool
	leaseCheck         func() error
	deviceTaintRules   bool
	secretsNamespace   string
	usageOptions       []usage.Option
}

// WithSecretsNamespace is the namespace whose Secrets extenders may name in
// tlsConfig.secretRef: Berth's own, where its RBAC lets it read them. Unset,
// Secrets are read in every namespace.
func WithSecretsNamespace(ns string) Option { return func(o *options) { o.secretsNamespace = ns } }

// WithRegistry sets the plugins profiles may name; New requires it. Berth's
// binaries pass the in-tree plugins and their own (internal/registries).
func WithRegistry(r runtime.Registry) Option { return func(o *options) { o.registry = r } }

// WithMetrics records the scheduler's Prometheus metrics.
func WithMetrics(m *metrics.Metrics) Option { return func(o *options) { o.metrics = m } }

// WithClock injects the clock used for backoff and timings.
func WithClock(c clock.WithTickerAndDelayedExecution) Option { return func(o *options) { o.clock = c } }

// WithSeed fixes the seed of the random tie-breaking between equal nodes.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithParallelism sets how many nodes are filtered and scored at once.
func WithParallelism(n int) Option { return func(o *options) { o.parallelism = n } }

// WithOpportunisticBatching sets whether profiles that leave
// opportunisticBatching unset batch pods with equal signatures, as
// kube-scheduler's OpportunisticBatching feature does; on by default, as
// upstream.
func WithOpportunisticBatching(on bool) Option { return func(o *options) { o.batching = on } }

// WithBindingConcurrency bounds the binding cycles in flight.
func WithBindingConcurrency(n int) Option { return func(o *options) { o.bindingConcurrency = n } }

// WithScheduledEvents sets whether a Scheduled event is recorded for every
// pod bound, as kube-scheduler does (the default). Without them the
// apiserver has one write less per pod; FailedScheduling and the other
// events are recorded either way.
func WithScheduledEvents(record bool) Option { return func(o *options) { o.scheduledEvents = record } }

// WithLeaseCheck pauses the scheduling loop while check fails: it says
// whether this replica may still write as the leader (see
// leasefence.Lock.Check). A leader resumed after its lease ran out then
// takes no pod from the queue, instead of failing every pod at its bind.
func WithLeaseCheck(check func() error) Option { return func(o *options) { o.leaseCheck = check } }

// WithQueueOptions passes options to the scheduling queue.
func WithQueueOptions(opts ...queue.Option) Option {
	return func(o *options) { o.queueOptions = append(o.queueOptions, opts...) }
}

// WithPodGroupClient watches Berth's own PodGroups (scheduling.berth.io),
// and writes their status, through c (see workload.NewBerthClient); without
// it pods that join one of them stay pending.
func WithPodGroupClient(c rest.Interface) Option {
	return func(o *options) { o.podGroupClient = c }
}

// WithNodeUsageOptions configures the stores of what nodes really use, for
// example with the metrics.k8s.io client (usage.WithMetricsClient) that
// metrics-server sources read through.
func WithNodeUsageOptions(opts ...usage.Option) Option {
	return func(o *options) { o.usageOptions = append(o.usageOptions, opts...) }
}

// WithCompositePodGroups follows PodGroups' spec.parentCompositePodGroupName
// to the CompositePodGroups (scheduling.k8s.io/v1alpha3) above them when the
// apiserver serves those, as kube-scheduler does with its CompositePodGroup
// gate on: a member of a PodGroup whose hierarchy has no root yet waits, and
// the hierarchy is held back until it meets its quorum. Off, a parent is
// ignored, as kube-scheduler ignores it with the gate off. A hierarchy is
// scheduled in one cycle over all its PodGroups (scheduleHierarchy).
func WithCompositePodGroups(on bool) Option { return func(o *options) { o.compositeGroups = on } }

// New returns a Scheduler that watches pods and nodes through client. It
// serves no scheduler name until profiles are installed with SetProfile.
func New(ctx context.Context, client kubernetes.Interface, opts ...Option) (*Scheduler, error) {
	o := options{
		clock:              clock.RealClock{},
		seed:               uint64(time.Now().UnixNano()),
		parallelism:        DefaultParallelism,
		batching:           true,
		bindingConcurrency: DefaultBindingConcurrency,
		scheduledEvents:    true,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.registry == nil {
		return nil, errors.New("no plugin registry: pass WithRegistry")
	}
	if o.parallelism < 1 || o.bindingConcurrency < 1 {
		return nil, fmt.Errorf("parallelism (%d) and binding concurrency (%d) must be positive", o.parallelism, o.bindingConcurrency)
	}

	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(newInformerTransform()))
	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	var randMu sync.Mutex
	s := &Scheduler{
		client:          client,
		informerFactory: factory,
		podLister:       factory.Core().V1().Pods().Lister(),
		broadcaster:     events.NewBroadcaster(apiwrite.NewEventSink(client)),
		registry:        o.registry,
		metrics:         o.metrics,
		clock:           o.clock,
		rand: func(n int) int {
			randMu.Lock()
			defer randMu.Unlock()
			return rng.IntN(n)
		},
		parallelism:  o.parallelism,
		batching:     o.batching,
		cache:        schedcache.New(ctx, schedcache.WithClock(o.clock)),
		snapshot:     schedcache.NewEmptySnapshot(),
		waiting:      runtime.NewWaitingPods(runtime.WithWaitingPodsClock(o.clock)),
		preemptions:  framework.NewPreemptionsInFlight(),
		pluginState:  framework.NewSharedPluginState(),
		allocated:    dra.NewAllocatedDevices(),
		profiles:     profile.NewMap(),
		parked:       profile.NewParked(),
		foreign:      foreign.New(client, o.clock, o.metrics),
		bindingSlots: make(chan struct{}, o.bindingConcurrency),
		bindingPool:  newBindingPool(o.clock, defaultBindingIdle),
		leaseCheck:   o.leaseCheck,
	}
	s.bindingPoster = apiwrite.NewBindingPoster(client)
	s.secrets = extender.NewNamespaceSecrets(s.informerFactory, o.secretsNamespace)
	s.usage = usage.NewRegistry(append([]usage.Option{
		usage.WithContext(ctx),
		usage.WithClock(o.clock),
		usage.WithAllocatable(usage.AllocatableFromLister(factory.Core().V1().Nodes().Lister())),
		usage.WithSecretGetter(s.usageSecret),
	}, o.usageOptions...)...)
	s.statusPatcher = apiwrite.NewStatusPatcher(client, &s.bindings)
	if o.scheduledEvents {
		s.scheduledEvents = apiwrite.NewScheduledEventWriter(client, o.clock, o.metrics)
	}
	podInformer := s.podInformer()
	if err := podInformer.AddIndexers(cache.Indexers{workload.MemberIndex: workload.IndexMembers}); err != nil {
		return nil, fmt.Errorf("indexing pods by PodGroup: %w", err)
	}
	native, err := workload.Served(client.Discovery())
	if err != nil {
		return nil, err
	}
	var workloadOpts []workload.Option
	if native {
		workloadOpts = append(workloadOpts, workload.WithInformerFactory(factory))
		klog.FromContext(ctx).Info("The apiserver serves scheduling.k8s.io/v1beta1 PodGroups; pods that join one through spec.schedulingGroup are scheduled with their group")
		if o.compositeGroups {
			composite, err := workload.CompositeServed(client.Discovery())
			if err != nil {
				return nil, err
			}
			if composite {
				workloadOpts = append(workloadOpts, workload.WithCompositeInformerFactory(factory))
				klog.FromContext(ctx).Info("The apiserver serves scheduling.k8s.io/v1alpha3 CompositePodGroups; PodGroups' parents are followed")
			} else {
				klog.FromContext(ctx).Info("The apiserver does not serve scheduling.k8s.io/v1alpha3 CompositePodGroups (turn on its CompositePodGroup feature gate and that API version to use them); PodGroups' parents are ignored")
			}
		}
	} else {
		unread, err := workload.UnreadVersions(client.Discovery())
		if err != nil {
			return nil, err
		}
		if len(unread) > 0 {
			workloadOpts = append(workloadOpts, workload.WithUnreadVersions(unread))
			klog.FromContext(ctx).Info("The apiserver serves PodGroups only in versions this scheduler does not read; pods that join one through spec.schedulingGroup are held, not scheduled without their group, until a Berth that reads them is installed",
				"read", workload.GroupVersion.String(), "served", unread)
		} else {
			klog.FromContext(ctx).Info("The apiserver does not serve scheduling.k8s.io/v1beta1 PodGroups (turn on its GenericWorkload feature gate and that API version to use them); gangs are served through Berth's own PodGroups")
		}
		if s.metrics != nil {
			s.metrics.SetUnreadWorkloadAPIs(unread)
		}
	}
	if o.podGroupClient != nil {
		workloadOpts = append(workloadOpts, workload.WithBerthClient(o.podGroupClient), workload.WithPriorityClasses(factory))
	}
	if s.metrics != nil {
		s.metrics.SetNativeWorkloadAPI(native)
	}
	s.workloads = workload.New(podInformer.GetIndexer(), s.cache.NodeOf, workloadOpts...)
	if err := s.workloads.Err(); err != nil {
		return nil, err
	}
	s.shadows = shadowrun.New(s.clock, s.rand, s.metrics, s.workloads)

	slices, err := dra.StartSliceTracker(ctx, s.informerFactory, o.deviceTaintRules)
	if err != nil {
		return nil, err
	}
	s.slices = slices

	queueOpts := append([]queue.Option{queue.WithClock(o.clock), queue.WithMetrics(o.metrics), queue.WithGroupAdmission(names.GangScheduling)}, o.queueOptions...)
	// Every profile shares one queue, so every profile sorts it with
	// PrioritySort (framework.PriorityLess), as upstream requires of its
	// profiles.
	s.queue = queue.New(framework.PriorityLess, s.queueHooks, queueOpts...)
	if err := s.addEventHandlers(); err != nil {
		return nil, err
	}
	return s, nil
}

// queueHooks gives the queue the live framework of a scheduler name.
func (s *Scheduler) queueHooks(schedulerName string) queue.ProfileHooks {
	if p := s.profiles.Get(schedulerName); p != nil {
		return p.Framework
	}
	return nil
}

// CompileProfile builds a framework from a profile spec without installing
// it; the controllers use it to validate and the webhook to reject bad specs.
// opts follow the scheduler's own framework options, for example
// runtime.WithScoreWeights.
func (s *Scheduler) CompileProfile(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error) {
	own := []runtime.Option{
		runtime.WithClientSet(s.client),
		runtime.WithInformerFactory(s.informerFactory),
		runtime.WithEventRecorder(s.broadcaster.NewRecorder(scheme.Scheme, schedulerName)),
		runtime.WithPodNominator(s.queue),
		runtime.WithSnapshotSharedLister(s.snapshot),
		runtime.WithParallelism(s.parallelism),
		runtime.WithOpportunisticBatching(s.batching),
		runtime.WithMetrics(s.metrics),
		runtime.WithClock(s.clock),
		runtime.WithWaitingPods(s.waiting),
		runtime.WithPreemptionsInFlight(s.preemptions),
		runtime.WithSharedPluginState(s.pluginState),
		runtime.WithRand(s.rand),
		runtime.WithWorkloads(s.workloads),
		runtime.WithActivator(s.queue),
		runtime.WithExtenderOptions(extender.WithSecrets(s.secrets)),
		runtime.WithBindingPoster(s.bindingPoster),
		// DynamicResources reads the allocated devices from the index the
		// ResourceClaim handler keeps (addClusterObjectHandlers), and the
		// slices from the tracker the ResourceSlice events come from.
		runtime.WithDeviceState(s.allocated, s.slices),
		runtime.WithNodeUsage(s.usage),
	}
	if spec != nil {
		if err := s.secrets.Check(spec); err != nil {
			return nil, fmt.Errorf("profile %q: %w", schedulerName, err)
		}
	}
	return runtime.NewFramework(ctx, s.registry, schedulerName, spec, append(own, opts...)...)
}

// NodeUsage returns the stores of what nodes really use that the
// scheduler's load-aware plugins read; a RebalancePolicy reading the same
// source reads the same store.
func (s *Scheduler) NodeUsage() *usage.Registry { return s.usage }

// retainUsage polls the usage sources that the live and shadow profiles
// read, and stops polling those that no profile reads any more.
func (s *Scheduler) retainUsage() {
	s.usageMu.Lock()
	defer s.usageMu.Unlock()
	var srcs []usage.Source
	add := func(fwk *runtime.Framework) {
		for _, pu := range fwk.UsageSources() {
			srcs = append(srcs, pu.Source)
		}
	}
	for _, name := range s.profiles.Names() {
		if p := s.profiles.Get(name); p != nil {
			add(p.Framework)
		}
	}
	for _, p := range s.shadows.Profiles() {
		add(p.Framework)
	}
	s.usage.Retain(srcs)
}

// UsageState returns when the store of src was last read and why its last
// read failed, nil once one succeeded after.
func (s *Scheduler) UsageState(src usage.Source) (time.Time, error) {
	st := s.usage.Store(src)
	return st.LastRead(), st.Err()
}

// usageSecret reads a key of a Secret, in the namespace Berth reads Secrets
// in, for a Prometheus usage source's token or CA.
func (s *Scheduler) usageSecret(_ context.Context, ref usage.SecretKeyRef) ([]byte, error) {
	data, _, ok := s.secrets.Secret(ref.Namespace, ref.Name)
	if !ok {
		return nil, fmt.Errorf("the Secret %s/%s is not found, or is outside the namespace Berth reads Secrets in", ref.Namespace, ref.Name)
	}
	v, ok := data[ref.Key]
	if !ok {
		return nil, fmt.Errorf("the Secret %s/%s has no key %q", ref.Namespace, ref.Name, ref.Key)
	}
	return v, nil
}

// Cache returns the scheduler's cache, for tests that compare it with the apiserver.
func (s *Scheduler) Cache() *schedcache.Cache { return s.cache }

// leasePoll is how often a paused loop looks whether the lease is held again.
const leasePoll = 100 * time.Millisecond

// awaitLease returns true at once while the lease check passes. Otherwise
// it waits until the check passes again or ctx ends, and returns false if
// ctx ended: the manager stops a replica that lost its lease, and until it
// does, the loop takes no pod whose binding the fence would refuse.
func (s *Scheduler) awaitLease(ctx context.Context) bool {
	if s.leaseCheck == nil {
		return true
	}
	err := s.leaseCheck()
	if err == nil {
		return true
	}
	logger := klog.FromContext(ctx)
	logger.Info("Scheduling paused: this replica may no longer lead", "reason", err.Error())
	for {
		select {
		case <-ctx.Done():
			return false
		case <-s.clock.After(leasePoll):
		}
		if s.leaseCheck() == nil {
			logger.Info("Scheduling resumed: the lease is held again")
			return true
		}
	}
}

// RunInformers starts the scheduler's informers and runs them until ctx
// ends, without scheduling. A standby replica runs it so that its cache,
// queue and parked pods are warm when it comes to lead, as kube-scheduler's
// standbys are: a failover then costs the Lease, not a LIST of every pod.
// Once it has run, Start uses these informers instead of its own.
func (s *Scheduler) RunInformers(ctx context.Context) error {
	if !s.startInformers(ctx) {
		return nil
	}
	defer s.informerFactory.Shutdown()
	if err := s.waitForInformers(ctx); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Scheduler's informers synced")
	<-ctx.Done()
	return nil
}

// startInformers starts the informers, running until ctx ends, unless they
// were started already; it reports whether this call started them.
func (s *Scheduler) startInformers(ctx context.Context) bool {
	if !s.informersStarted.CompareAndSwap(false, true) {
		return false
	}
	s.informerFactory.Start(ctx.Done())
	if pg := s.workloads.BerthInformer(); pg != nil {
		go pg.RunWithContext(ctx)
	}
	return true
}

// waitForInformers waits until the informers have synced; it returns nil
// when ctx ends first.
func (s *Scheduler) waitForInformers(ctx context.Context) error {
	for informerType, ok := range s.informerFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("informer cache for %v did not sync", informerType)
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), s.alsoSynced()...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("the PodGroup informer or the pod and node handlers did not sync")
	}
	return nil
}

// alsoSynced returns what must have synced beyond the factory's
// informers: Berth's PodGroup informer, when it runs, and each handler
// registration.
func (s *Scheduler) alsoSynced() []cache.InformerSynced {
	out := make([]cache.InformerSynced, 0, len(s.handlers)+1)
	if pg := s.workloads.BerthInformer(); pg != nil {
		out = append(out, pg.HasSynced)
	}
	for _, h := range s.handlers {
		out = append(out, h.HasSynced)
	}
	return out
}

// WaitForCacheSync blocks until the informers have synced or ctx is done,
// and reports whether they synced.
func (s *Scheduler) WaitForCacheSync(ctx context.Context) bool {
	return s.waitForInformers(ctx) == nil && ctx.Err() == nil
}

// reportPendingPods keeps the gauges read from the queue and the cache
// (pending_pods, unschedulable_pods, cache_size) current.
func (s *Scheduler) reportPendingPods(ctx context.Context) {
	if s.metrics == nil {
		return
	}
	ticker := s.clock.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		s.reportGauges()
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
	}
}

// reportGauges sets the gauges read from the queue and the cache once.
func (s *Scheduler) reportGauges() {
	stats := s.queue.Stats()
	s.metrics.SetPendingPods(metrics.QueueActive, stats.Active)
	s.metrics.SetPendingPods(metrics.QueueBackoff, stats.Backoff)
	s.metrics.SetPendingPods(metrics.QueueUnschedulable, stats.Unschedulable)
	s.metrics.SetPendingPods(metrics.QueueGated, stats.Gated)
	s.metrics.SetPendingPods("parked", s.parked.Len())
	s.metrics.SetUnschedulablePods(s.queue.UnschedulablePods())
	s.metrics.SetCacheSize(s.cache.Sizes())
}

// stripManagedFields drops what the scheduler never reads from informer objects.
func stripManagedFields(obj any) any {
	if accessor, err := meta.Accessor(obj); err == nil {
		accessor.SetManagedFields(nil)
	}
	return obj
}
