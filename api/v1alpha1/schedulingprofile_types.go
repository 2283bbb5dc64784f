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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Condition types and reasons shared by Berth's kinds, following the kstatus convention.
const (
	// ConditionReady is True when the object's desired state is live.
	ConditionReady = "Ready"
	// ConditionReconciling is True while the controller works towards the desired state.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the controller cannot make progress without a change to the object.
	ConditionStalled = "Stalled"
	// ConditionApplied is True when a PluginWeight is in effect in every profile it targets.
	ConditionApplied = "Applied"
	// ConditionSchedulerConflict is True while another scheduler binds pods of
	// the schedulerName a SchedulingProfile serves. It is informational: the
	// profile keeps scheduling, and kstatus does not read it.
	ConditionSchedulerConflict = "SchedulerConflict"
	// ConditionUsageAvailable, on a profile whose plugins read what nodes
	// use, is True while every source they read is read, False naming a
	// source that fails or was never read.
	ConditionUsageAvailable = "UsageAvailable"

	// ReasonActive means the object's current generation is live.
	ReasonActive = "Active"
	// ReasonConflict means another, older object already claims what this one asks for.
	ReasonConflict = "Conflict"
	// ReasonInvalid means the object's spec cannot be compiled.
	ReasonInvalid = "Invalid"
	// ReasonPodsBoundByAnotherScheduler means another scheduler bound pods of the profile's schedulerName lately.
	ReasonPodsBoundByAnotherScheduler = "PodsBoundByAnotherScheduler"
	// ReasonNoRecentForeignBindings means no other scheduler bound pods of the profile's schedulerName lately.
	ReasonNoRecentForeignBindings = "NoRecentForeignBindings"
	// ReasonUsageRead means every usage source of the profile's plugins was read.
	ReasonUsageRead = "UsageRead"
	// ReasonUsageSourceFailing means the last read of a usage source failed.
	ReasonUsageSourceFailing = "UsageSourceFailing"
	// ReasonUsageNotReadYet means a usage source was never read yet.
	ReasonUsageNotReadYet = "UsageNotReadYet"
	// ReasonShadowing means a shadow profile's current generation is evaluated beside the live profile it shadows.
	ReasonShadowing = "Shadowing"
)

// SchedulerNameLabel, on a namespace, names the schedulerName that Berth's
// mutating webhook gives the pods created there that name no scheduler or
// name default-scheduler (see docs/webhook.md).
const SchedulerNameLabel = "scheduling.berth.io/scheduler-name"

// SchedulingProfileSpec is an upstream kube-scheduler profile
// (kubescheduler.config.k8s.io/v1 KubeSchedulerProfile) plus Berth's own fields.
// +kubebuilder:validation:XValidation:rule="!has(self.podInitialBackoffSeconds) || !has(self.podMaxBackoffSeconds) || self.podInitialBackoffSeconds <= self.podMaxBackoffSeconds",message="podInitialBackoffSeconds must not exceed podMaxBackoffSeconds"
// +kubebuilder:validation:XValidation:rule="!has(self.shadowOf) || !has(self.schedulerName)",message="a shadow profile serves no schedulerName: leave schedulerName unset when shadowOf is set"
// +kubebuilder:validation:XValidation:rule="!has(self.shadowSampleRatePercent) || has(self.shadowOf)",message="shadowSampleRatePercent needs shadowOf"
// +kubebuilder:validation:XValidation:rule="!has(self.shadowOf) || !has(self.extenders) || size(self.extenders) == 0",message="a shadow profile cannot call extenders"
// +kubebuilder:validation:XValidation:rule="!has(self.shadowOf) || !has(self.recordDecisions) || self.recordDecisions == 0",message="a shadow profile places no pod: recordDecisions needs a live profile"
type SchedulingProfileSpec struct {
	// schedulerName is the spec.schedulerName of the pods this profile places.
	// It defaults to the profile's metadata.name. When two profiles claim one
	// name, the newer reports Stalled with reason Conflict.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	SchedulerName string `json:"schedulerName,omitempty"`

	// shadowOf makes this profile a shadow of the live profile serving this
	// schedulerName: it never binds and serves no schedulerName of its own
	// (schedulerName must then be unset). For the pods the live profile
	// tries (a sample of them, see shadowSampleRatePercent), the scheduler
	// also evaluates this profile on the same snapshot, off the scheduling
	// loop, and status.shadow reports how often the two agree and why they
	// differ. Promoting a shadow is an edit of the live profile's spec.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ShadowOf string `json:"shadowOf,omitempty"`

	// shadowSampleRatePercent is the share of the shadowed scheduler's
	// scheduling attempts the shadow evaluates, 1-100; unset means 100. It
	// needs shadowOf.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	ShadowSampleRatePercent *int32 `json:"shadowSampleRatePercent,omitempty"`

	// recordDecisions keeps this profile's last N placements, 0-100, with
	// the weighted per-plugin scores of the chosen node and its nearest
	// runners-up, in status.recentDecisions (written every few seconds,
	// not per pod), so that berth explain pod can show why a bound pod is
	// where it is. Unset or 0 records nothing. A shadow profile places no
	// pod and cannot set it.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	RecordDecisions *int32 `json:"recordDecisions,omitempty"`

	// percentageOfNodesToScore is the share of all nodes that, once found
	// feasible, ends the search for feasible nodes. 0 (or unset) picks the
	// adaptive percentage of upstream kube-scheduler; 100 scores every node.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	PercentageOfNodesToScore *int32 `json:"percentageOfNodesToScore,omitempty"`

	// opportunisticBatching lets a pod with the same signature as the pod
	// scheduled just before it try, first, the best node that pod's search
	// scored and did not take, as kube-scheduler's OpportunisticBatching
	// does. Enabled or Disabled; unset takes the manager's
	// --opportunistic-batching flag (on by default, as upstream). A profile
	// batches only when every PreFilter, Filter, PreScore and Score plugin
	// of it can sign pods and it has no extenders, and only pods that every
	// plugin signs: upstream's PodTopologySpread signs no pod while it has
	// default constraints, so the default plugin set batches nothing.
	// +optional
	OpportunisticBatching *BatchingMode `json:"opportunisticBatching,omitempty"`

	// podInitialBackoffSeconds is the backoff of a pod after its first failed
	// scheduling attempt; it doubles on each further failure.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	PodInitialBackoffSeconds *int64 `json:"podInitialBackoffSeconds,omitempty"`

	// podMaxBackoffSeconds caps the backoff of a pod that keeps failing.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	PodMaxBackoffSeconds *int64 `json:"podMaxBackoffSeconds,omitempty"`

	// plugins enables and disables plugins at each extension point, starting
	// from upstream kube-scheduler's default plugin set.
	// +optional
	Plugins *Plugins `json:"plugins,omitempty"`

	// pluginConfig holds the arguments of plugins, one entry per plugin, in the
	// shape of the upstream plugin's args (for example NodeResourcesFitArgs).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(c, self.exists_one(d, d.name == c.name))",message="each plugin may appear at most once in pluginConfig"
	PluginConfig []PluginConfig `json:"pluginConfig,omitempty"`

	// extenders are HTTP scheduler extenders called after the profile's
	// filter and score plugins, in upstream's extenders shape.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.filter(e, has(e.bindVerb) && size(e.bindVerb) > 0).size() <= 1",message="at most one extender may set bindVerb"
	Extenders []Extender `json:"extenders,omitempty"`
}

// Plugins lists the plugins to enable or disable at each extension point, as
// in upstream's KubeSchedulerProfile.plugins.
type Plugins struct {
	// preEnqueue plugins gate a pod before it enters the active queue.
	// +optional
	PreEnqueue *PluginSet `json:"preEnqueue,omitempty"`
	// queueSort orders the scheduling queue; exactly one may be enabled.
	// +optional
	QueueSort *PluginSet `json:"queueSort,omitempty"`
	// preFilter plugins compute per-pod state and may reject a pod early.
	// +optional
	PreFilter *PluginSet `json:"preFilter,omitempty"`
	// filter plugins rule out nodes that cannot run the pod.
	// +optional
	Filter *PluginSet `json:"filter,omitempty"`
	// postFilter plugins run when no node fits, for example preemption.
	// +optional
	PostFilter *PluginSet `json:"postFilter,omitempty"`
	// preScore plugins compute per-pod state for scoring.
	// +optional
	PreScore *PluginSet `json:"preScore,omitempty"`
	// score plugins rank feasible nodes; their weights scale their scores.
	// +optional
	Score *PluginSet `json:"score,omitempty"`
	// reserve plugins claim resources for a pod on its chosen node.
	// +optional
	Reserve *PluginSet `json:"reserve,omitempty"`
	// permit plugins allow, delay or reject a pod before binding.
	// +optional
	Permit *PluginSet `json:"permit,omitempty"`
	// preBind plugins run right before binding, for example to bind volumes.
	// +optional
	PreBind *PluginSet `json:"preBind,omitempty"`
	// bind plugins bind the pod to its node; the first that handles it wins.
	// +optional
	Bind *PluginSet `json:"bind,omitempty"`
	// postBind plugins run after a successful bind.
	// +optional
	PostBind *PluginSet `json:"postBind,omitempty"`
	// placementGenerate plugins propose the placements (sets of nodes, such
	// as one per topology domain) that a PodGroup's scheduling cycle tries.
	// +optional
	PlacementGenerate *PluginSet `json:"placementGenerate,omitempty"`
	// placementScore plugins rank the placements where a whole PodGroup
	// fits; their weights scale their scores.
	// +optional
	PlacementScore *PluginSet `json:"placementScore,omitempty"`
	// podGroupPostFilter plugins run when a PodGroup fits no placement, for
	// example to preempt for the whole group.
	// +optional
	PodGroupPostFilter *PluginSet `json:"podGroupPostFilter,omitempty"`
	// multiPoint enables a plugin at every extension point it implements.
	// Settings at a specific extension point take precedence.
	// +optional
	MultiPoint *PluginSet `json:"multiPoint,omitempty"`
}

// PluginSet enables and disables plugins at one extension point.
type PluginSet struct {
	// enabled lists plugins to run in addition to the defaults, in order.
	// A plugin both in the defaults and here runs once, at this position.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q.name == p.name))",message="each plugin may be enabled at most once per extension point"
	Enabled []Plugin `json:"enabled,omitempty"`
	// disabled lists default plugins not to run; the name "*" disables them all.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q.name == p.name))",message="each plugin may be disabled at most once per extension point"
	Disabled []Plugin `json:"disabled,omitempty"`
}

// Plugin names a plugin and, for score plugins, its weight.
type Plugin struct {
	// name is the plugin's registered name, for example NodeResourcesFit.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`
	// weight scales the plugin's normalized score (score plugins only).
	// Unset means the plugin's default weight.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight *int32 `json:"weight,omitempty"`
}

// PluginConfig holds the arguments of one plugin.
type PluginConfig struct {
	// name is the plugin the arguments are for.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`
	// args are the plugin's arguments in the upstream args shape; the webhook
	// rejects args that do not decode or validate.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Args runtime.RawExtension `json:"args,omitempty"`
}

// BatchingMode turns a profile's opportunistic batching on or off.
// +kubebuilder:validation:Enum=Enabled;Disabled
type BatchingMode string

const (
	// BatchingEnabled batches the profile's pods where their signatures allow.
	BatchingEnabled BatchingMode = "Enabled"
	// BatchingDisabled searches every pod on its own.
	BatchingDisabled BatchingMode = "Disabled"
)

// WeightSource says where an effective plugin weight came from.
// +kubebuilder:validation:Enum=Default;Profile;PluginWeight
type WeightSource string

const (
	// WeightSourceDefault is a weight from upstream's default plugin set.
	WeightSourceDefault WeightSource = "Default"
	// WeightSourceProfile is a weight set in the profile's own spec.
	WeightSourceProfile WeightSource = "Profile"
	// WeightSourcePluginWeight is a weight set by a PluginWeight object.
	WeightSourcePluginWeight WeightSource = "PluginWeight"
)

// EffectivePlugin is one plugin as the live profile runs it.
type EffectivePlugin struct {
	// name is the plugin's registered name.
	Name string `json:"name"`
	// extensionPoints lists where the plugin runs, in upstream's names (Filter, Score, ...).
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	ExtensionPoints []string `json:"extensionPoints,omitempty"`
	// weight is the plugin's score weight, when it scores.
	// +optional
	Weight int32 `json:"weight,omitempty"`
	// weightSource says where weight came from.
	// +optional
	WeightSource WeightSource `json:"weightSource,omitempty"`
	// pluginWeight names the PluginWeight that set weight, when weightSource is PluginWeight.
	// +optional
	PluginWeight string `json:"pluginWeight,omitempty"`
}

// SchedulingProfileStatus is the observed state of a SchedulingProfile.
type SchedulingProfileStatus struct {
	// observedGeneration is the generation the controller last processed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// activeGeneration is the generation live in the scheduler now; it lags
	// observedGeneration while an invalid update keeps the last good one live.
	// +optional
	ActiveGeneration int64 `json:"activeGeneration,omitempty"`
	// schedulerName is the scheduler name the profile serves.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`

	// shadowOf makes this profile a shadow of the live profile serving this
	// schedulerName: it never binds and serves no schedulerName of its own
	// (schedulerName must then be unset). For the pods the live profile
	// tries (a sample of them, see shadowSampleRatePercent), the scheduler
	// also evaluates this profile on the same snapshot, off the scheduling
	// loop, and status.shadow reports how often the two agree and why they
	// differ. Promoting a shadow is an edit of the live profile's spec.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ShadowOf string `json:"shadowOf,omitempty"`

	// shadowSampleRatePercent is the share of the shadowed scheduler's
	// scheduling attempts the shadow evaluates, 1-100; unset means 100. It
	// needs shadowOf.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	ShadowSampleRatePercent *int32 `json:"shadowSampleRatePercent,omitempty"`
	// pluginCount is the number of distinct plugins enabled in the live profile.
	// +optional
	PluginCount int32 `json:"pluginCount,omitempty"`
	// effectivePlugins lists the live profile's plugins after defaults and PluginWeights.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	EffectivePlugins []EffectivePlugin `json:"effectivePlugins,omitempty"`
	// shadow reports, for a shadow profile (spec.shadowOf), what it would
	// have done with the pods the live profile tried since its active
	// generation went live. It is written every few seconds, not per pod.
	// +optional
	Shadow *ShadowStatus `json:"shadow,omitempty"`
	// recentDecisions are the live profile's last placements, newest
	// first, when spec.recordDecisions is set. It is written every few
	// seconds, not per pod, and carries over to a new leader.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	RecentDecisions []SchedulingDecision `json:"recentDecisions,omitempty"`
	// conditions are Ready, Reconciling and Stalled, as kstatus reads them.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ShadowStatus is what a shadow profile would have done, compared with the
// live profile it shadows, counted since its active generation went live.
type ShadowStatus struct {
	// of is the schedulerName whose live profile is shadowed.
	Of string `json:"of"`
	// liveProfile names the SchedulingProfile serving that schedulerName
	// when the figures were last written, if any.
	// +optional
	LiveProfile string `json:"liveProfile,omitempty"`
	// since is when counting started: when the active generation went live.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
	// evaluated counts the scheduling attempts the shadow evaluated.
	Evaluated int64 `json:"evaluated"`
	// agreed counts the attempts where the shadow would place the pod on
	// the live profile's node (that node is among the shadow's best), or
	// where neither finds a node.
	Agreed int64 `json:"agreed"`
	// disagreed counts the attempts where both place the pod, on different nodes.
	Disagreed int64 `json:"disagreed"`
	// shadowUnschedulable counts the attempts where the live profile
	// placed the pod and the shadow finds no node.
	ShadowUnschedulable int64 `json:"shadowUnschedulable"`
	// liveUnschedulable counts the attempts where the live profile finds
	// no node and the shadow would place the pod.
	LiveUnschedulable int64 `json:"liveUnschedulable"`
	// dropped counts the sampled attempts not evaluated because the
	// shadow's worker was still busy; the scheduling loop never waits for it.
	Dropped int64 `json:"dropped"`
	// errors counts evaluations that failed with an error.
	// +optional
	Errors int64 `json:"errors,omitempty"`
	// agreementPercent is agreed / evaluated, as a percentage with one decimal ("97.5").
	// +optional
	AgreementPercent string `json:"agreementPercent,omitempty"`
	// decidingPlugins counts, over the disagreements, the plugins whose
	// scores decide them (under the shadow profile, the plugins that score
	// the shadow's node above the live node), most frequent first.
	// +optional
	// +listType=map
	// +listMapKey=plugin
	// +kubebuilder:validation:MaxItems=32
	DecidingPlugins []ShadowPluginCount `json:"decidingPlugins,omitempty"`
	// recentDisagreements are the last disagreements, newest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	RecentDisagreements []ShadowDisagreement `json:"recentDisagreements,omitempty"`
}

// ShadowPluginCount counts the disagreements a plugin decided.
type ShadowPluginCount struct {
	// plugin is the score plugin's name.
	Plugin string `json:"plugin"`
	// disagreements is how many disagreements it decided.
	Disagreements int64 `json:"disagreements"`
}

// ShadowDisagreement is one pod that the live profile and its shadow would
// place differently.
type ShadowDisagreement struct {
	// pod is the pod, namespace/name.
	Pod string `json:"pod"`
	// liveNode is where the live profile placed it; empty when it found no node.
	// +optional
	LiveNode string `json:"liveNode,omitempty"`
	// shadowNode is where the shadow would place it; empty when it finds no node.
	// +optional
	ShadowNode string `json:"shadowNode,omitempty"`
	// decidingPlugins are the plugins that score shadowNode above liveNode
	// under the shadow profile, largest margin first, or, when one of
	// them finds no node, the plugins that rejected the pod.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	DecidingPlugins []string `json:"decidingPlugins,omitempty"`
	// time is when the shadow evaluated the pod.
	Time metav1.Time `json:"time"`
	// podGroup, for a PodGroup's cycle, is the group, namespace/name: pod
	// is then the first member the two place on different nodes, or the
	// cycle's first member when they differ as a group.
	// +optional
	PodGroup string `json:"podGroup,omitempty"`
	// livePlacement, for a PodGroup's cycle, is the placement (topology
	// value) the live profile put the group in; empty when it placed none
	// of it, or for the one placement of every node.
	// +optional
	LivePlacement string `json:"livePlacement,omitempty"`
	// shadowPlacement, for a PodGroup's cycle, is the placement the shadow
	// would put the group in, empty as livePlacement is.
	// +optional
	ShadowPlacement string `json:"shadowPlacement,omitempty"`
}

// SchedulingDecision is one placement by a live profile: where the pod
// went and the scores that sent it there.
type SchedulingDecision struct {
	// pod is the pod, namespace/name.
	Pod string `json:"pod"`
	// podUID is the pod's metadata.uid, so that a pod created again under
	// the same name is not taken for this one.
	PodUID types.UID `json:"podUID"`
	// node is the node the pod was bound to.
	Node string `json:"node"`
	// generation is the profile generation that placed the pod.
	Generation int64 `json:"generation"`
	// time is when the pod was bound.
	Time metav1.Time `json:"time"`
	// feasibleNodes counts the nodes that passed Filter.
	FeasibleNodes int32 `json:"feasibleNodes"`
	// evaluatedNodes counts the nodes filtered: the search stops once it
	// found enough feasible nodes (percentageOfNodesToScore).
	EvaluatedNodes int32 `json:"evaluatedNodes"`
	// nodes are the chosen node first, then its best runners-up, with their
	// scores; empty when one node was feasible and nothing was scored.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=3
	Nodes []DecisionNode `json:"nodes,omitempty"`
	// podGroup, for a member placed by its PodGroup's cycle, is how that
	// cycle chose where the group goes; the members it bound share it.
	// +optional
	PodGroup *DecisionPodGroup `json:"podGroup,omitempty"`
}

// DecisionPodGroup is how a PodGroup's scheduling cycle chose the
// placement (topology domain) of its members.
type DecisionPodGroup struct {
	// name is the PodGroup, namespace/name.
	Name string `json:"name"`
	// topologyKey is the node label the group is kept within one value
	// of; empty when the group has no topology constraint.
	// +optional
	TopologyKey string `json:"topologyKey,omitempty"`
	// placement is the placement chosen: its value of topologyKey, empty
	// for the one placement of every node.
	// +optional
	Placement string `json:"placement,omitempty"`
	// placementsTried counts the placements the cycle tried.
	PlacementsTried int32 `json:"placementsTried"`
	// placementsFeasible counts those where the whole group fitted.
	PlacementsFeasible int32 `json:"placementsFeasible"`
	// placements are the chosen placement first, then its best feasible
	// runners-up, with their weighted PlacementScore scores (such as
	// PodGroupPodsCount's), as the cycle ranked them; empty when only one
	// placement fitted, which the cycle does not score, as kube-scheduler.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=3
	Placements []DecisionPlacement `json:"placements,omitempty"`
}

// DecisionPlacement is one ranked placement of a DecisionPodGroup.
type DecisionPlacement struct {
	// placement is the placement's topology value, empty for the one
	// placement of every node.
	// +optional
	Placement string `json:"placement,omitempty"`
	// total is the sum of the weighted placement scores.
	Total int64 `json:"total"`
	// scores are the PlacementScore plugins' weighted scores.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Scores []DecisionScore `json:"scores,omitempty"`
}

// DecisionNode is one scored node of a SchedulingDecision.
type DecisionNode struct {
	// node is the node's name.
	Node string `json:"node"`
	// total is the sum of the weighted scores.
	Total int64 `json:"total"`
	// scores are the weighted (normalized score × weight) scores, per
	// plugin or extender, in the order they ran.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Scores []DecisionScore `json:"scores,omitempty"`
}

// DecisionScore is one plugin's weighted score of a node.
type DecisionScore struct {
	// plugin is the score plugin's or extender's name.
	Plugin string `json:"plugin"`
	// score is the normalized score times the plugin's weight.
	Score int64 `json:"score"`
}

// SchedulingProfile is a scheduler profile that Berth compiles into a live
// scheduling framework for the pods whose spec.schedulerName it claims.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=sprof,categories=berth
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Scheduler",type=string,JSONPath=`.status.schedulerName`
// +kubebuilder:printcolumn:name="Generation",type=integer,JSONPath=`.metadata.generation`
// +kubebuilder:printcolumn:name="Live",type=integer,JSONPath=`.status.activeGeneration`
// +kubebuilder:printcolumn:name="Plugins",type=integer,JSONPath=`.status.pluginCount`
// +kubebuilder:printcolumn:name="Shadow-Of",type=string,JSONPath=`.spec.shadowOf`,priority=1
// +kubebuilder:printcolumn:name="Agreement",type=string,JSONPath=`.status.shadow.agreementPercent`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SchedulingProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired profile.
	// +optional
	Spec SchedulingProfileSpec `json:"spec,omitempty"`
	// status is the profile's observed state.
	// +optional
	Status SchedulingProfileStatus `json:"status,omitempty"`
}

// SchedulingProfileList is a list of SchedulingProfiles.
// +kubebuilder:object:root=true
type SchedulingProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the profiles.
	Items []SchedulingProfile `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SchedulingProfile{}, &SchedulingProfileList{})
}
