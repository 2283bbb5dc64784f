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

package framework

import (
	"context"
	"math"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"

	"github.com/berth-io/berth/scheduler/framework/dra"
	"github.com/berth-io/berth/scheduler/usage"
)

// Score bounds, as upstream.
const (
	// MaxNodeScore is the highest score a plugin may give after normalization.
	MaxNodeScore int64 = 100
	// MinNodeScore is the lowest score a plugin may give after normalization.
	MinNodeScore int64 = 0
	// MaxTotalScore bounds the weighted sum of all scores.
	MaxTotalScore int64 = math.MaxInt64
)

// Plugin is the parent of every plugin interface.
type Plugin interface {
	// Name returns the plugin's registered name.
	Name() string
}

// PreEnqueuePlugin gates a pod before it enters the active queue.
type PreEnqueuePlugin interface {
	Plugin
	// PreEnqueue returns Success to let the pod into activeQ.
	PreEnqueue(ctx context.Context, pod *v1.Pod) *Status
}

// LessFunc orders two queued pods.
type LessFunc func(a, b *QueuedPodInfo) bool

// PriorityLess is the order of PrioritySort, the QueueSort plugin every
// profile uses (all profiles share one queue): a higher priority goes
// first, and between equal priorities the earlier queue timestamp.
func PriorityLess(a, b *QueuedPodInfo) bool {
	pa, pb := a.Priority(), b.Priority()
	if pa != pb {
		return pa > pb
	}
	return a.Timestamp.Before(b.Timestamp)
}

// QueueSortPlugin orders the scheduling queue.
type QueueSortPlugin interface {
	Plugin
	// Less reports whether a should be scheduled before b.
	Less(a, b *QueuedPodInfo) bool
}

// PreFilterResult narrows the nodes a pod is filtered against. A nil result
// or nil NodeNames means all nodes.
type PreFilterResult struct {
	// NodeNames are the only nodes worth filtering.
	NodeNames sets.Set[string]
}

// AllNodes reports whether the result leaves every node eligible.
func (r *PreFilterResult) AllNodes() bool { return r == nil || r.NodeNames == nil }

// Merge intersects two results.
func (r *PreFilterResult) Merge(o *PreFilterResult) *PreFilterResult {
	switch {
	case r.AllNodes() && o.AllNodes():
		return nil
	case r.AllNodes():
		return o
	case o.AllNodes():
		return r
	}
	return &PreFilterResult{NodeNames: r.NodeNames.Intersection(o.NodeNames)}
}

// PreFilterExtensions let a plugin update its PreFilter state incrementally
// when preemption adds or removes pods in a simulation.
type PreFilterExtensions interface {
	// AddPod updates state as if podToAdd ran on nodeInfo.
	AddPod(ctx context.Context, state *CycleState, podToSchedule *v1.Pod, podToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	// RemovePod updates state as if podToRemove no longer ran on nodeInfo.
	RemovePod(ctx context.Context, state *CycleState, podToSchedule *v1.Pod, podToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// PreFilterPlugin computes per-pod state once per cycle and may reject early.
type PreFilterPlugin interface {
	Plugin
	// PreFilter runs once per cycle; Skip means the plugin's Filter is skipped.
	PreFilter(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) (*PreFilterResult, *Status)
	// PreFilterExtensions returns the incremental extensions, or nil.
	PreFilterExtensions() PreFilterExtensions
}

// FilterPlugin decides whether the pod can run on one node.
type FilterPlugin interface {
	Plugin
	// Filter returns Success when the pod fits on the node.
	Filter(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) *Status
}

// NodeToStatusReader reads the Filter status of each node in a failed cycle.
type NodeToStatusReader interface {
	// Get returns a node's status; nodes never filtered report the absent-nodes status.
	Get(nodeName string) *Status
	// NodesForStatusCode lists the nodes whose status has the code.
	NodesForStatusCode(lister NodeInfoLister, code Code) ([]*NodeInfo, error)
}

// NominatingMode says what a PostFilter result does to nominatedNodeName.
type NominatingMode int

const (
	// ModeNoop leaves the nomination as it is.
	ModeNoop NominatingMode = iota
	// ModeOverride sets the nomination to the result's node.
	ModeOverride
)

// NominatingInfo is a PostFilter's nomination decision.
type NominatingInfo struct {
	// NominatedNodeName is the node the pod is nominated to.
	NominatedNodeName string
	// NominatingMode says whether to apply it.
	NominatingMode NominatingMode
}

// Mode returns the nominating mode, ModeNoop for nil.
func (n *NominatingInfo) Mode() NominatingMode {
	if n == nil {
		return ModeNoop
	}
	return n.NominatingMode
}

// PostFilterResult is a PostFilter plugin's outcome.
type PostFilterResult struct {
	*NominatingInfo
}

// PostFilterPlugin runs when no node fits, for example to preempt.
type PostFilterPlugin interface {
	Plugin
	// PostFilter tries to make the pod schedulable.
	PostFilter(ctx context.Context, state *CycleState, pod *v1.Pod, filteredNodeStatusMap NodeToStatusReader) (*PostFilterResult, *Status)
}

// PreScorePlugin computes per-pod state for scoring.
type PreScorePlugin interface {
	Plugin
	// PreScore runs once per cycle over the feasible nodes; Skip skips the plugin's Score.
	PreScore(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) *Status
}

// NodeScore is a node's score from one plugin or in total.
type NodeScore struct {
	// Name is the node's name.
	Name string
	// Score is the score.
	Score int64
}

// NodeScoreList lists scores in the order of the feasible nodes.
type NodeScoreList []NodeScore

// NodePluginScores is a node's total score and the parts it came from.
type NodePluginScores struct {
	// Name is the node's name.
	Name string
	// Scores are the weighted scores per plugin.
	Scores []PluginScore
	// TotalScore sums Scores.
	TotalScore int64
}

// PluginScore is one plugin's weighted score for a node.
type PluginScore struct {
	// Name is the plugin's name.
	Name string
	// Score is the weighted, normalized score.
	Score int64
}

// ScoreExtensions normalize a plugin's raw scores.
type ScoreExtensions interface {
	// NormalizeScore maps scores into [MinNodeScore, MaxNodeScore] in place.
	NormalizeScore(ctx context.Context, state *CycleState, pod *v1.Pod, scores NodeScoreList) *Status
}

// ScorePlugin ranks feasible nodes.
type ScorePlugin interface {
	Plugin
	// Score scores one node; it runs in parallel over nodes.
	Score(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) (int64, *Status)
	// ScoreExtensions returns the normalization, or nil.
	ScoreExtensions() ScoreExtensions
}

// NodeScorer scores one node for the pod and the cycle it was made for.
type NodeScorer func(nodeInfo *NodeInfo) (int64, *Status)

// FilterFingerprinter is implemented by a plugin whose PreFilter and Filter
// depend on only part of its args: FilterFingerprint returns that part,
// canonically encoded, so that two instances with equal fingerprints filter
// alike whatever their other args. Without it, the whole args count.
type FilterFingerprinter interface {
	FilterFingerprint() string
}

// CycleScorePlugin is a ScorePlugin that reads its cycle state once per
// cycle instead of once per node: after PreScore the runtime asks it for a
// NodeScorer and calls that, not Score, for each node. A NodeScorer must
// score every node exactly as Score would in the same cycle.
type CycleScorePlugin interface {
	ScorePlugin
	// NodeScorer returns the scorer of the pod's nodes in this cycle; a
	// failure fails the cycle's scoring as a failed Score would.
	NodeScorer(ctx context.Context, state *CycleState, pod *v1.Pod) (NodeScorer, *Status)
}

// ReservePlugin claims resources for a pod on its chosen node.
type ReservePlugin interface {
	Plugin
	// Reserve claims; a failure unreserves every Reserve plugin.
	Reserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
	// Unreserve releases; it must be idempotent and cannot fail.
	Unreserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string)
}

// PermitPlugin allows, delays or rejects a pod before binding.
type PermitPlugin interface {
	Plugin
	// Permit returns Success, Wait with a timeout, or a rejection.
	Permit(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) (*Status, time.Duration)
}

// PreBindPlugin runs right before binding.
type PreBindPlugin interface {
	Plugin
	// PreBind prepares the bind; a failure aborts it.
	PreBind(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
}

// PreBindPreFlightPlugin is a PreBind plugin that tells, before PreBind
// runs, whether it has work for the pod: Success when PreBind will act (and
// may wait on other components, as for volumes), Skip when it has nothing
// to do. A PreBind plugin without it is taken to have work.
type PreBindPreFlightPlugin interface {
	PreBindPlugin
	// PreBindPreFlight reports Success if PreBind has work for the pod, Skip if not.
	PreBindPreFlight(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
}

// BindPlugin binds a pod to a node.
type BindPlugin interface {
	Plugin
	// Bind binds, or returns Skip to let the next bind plugin do it.
	Bind(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
}

// PostBindPlugin runs after a successful bind.
type PostBindPlugin interface {
	Plugin
	// PostBind is informational and cannot fail.
	PostBind(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string)
}

// WaitingPod is a pod held at Permit.
type WaitingPod interface {
	// GetPod returns the pod.
	GetPod() *v1.Pod
	// GetPendingPlugins lists the permit plugins that have not yet allowed it.
	GetPendingPlugins() []string
	// Allow records that the named plugin allows the pod; the pod goes on once all have.
	Allow(pluginName string)
	// Reject rejects the pod with a message.
	Reject(pluginName, msg string)
}

// NodeInfoLister lists the NodeInfos of a snapshot.
type NodeInfoLister interface {
	// List returns every NodeInfo.
	List() ([]*NodeInfo, error)
	// HavePodsWithAffinityList returns the NodeInfos with pods that have affinity terms.
	HavePodsWithAffinityList() ([]*NodeInfo, error)
	// HavePodsWithRequiredAntiAffinityList returns the NodeInfos with pods that have required anti-affinity.
	HavePodsWithRequiredAntiAffinityList() ([]*NodeInfo, error)
	// Get returns one node's NodeInfo.
	Get(nodeName string) (*NodeInfo, error)
}

// StorageInfoLister answers questions about PVCs across the snapshot.
type StorageInfoLister interface {
	// IsPVCUsedByPods reports whether any pod uses the namespace/name claim.
	IsPVCUsedByPods(key string) bool
}

// SharedLister gives plugins read access to the cycle's snapshot.
type SharedLister interface {
	// NodeInfos lists the snapshot's NodeInfos.
	NodeInfos() NodeInfoLister
	// StorageInfos answers PVC questions.
	StorageInfos() StorageInfoLister
}

// Parallelizer runs work over pieces in parallel.
type Parallelizer interface {
	// Until calls do for every piece in [0, pieces) with bounded parallelism.
	Until(ctx context.Context, pieces int, do func(i int), operation string)
}

// PodNominator keeps track of pods nominated to nodes by preemption.
type PodNominator interface {
	// AddNominatedPod records the pod's nomination.
	AddNominatedPod(pod *PodInfo, nominatingInfo *NominatingInfo)
	// DeleteNominatedPodIfExists forgets the pod's nomination.
	DeleteNominatedPodIfExists(pod *v1.Pod)
	// UpdateNominatedPod replaces the old pod's nomination with the new pod's.
	UpdateNominatedPod(oldPod *v1.Pod, newPodInfo *PodInfo)
	// NominatedPodsForNode lists the pods nominated to the node.
	NominatedPodsForNode(nodeName string) []*PodInfo
}

// Handle gives plugins what they need from the scheduler.
type Handle interface {
	PodNominator
	// SnapshotSharedLister returns the snapshot of the current cycle.
	SnapshotSharedLister() SharedLister
	// ClientSet returns the Kubernetes client.
	ClientSet() kubernetes.Interface
	// SharedInformerFactory returns the scheduler's informer factory.
	SharedInformerFactory() informers.SharedInformerFactory
	// EventRecorder records events on pods.
	EventRecorder() events.EventRecorder
	// Parallelizer runs work over nodes in parallel.
	Parallelizer() Parallelizer
	// IterateOverWaitingPods calls fn for each pod held at Permit.
	IterateOverWaitingPods(fn func(WaitingPod))
	// GetWaitingPod returns the pod held at Permit with the UID, or nil.
	GetWaitingPod(uid types.UID) WaitingPod
	// RejectWaitingPod rejects the waiting pod with the UID and reports whether it was waiting.
	RejectWaitingPod(uid types.UID) bool
	// ProfileName returns the scheduler name of the profile.
	ProfileName() string
	// Workloads returns the PodGroups the scheduler watches, Kubernetes'
	// own and Berth's; it is never nil.
	Workloads() WorkloadLister
	// Activate moves pending pods, keyed by namespace/name, straight to activeQ.
	Activate(logger logr.Logger, pods map[string]*v1.Pod)
	// PostBinding creates binding through the pods/binding subresource.
	PostBinding(ctx context.Context, binding *v1.Binding) error
	// AllocatedDevices returns the scheduler's index of the devices that
	// allocated ResourceClaims hold; nil outside a scheduler.
	AllocatedDevices() *dra.AllocatedDevices
	// ResourceSlices returns the ResourceSlices devices are allocated from,
	// as the scheduler tracks them (DeviceTaintRules applied); nil outside
	// a scheduler.
	ResourceSlices() dra.SliceSource
	// NodeUsage returns the stores of what nodes really use, shared by
	// every profile and RebalancePolicy reading the same source; nil
	// outside a scheduler.
	NodeUsage() UsageProvider
}

// UsageReader is implemented by plugins that read what nodes use, so that
// the scheduler reads their source while their profile is live and a
// profile's status can say whether it is read.
type UsageReader interface {
	Plugin
	// UsageSource is the source the plugin reads.
	UsageSource() usage.Source
}

// UsageProvider gives the store that reads a usage source; equal sources
// share one store.
type UsageProvider interface {
	// Store returns the store of src; the scheduler reads it while a live
	// or shadow profile has a UsageReader plugin naming src.
	Store(src usage.Source) usage.Store
}

// BindingPoster creates pods' Bindings; the scheduler gives its frameworks
// one that the Handle's PostBinding uses.
type BindingPoster interface {
	// PostBinding creates binding through the pods/binding subresource.
	PostBinding(ctx context.Context, binding *v1.Binding) error
}
