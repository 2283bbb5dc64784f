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

// Package defaultpreemption implements DefaultPreemption, the PostFilter
// plugin that makes room for a pod that fits nowhere by evicting pods of
// lower priority: it dry-runs the profile's filters on each node without
// those pods, keeps as many of them as still lets the pod fit (sparing
// PodDisruptionBudget-protected pods first), lets the profile's HTTP
// extenders with a preempt verb narrow the candidates, picks the node whose
// victims cost least, deletes the victims (in the background, with a PreEnqueue gate
// holding the pod back meanwhile) and nominates the node for the pod.
package defaultpreemption

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	v1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/metrics"
)

// Name is the plugin's registered name.
const Name = names.DefaultPreemption

// Messages of an ineligible preemptor and of a node without victims, as upstream.
const (
	msgPolicyNever        = "not eligible due to preemptionPolicy=Never."
	msgTerminatingVictims = "not eligible due to a terminating pod on the nominated node."
	msgNoVictims          = "No preemption victims found for incoming pod"
	msgNotHelpful         = "Preemption is not helpful for scheduling"
	msgNoCandidate        = "no candidate node for preemption"
	msgPrefix             = "preemption: "
)

// filterRunner is the part of the framework a dry run needs: the profile's
// PreFilter extensions and its Filter plugins with nominated pods counted.
// The runtime's Framework, which every plugin gets as its handle, has it.
type filterRunner interface {
	RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status
	RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status
	RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status
	RunReservePluginsReserve(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status
	RunReservePluginsUnreserve(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string)
}

// DefaultPreemption is the preemption plugin: PostFilter preempts, PreEnqueue
// holds a preemptor back while its victims are being evicted.
type DefaultPreemption struct {
	handle       framework.Handle
	runner       filterRunner
	percentage   int32
	absolute     int32
	podLister    corelisters.PodLister
	pdbLister    policylisters.PodDisruptionBudgetLister
	rand         func(n int) int
	clock        clock.PassiveClock
	parallelizer framework.Parallelizer
	async        bool
	// inflight is the scheduler's record of background preemptions,
	// shared across profiles and generations; background counts this
	// instance's goroutines, which tests wait for.
	inflight   *framework.PreemptionsInFlight
	background sync.WaitGroup
	// metrics counts the attempts and victims; nil when the handle records none.
	metrics *metrics.Metrics
}

var (
	_ framework.PostFilterPlugin  = (*DefaultPreemption)(nil)
	_ framework.PreEnqueuePlugin  = (*DefaultPreemption)(nil)
	_ framework.EnqueueExtensions = (*DefaultPreemption)(nil)
)

// Option configures the plugin.
type Option func(*DefaultPreemption)

// WithRand sets the source of the random offset at which the dry run starts;
// rnd(n) returns a number in [0, n).
func WithRand(rnd func(n int) int) Option { return func(p *DefaultPreemption) { p.rand = rnd } }

// WithClock sets the clock that stands in for the start time of victims that have not started.
func WithClock(c clock.PassiveClock) Option { return func(p *DefaultPreemption) { p.clock = c } }

// WithAsyncPreemption chooses whether victims are evicted in the background
// (true, the default, as upstream's SchedulerAsyncPreemption feature) or
// within the scheduling cycle.
func WithAsyncPreemption(async bool) Option { return func(p *DefaultPreemption) { p.async = async } }

// NewFactory returns a factory that builds the plugin with the options.
func NewFactory(opts ...Option) framework.PluginFactory {
	return func(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
		a, err := args.Load[DefaultPreemptionArgs]("plugin "+Name, raw)
		if err != nil {
			return nil, err
		}
		return NewWithArgs(a, h, opts...)
	}
}

// New builds the plugin from its raw args; it is the registry's factory.
func New(ctx context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	return NewFactory()(ctx, raw, h)
}

// NewWithArgs builds the plugin from args that args.Load returned. To
// preempt, the handle must also run the profile's filters (the runtime's
// Framework does). Pods and PodDisruptionBudgets are read through the handle's informer factory, which
// registers those informers for the scheduler to start.
func NewWithArgs(a *DefaultPreemptionArgs, h framework.Handle, opts ...Option) (*DefaultPreemption, error) {
	if h == nil {
		return nil, fmt.Errorf("plugin %s needs a framework handle", Name)
	}
	// A handle that cannot run the filters builds (registries are checked
	// with small fakes) but fails every preemption with an error.
	runner, _ := h.(filterRunner)
	p := &DefaultPreemption{
		handle:       h,
		runner:       runner,
		percentage:   *a.MinCandidateNodesPercentage,
		absolute:     *a.MinCandidateNodesAbsolute,
		rand:         rand.IntN,
		clock:        clock.RealClock{},
		parallelizer: h.Parallelizer(),
		async:        true,
		inflight:     framework.NewPreemptionsInFlight(),
		metrics:      metrics.From(h),
	}
	// The scheduler's frameworks share one record across profiles and
	// generations; a handle without one gets a record of the plugin's own.
	if shared, ok := h.(preemptionsSharer); ok && shared.PreemptionsInFlight() != nil {
		p.inflight = shared.PreemptionsInFlight()
	}
	if p.parallelizer == nil {
		p.parallelizer = serial{}
	}
	for _, opt := range opts {
		opt(p)
	}
	if f := h.SharedInformerFactory(); f != nil {
		p.podLister = f.Core().V1().Pods().Lister()
		p.pdbLister = f.Policy().V1().PodDisruptionBudgets().Lister()
	}
	return p, nil
}

// preemptionsSharer is a handle that shares its background preemptions
// with the scheduler's other frameworks; the runtime's Framework is one.
type preemptionsSharer interface {
	PreemptionsInFlight() *framework.PreemptionsInFlight
}

// Name returns the plugin's name.
func (*DefaultPreemption) Name() string { return Name }

// PostFilter looks for a node where evicting lower-priority pods lets the
// pod fit. On success the victims are being deleted and the result
// nominates the node; when no node helps, the result clears the pod's
// nomination and the status explains why per node.
func (p *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, statuses framework.NodeToStatusReader) (*framework.PostFilterResult, *framework.Status) {
	victims := 0
	result, st := p.preempt(ctx, state, pod, statuses, &victims)
	p.metrics.ObservePreemption(victims)
	if msg := st.Message(); msg != "" {
		return result, framework.NewStatus(st.Code(), msgPrefix+msg)
	}
	return result, st
}

// preempt sets victims to the number of pods it chose to evict.
func (p *DefaultPreemption) preempt(ctx context.Context, state *framework.CycleState, pod *v1.Pod, statuses framework.NodeToStatusReader, victims *int) (*framework.PostFilterResult, *framework.Status) {
	logger := klog.FromContext(ctx)
	if p.runner == nil {
		return nil, framework.AsStatus(fmt.Errorf("the handle %T cannot run the profile's filters", p.handle))
	}
	// The queue's copy may be stale: the nomination or the policy may have changed.
	if p.podLister != nil {
		fresh, err := p.podLister.Pods(pod.Namespace).Get(pod.Name)
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("reading the preemptor %s: %w", framework.PodKey(pod), err))
		}
		pod = fresh
	}
	lister := p.handle.SnapshotSharedLister().NodeInfos()
	if ok, msg := p.eligible(pod, lister, statuses.Get(pod.Status.NominatedNodeName)); !ok {
		logger.V(5).Info("Pod may not preempt others", "reason", msg)
		return nil, framework.NewStatus(framework.Unschedulable, msg)
	}
	allNodes, err := lister.List()
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("listing the snapshot's nodes: %w", err))
	}
	if len(allNodes) == 0 {
		return nil, framework.AsStatus(fmt.Errorf("no nodes available"))
	}

	candidates, nodeStatuses, err := p.findCandidates(ctx, state, pod, statuses, lister)
	if err != nil && len(candidates) == 0 {
		return nil, framework.AsStatus(err)
	}
	if len(candidates) == 0 {
		nodeStatuses.SetAbsentNodesStatus(framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNotHelpful))
		fitErr := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: framework.Diagnosis{NodeToStatus: nodeStatuses}}
		logger.V(2).Info("No preemption candidate found; preemption does not help the pod")
		clearing := &framework.NominatingInfo{NominatingMode: framework.ModeOverride}
		return &framework.PostFilterResult{NominatingInfo: clearing}, framework.NewStatus(framework.Unschedulable, fitErr.Error())
	}

	// The extenders with a preempt verb may drop candidates and change victims.
	if candidates, err = p.callExtenders(ctx, pod, candidates, lister); err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(candidates) == 0 {
		logger.V(2).Info("The extenders left no preemption candidate")
		return nil, framework.NewStatus(framework.Unschedulable, msgNoCandidate)
	}

	best := p.pickCandidate(candidates)
	logger.V(2).Info("Chose the node to preempt on", "node", klog.KRef("", best.node), "victims", len(best.victims))
	*victims = len(best.victims)
	if p.async {
		p.prepareAsync(ctx, best, pod)
	} else if err := p.prepare(ctx, best, pod); err != nil {
		return nil, framework.AsStatus(err)
	}
	nominate := &framework.NominatingInfo{NominatedNodeName: best.node, NominatingMode: framework.ModeOverride}
	return &framework.PostFilterResult{NominatingInfo: nominate}, framework.NewStatus(framework.Success,
		fmt.Sprintf("found a potential placement for pod on node %v, preempting %d victims", best.node, len(best.victims)))
}

// eligible reports whether the pod may preempt, and if not, why: not with
// preemptionPolicy Never, and not while lower-priority pods it already
// preempted on its nominated node are still terminating, unless that node
// no longer suits it at all.
func (p *DefaultPreemption) eligible(pod *v1.Pod, lister framework.NodeInfoLister, nominatedStatus *framework.Status) (bool, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever {
		return false, msgPolicyNever
	}
	node := pod.Status.NominatedNodeName
	if node == "" || nominatedStatus.Code() == framework.UnschedulableAndUnresolvable {
		return true, ""
	}
	ni, err := lister.Get(node)
	if err != nil || ni == nil {
		return true, ""
	}
	priority := priorityOf(pod)
	for _, pi := range ni.Pods {
		if p.victimUnitOf(pi.Pod).priority < priority && terminatingByPreemption(pi.Pod) {
			return false, msgTerminatingVictims
		}
	}
	return true, ""
}

// terminatingByPreemption reports whether the pod is being deleted because
// a scheduler preempted it.
func terminatingByPreemption(pod *v1.Pod) bool {
	if pod.DeletionTimestamp == nil {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.DisruptionTarget {
			return c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// numCandidates is how many candidate nodes the dry run looks for: the
// percentage of the potential nodes, at least the absolute number, at most
// all of them.
func (p *DefaultPreemption) numCandidates(numNodes int) int {
	n := numNodes * int(p.percentage) / 100
	n = max(n, int(p.absolute))
	return min(n, numNodes)
}

// priorityOf is the pod's priority, 0 when unset.
func priorityOf(pod *v1.Pod) int32 { return corev1helpers.PodPriority(pod) }

// serial runs the pieces one by one, for handles without a parallelizer.
type serial struct{}

func (serial) Until(ctx context.Context, pieces int, do func(i int), _ string) {
	for i := 0; i < pieces && ctx.Err() == nil; i++ {
		do(i)
	}
}
