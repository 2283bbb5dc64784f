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
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/dra"
	"github.com/berth-io/berth/scheduler/framework/extender"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/usage"
)

// Default Permit-independent backoffs of a profile, as upstream.
const (
	defaultPodInitialBackoff = 1 * time.Second
	defaultPodMaxBackoff     = 10 * time.Second
)

// Framework runs the plugins of one profile. It implements framework.Handle.
// Its plugin lists are fixed at construction, so it is safe for concurrent use.
type Framework struct {
	profileName              string
	percentageOfNodesToScore *int32
	podInitialBackoff        time.Duration
	podMaxBackoff            time.Duration

	clientSet       kubernetes.Interface
	informerFactory informers.SharedInformerFactory
	eventRecorder   events.EventRecorder
	nominator       framework.PodNominator
	snapshot        framework.SharedLister
	parallelizer    *Parallelizer
	metrics         *metrics.Metrics
	clock           clock.WithDelayedExecution
	waitingPods     *WaitingPods
	preemptions     *framework.PreemptionsInFlight
	pluginState     *framework.SharedPluginState
	rnd             func(n int) int
	workloads       framework.WorkloadLister
	activator       framework.PodActivator
	bindingPoster   framework.BindingPoster
	allocated       *dra.AllocatedDevices
	slices          dra.SliceSource
	nodeUsage       framework.UsageProvider

	preEnqueue []framework.PreEnqueuePlugin
	queueSort  []framework.QueueSortPlugin
	preFilter  []framework.PreFilterPlugin
	filter     []framework.FilterPlugin
	postFilter []framework.PostFilterPlugin
	preScore   []framework.PreScorePlugin
	score      []framework.ScorePlugin
	reserve    []framework.ReservePlugin
	permit     []framework.PermitPlugin
	preBind    []framework.PreBindPlugin
	bind       []framework.BindPlugin
	postBind   []framework.PostBindPlugin

	placementGenerate  []framework.PlacementGeneratePlugin
	placementScore     []framework.PlacementScorePlugin
	podGroupPostFilter []framework.PodGroupPostFilterPlugin
	// placementFeasible are the enabled plugins that judge a PodGroup's
	// progress; no extension point names them, as upstream.
	placementFeasible []framework.PlacementFeasiblePlugin
	// placementScoreWeights are the weights of placementScore, index for index.
	placementScoreWeights []int64

	// extenders are the profile's HTTP extenders, in their configured order.
	extenders []*extender.Extender
	// extenderOptions configure the extenders' clients.
	extenderOptions []extender.Option

	// scoreWeights are the weights of score, index for index.
	scoreWeights []int64

	// skips memoizes, per set of skipped plugins, what the cycles derive from it.
	skips skipMemos

	// filtering identifies what the profile's PreFilter and Filter do; see FiltersLike.
	filtering string

	queueingHints   map[string][]framework.ClusterEventWithHint
	skippedDefaults []string
	pluginInfos     []PluginInfo
	usageSources    []PluginUsage

	// signers are the plugins that sign pods; unsigned names those at a
	// filtering or scoring point that cannot ("extenders" for the
	// extenders), which keep the profile from signing any pod.
	signers  []framework.SignPlugin
	unsigned []string
	// batch is the profile's opportunistic batching, nil when it does not batch.
	batch *Batch

	// spec and weightOverrides are what the framework was compiled from.
	spec            *v1alpha1.SchedulingProfileSpec
	weightOverrides map[string]WeightOverride
}

// Spec returns the profile spec the framework was compiled from; callers
// must not modify it.
func (f *Framework) Spec() *v1alpha1.SchedulingProfileSpec { return f.spec }

// ScoreWeightOverrides returns the WithScoreWeights overrides the framework
// was compiled with, so that the same profile can be compiled again over
// another snapshot.
func (f *Framework) ScoreWeightOverrides() map[string]WeightOverride {
	return maps.Clone(f.weightOverrides)
}

var _ framework.Handle = (*Framework)(nil)

// PluginUsage is a plugin of a profile that reads what nodes use, and the
// source it reads.
type PluginUsage struct {
	// Plugin is the plugin's name.
	Plugin string
	// Source is what it reads.
	Source usage.Source
	// Reader is the plugin itself.
	Reader framework.UsageReader
}

// UsageSources lists the profile's plugins that read what nodes use, in
// the profile's order.
func (f *Framework) UsageSources() []PluginUsage { return slices.Clone(f.usageSources) }

// PluginInfo describes one plugin of a live profile, for status.effectivePlugins.
type PluginInfo struct {
	// Name is the plugin's name.
	Name string
	// ExtensionPoints lists where the plugin runs, in upstream's names ("Filter", "Score", ...).
	ExtensionPoints []string
	// Weight is the score weight, 0 unless the plugin scores.
	Weight int32
	// WeightFromDefault reports that the weight came from the default plugin set.
	WeightFromDefault bool
	// WeightOverride names the source of a WithScoreWeights override that set
	// the weight; empty when the profile's own or default weight applies.
	WeightOverride string
}

// Metrics returns the metrics the framework records into; nil when none.
func (f *Framework) Metrics() *metrics.Metrics { return f.metrics }

// ProfileName returns the scheduler name the profile serves.
func (f *Framework) ProfileName() string { return f.profileName }

// PercentageOfNodesToScore returns the profile's setting; nil or 0 means adaptive.
func (f *Framework) PercentageOfNodesToScore() *int32 { return f.percentageOfNodesToScore }

// Parallelism returns how many goroutines Filter and Score use.
func (f *Framework) Parallelism() int { return f.parallelizer.Parallelism() }

// PodBackoff returns the profile's initial and maximum pod backoff.
func (f *Framework) PodBackoff() (initial, maxBackoff time.Duration) {
	return f.podInitialBackoff, f.podMaxBackoff
}

// SkippedDefaultPlugins lists the default plugins left out because no factory is registered for them.
func (f *Framework) SkippedDefaultPlugins() []string {
	return append([]string(nil), f.skippedDefaults...)
}

// ListPlugins describes every plugin of the profile, in the order they were configured.
func (f *Framework) ListPlugins() []PluginInfo {
	out := make([]PluginInfo, len(f.pluginInfos))
	for i, p := range f.pluginInfos {
		p.ExtensionPoints = append([]string(nil), p.ExtensionPoints...)
		out[i] = p
	}
	return out
}

// HasFilterPlugins reports whether any Filter plugin is enabled.
func (f *Framework) HasFilterPlugins() bool { return len(f.filter) > 0 }

// HasPostFilterPlugins reports whether any PostFilter plugin is enabled.
func (f *Framework) HasPostFilterPlugins() bool { return len(f.postFilter) > 0 }

// HasScorePlugins reports whether any Score plugin is enabled.
func (f *Framework) HasScorePlugins() bool { return len(f.score) > 0 }

// SnapshotSharedLister returns the snapshot of the current cycle.
func (f *Framework) SnapshotSharedLister() framework.SharedLister { return f.snapshot }

// ClientSet returns the Kubernetes client.
func (f *Framework) ClientSet() kubernetes.Interface { return f.clientSet }

// SharedInformerFactory returns the informer factory.
func (f *Framework) SharedInformerFactory() informers.SharedInformerFactory {
	return f.informerFactory
}

// EventRecorder returns the event recorder.
func (f *Framework) EventRecorder() events.EventRecorder { return f.eventRecorder }

// Parallelizer returns the parallelizer plugins may use for their own work over nodes.
func (f *Framework) Parallelizer() framework.Parallelizer { return f.parallelizer }

// WaitingPods returns the set of pods held at Permit.
func (f *Framework) WaitingPods() *WaitingPods { return f.waitingPods }

// PreemptionsInFlight returns the background preemptions, shared with
// the scheduler's other frameworks when it said so.
func (f *Framework) PreemptionsInFlight() *framework.PreemptionsInFlight { return f.preemptions }

// SharedPluginState returns the state plugins keep for the whole
// scheduler, shared with its other frameworks when it said so.
func (f *Framework) SharedPluginState() *framework.SharedPluginState { return f.pluginState }

// PostBinding creates binding with the framework's BindingPoster.
func (f *Framework) PostBinding(ctx context.Context, binding *v1.Binding) error {
	if f.bindingPoster == nil {
		return errors.New("the framework has no client set to bind with")
	}
	return f.bindingPoster.PostBinding(ctx, binding)
}

// AllocatedDevices returns the scheduler's index of allocated devices, nil
// when WithDeviceState gave none.
func (f *Framework) AllocatedDevices() *dra.AllocatedDevices { return f.allocated }

// ResourceSlices returns the scheduler's view of ResourceSlices, nil when
// WithDeviceState gave none.
func (f *Framework) ResourceSlices() dra.SliceSource { return f.slices }

// NodeUsage returns the scheduler's usage stores, nil when WithNodeUsage
// gave none.
func (f *Framework) NodeUsage() framework.UsageProvider { return f.nodeUsage }

// IterateOverWaitingPods calls fn for each pod held at Permit.
func (f *Framework) IterateOverWaitingPods(fn func(framework.WaitingPod)) { f.waitingPods.Iterate(fn) }

// GetWaitingPod returns the pod held at Permit with the UID, or nil.
func (f *Framework) GetWaitingPod(uid types.UID) framework.WaitingPod { return f.waitingPods.Get(uid) }

// RejectWaitingPod rejects the waiting pod with the UID and reports whether it was waiting.
func (f *Framework) RejectWaitingPod(uid types.UID) bool {
	wp := f.waitingPods.get(uid)
	if wp == nil {
		return false
	}
	return wp.finish(framework.NewStatus(framework.Unschedulable, "removed"))
}

// AddNominatedPod records the pod's nomination in the nominator, if any.
func (f *Framework) AddNominatedPod(pod *framework.PodInfo, ni *framework.NominatingInfo) {
	if f.nominator != nil {
		f.nominator.AddNominatedPod(pod, ni)
	}
}

// DeleteNominatedPodIfExists forgets the pod's nomination in the nominator, if any.
func (f *Framework) DeleteNominatedPodIfExists(pod *v1.Pod) {
	if f.nominator != nil {
		f.nominator.DeleteNominatedPodIfExists(pod)
	}
}

// UpdateNominatedPod replaces a nomination in the nominator, if any.
func (f *Framework) UpdateNominatedPod(oldPod *v1.Pod, newPodInfo *framework.PodInfo) {
	if f.nominator != nil {
		f.nominator.UpdateNominatedPod(oldPod, newPodInfo)
	}
}

// NominatedPodsForNode lists the pods nominated to the node; none without a nominator.
func (f *Framework) NominatedPodsForNode(nodeName string) []*framework.PodInfo {
	if f.nominator == nil {
		return nil
	}
	return f.nominator.NominatedPodsForNode(nodeName)
}

// SelectHost picks the best-scored node, breaking ties as kube-scheduler
// does (see SelectHost): with the framework's random source only when an
// extender scored.
func (f *Framework) SelectHost(scores []framework.NodePluginScores) (string, error) {
	if f.HasExtenderPrioritizers() {
		return SelectHost(scores, f.rnd)
	}
	return SelectHost(scores, nil)
}

// defaultRand draws from the goroutine-safe global generator.
func defaultRand(n int) int { return rand.IntN(n) }

// observe records the duration of one extension point since start.
func (f *Framework) observe(point string, s *framework.Status, start time.Time) {
	if f.metrics == nil {
		return
	}
	f.metrics.ObserveExtensionPoint(point, s.Code().String(), f.profileName, f.clock.Since(start))
}
