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
)

// RebalanceSchedule says when a policy runs: every interval, or on a cron schedule.
// +kubebuilder:validation:XValidation:rule="has(self.interval) != has(self.cron)",message="exactly one of interval or cron must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || duration(self.interval) >= duration('1m')",message="interval must be at least 1m, as a cron schedule's step: each run may evict pods"
type RebalanceSchedule struct {
	// interval runs the policy this long after the end of its previous run,
	// for example 5m; at least 1m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	Interval *metav1.Duration `json:"interval,omitempty"`
	// cron runs the policy on a standard five-field cron schedule (or a
	// descriptor such as @hourly), in UTC.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\S+(\s+\S+){4})$`
	Cron string `json:"cron,omitempty"`
}

// NamespaceFilter limits a policy to some namespaces; include and exclude are exclusive.
// +kubebuilder:validation:XValidation:rule="!(has(self.include) && size(self.include) > 0 && has(self.exclude) && size(self.exclude) > 0)",message="only one of namespaces.include or namespaces.exclude may be set"
type NamespaceFilter struct {
	// include, when set, limits the policy to these namespaces.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=128
	Include []string `json:"include,omitempty"`
	// exclude keeps the policy out of these namespaces.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=128
	Exclude []string `json:"exclude,omitempty"`
}

// PriorityThreshold protects pods at or above a priority from eviction.
// +kubebuilder:validation:XValidation:rule="!(has(self.value) && has(self.name))",message="only one of priorityThreshold.value or priorityThreshold.name may be set"
type PriorityThreshold struct {
	// value is the priority at and above which pods are not evicted.
	// +optional
	Value *int32 `json:"value,omitempty"`
	// name is a PriorityClass whose value is the threshold.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// EvictorOptions are the protections every eviction passes, as the descheduler's DefaultEvictor.
type EvictorOptions struct {
	// evictLocalStoragePods allows evicting pods with emptyDir or hostPath volumes.
	// +optional
	EvictLocalStoragePods bool `json:"evictLocalStoragePods,omitempty"`
	// evictSystemCriticalPods allows evicting pods of priority system-cluster-critical and above.
	// +optional
	EvictSystemCriticalPods bool `json:"evictSystemCriticalPods,omitempty"`
	// evictDaemonSetPods allows evicting pods owned by a DaemonSet.
	// +optional
	EvictDaemonSetPods bool `json:"evictDaemonSetPods,omitempty"`
	// evictFailedBarePods allows evicting failed pods that have no owner.
	// +optional
	EvictFailedBarePods bool `json:"evictFailedBarePods,omitempty"`
	// ignorePvcPods keeps pods that mount a PersistentVolumeClaim.
	// +optional
	IgnorePVCPods bool `json:"ignorePvcPods,omitempty"`
	// nodeFit evicts a pod only when the referenced profile's filters find another node for it.
	// +optional
	NodeFit bool `json:"nodeFit,omitempty"`
	// minPodAge keeps pods younger than this.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	MinPodAge *metav1.Duration `json:"minPodAge,omitempty"`
	// priorityThreshold keeps pods at or above this priority.
	// +optional
	PriorityThreshold *PriorityThreshold `json:"priorityThreshold,omitempty"`
	// labelSelector, when set, limits evictions to pods it selects.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// EvictionLimits bound the evictions of one run. Unset means no limit.
type EvictionLimits struct {
	// maxPodsToEvictPerNode bounds evictions from one node in one run.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxPodsToEvictPerNode *int32 `json:"maxPodsToEvictPerNode,omitempty"`
	// maxPodsToEvictPerNamespace bounds evictions from one namespace in one run.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxPodsToEvictPerNamespace *int32 `json:"maxPodsToEvictPerNamespace,omitempty"`
	// maxPodsToEvictTotal bounds all evictions of one run.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxPodsToEvictTotal *int32 `json:"maxPodsToEvictTotal,omitempty"`
}

// StrategyName is a descheduler strategy (plugin) name.
// +kubebuilder:validation:Enum=RemoveDuplicates;LowNodeUtilization;HighNodeUtilization;RemovePodsViolatingInterPodAntiAffinity;RemovePodsViolatingNodeAffinity;RemovePodsViolatingNodeTaints;RemovePodsViolatingTopologySpreadConstraint;RemovePodsHavingTooManyRestarts;PodLifeTime;RemoveFailedPods
type StrategyName string

// Strategy is one descheduler strategy with its arguments.
type Strategy struct {
	// name is the strategy, with the descheduler's plugin name.
	Name StrategyName `json:"name"`
	// args are the strategy's arguments in the descheduler's shape.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Args runtime.RawExtension `json:"args,omitempty"`
}

// MetricsSource names where a policy reads what nodes really use, with the
// descheduler's names.
// +kubebuilder:validation:Enum=KubernetesMetrics;Prometheus
type MetricsSource string

const (
	// MetricsSourceKubernetesMetrics reads nodes' and pods' usage from
	// metrics.k8s.io (metrics-server).
	MetricsSourceKubernetesMetrics MetricsSource = "KubernetesMetrics"
	// MetricsSourcePrometheus runs a strategy's Prometheus query.
	MetricsSourcePrometheus MetricsSource = "Prometheus"
)

// PrometheusAuthTokenKey is the key of the Secret named by
// prometheus.authToken.secretReference that holds the bearer token, as the
// descheduler reads it.
const PrometheusAuthTokenKey = "prometheusAuthToken"

// PrometheusCAKey is the key of the Secret named by
// prometheus.ca.secretReference that holds the PEM bundle.
const PrometheusCAKey = "ca.crt"

// MetricsProvider is one source of real usage a policy's strategies may read
// (the descheduler's metricsProviders entry).
// +kubebuilder:validation:XValidation:rule="self.source != 'Prometheus' || has(self.prometheus)",message="prometheus is required when source is Prometheus"
// +kubebuilder:validation:XValidation:rule="self.source == 'Prometheus' || !has(self.prometheus)",message="prometheus may be set only when source is Prometheus"
type MetricsProvider struct {
	// source is KubernetesMetrics (metrics-server, through the apiserver's
	// metrics.k8s.io) or Prometheus.
	Source MetricsSource `json:"source"`
	// prometheus says where Prometheus is and how to authenticate to it;
	// only for source Prometheus, and required there.
	// +optional
	Prometheus *PrometheusProvider `json:"prometheus,omitempty"`
}

// PrometheusProvider is where a policy's Prometheus queries are sent.
type PrometheusProvider struct {
	// url is Prometheus's address, e.g.
	// https://prometheus-k8s.monitoring.svc:9091.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^/?#\s]+`
	URL string `json:"url"`
	// authToken names the Secret whose key prometheusAuthToken holds the
	// bearer token sent to Prometheus; unset sends none.
	// +optional
	AuthToken *PrometheusAuthToken `json:"authToken,omitempty"`
	// ca names the Secret whose key ca.crt holds the PEM bundle
	// Prometheus's certificate must chain to; unset trusts the system's
	// authorities.
	// +optional
	CA *PrometheusCA `json:"ca,omitempty"`
}

// PrometheusAuthToken names the Secret holding Prometheus's bearer token.
type PrometheusAuthToken struct {
	// secretReference names the Secret, in Berth's namespace, whose key
	// prometheusAuthToken holds the token. Berth reads it again on each
	// run, so a rotated token is used from the next run on.
	SecretReference SecretReference `json:"secretReference"`
}

// PrometheusCA names the Secret holding the authorities Prometheus's
// certificate must chain to.
type PrometheusCA struct {
	// secretReference names the Secret, in Berth's namespace, whose key
	// ca.crt holds the PEM bundle.
	SecretReference SecretReference `json:"secretReference"`
}

// RebalancePolicySpec is a descheduler-style policy: which pods to move, how
// carefully, and how often.
type RebalancePolicySpec struct {
	// schedule says when the policy runs.
	Schedule RebalanceSchedule `json:"schedule"`
	// dryRun computes and shows the plan without evicting anything.
	// +optional
	// +kubebuilder:default=true
	DryRun *bool `json:"dryRun,omitempty"`
	// profileRef names the SchedulingProfile whose filters decide nodeFit.
	// Unset, nodeFit uses the install's default profile: the one the
	// manager's --default-profile names (the Helm chart's defaultProfile,
	// berth), or default-scheduler when that flag is not set.
	// status.profile names the profile in use.
	// +optional
	ProfileRef *ProfileReference `json:"profileRef,omitempty"`
	// namespaces limits the policy to some namespaces.
	// +optional
	Namespaces *NamespaceFilter `json:"namespaces,omitempty"`
	// evictor sets the protections every eviction passes.
	// +optional
	Evictor *EvictorOptions `json:"evictor,omitempty"`
	// limits bound the evictions of one run.
	// +optional
	Limits *EvictionLimits `json:"limits,omitempty"`
	// metricsProviders are the sources of real usage the policy's
	// strategies may read (the utilization strategies' metricsUtilization), at
	// most one per source. A strategy that reads a source the policy does
	// not list here makes the policy invalid.
	// +optional
	// +listType=map
	// +listMapKey=source
	// +kubebuilder:validation:MaxItems=2
	MetricsProviders []MetricsProvider `json:"metricsProviders,omitempty"`
	// strategies are run in order in each run.
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.all(s, self.exists_one(t, t.name == s.name))",message="each strategy may appear at most once"
	Strategies []Strategy `json:"strategies"`
}

// EvictionResult is the outcome of one planned eviction.
// +kubebuilder:validation:Enum=Planned;Evicted;Blocked;Failed;Skipped
type EvictionResult string

const (
	// EvictionPlanned is an eviction a dry run would make.
	EvictionPlanned EvictionResult = "Planned"
	// EvictionEvicted is an eviction the Eviction API accepted.
	EvictionEvicted EvictionResult = "Evicted"
	// EvictionBlocked is an eviction a PodDisruptionBudget refused.
	EvictionBlocked EvictionResult = "Blocked"
	// EvictionFailed is an eviction that failed for another reason.
	EvictionFailed EvictionResult = "Failed"
	// EvictionSkipped is an eviction left out because a limit was reached.
	EvictionSkipped EvictionResult = "Skipped"
)

// PlannedEviction is one pod a run chose to move, and what became of it.
type PlannedEviction struct {
	// namespace is the pod's namespace.
	Namespace string `json:"namespace"`
	// pod is the pod's name.
	Pod string `json:"pod"`
	// node is the node the pod ran on.
	Node string `json:"node"`
	// strategy is the strategy that chose the pod.
	Strategy StrategyName `json:"strategy"`
	// reason says why the strategy chose the pod.
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`
	// result is the outcome.
	Result EvictionResult `json:"result"`
	// expectedNode is the node the SchedulingProfile serving the pod would
	// place it on once evicted. Set for the strategies that read what nodes
	// use, which skip a pod that profile would place straight back.
	// +optional
	ExpectedNode string `json:"expectedNode,omitempty"`
}

// RunOutcome is how a run of a policy ended.
// +kubebuilder:validation:Enum=Running;Succeeded;Incomplete;Failed
type RunOutcome string

const (
	// RunRunning is a run that started and has not completed, or was cut
	// short by the leader's end.
	RunRunning RunOutcome = "Running"
	// RunSucceeded is a run that made (or, dry, planned) every eviction it chose.
	RunSucceeded RunOutcome = "Succeeded"
	// RunIncomplete is a live run some of whose evictions were blocked by a
	// PodDisruptionBudget or failed.
	RunIncomplete RunOutcome = "Incomplete"
	// RunFailed is a run that could not start, or a strategy of which stopped.
	RunFailed RunOutcome = "Failed"
)

// RebalanceRun summarizes one run of a policy.
type RebalanceRun struct {
	// result is how the run ended; Running until it completes.
	// +optional
	Result RunOutcome `json:"result,omitempty"`
	// startTime is when the run began.
	StartTime metav1.Time `json:"startTime"`
	// completionTime is when the run ended.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// dryRun says whether the run was a dry run.
	DryRun bool `json:"dryRun"`
	// planned counts the evictions the strategies chose.
	Planned int32 `json:"planned"`
	// evicted counts evictions the Eviction API accepted.
	Evicted int32 `json:"evicted"`
	// blocked counts evictions a PodDisruptionBudget refused.
	Blocked int32 `json:"blocked"`
	// failed counts evictions that failed for another reason.
	Failed int32 `json:"failed"`
}

// RebalancePolicyStatus is the observed state of a RebalancePolicy.
type RebalancePolicyStatus struct {
	// observedGeneration is the generation the controller last processed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// lastRun summarizes the most recent run. It is written when the run
	// starts, before it evicts anything, and again when it completes: a
	// lastRun without completionTime is running or was cut short by the
	// leader's end.
	// +optional
	LastRun *RebalanceRun `json:"lastRun,omitempty"`
	// nextRunTime is when the next run is due; unset while the policy does not run.
	// +optional
	NextRunTime *metav1.Time `json:"nextRunTime,omitempty"`
	// profile names the SchedulingProfile whose filters decide nodeFit:
	// spec.profileRef, or the install's default profile when that is unset.
	// It is set only when the policy asks for nodeFit.
	// +optional
	Profile string `json:"profile,omitempty"`
	// plan lists the evictions of the most recent run (at most 100).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Plan []PlannedEviction `json:"plan,omitempty"`
	// conditions are Ready, Reconciling and Stalled, as kstatus reads them.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RebalancePolicy is a descheduler-style policy that evicts pods which no
// longer sit where scheduling policy wants them, through the Eviction API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=rbp,categories=berth
// +kubebuilder:printcolumn:name="Dry-Run",type=boolean,JSONPath=`.spec.dryRun`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Last-Run",type=date,JSONPath=`.status.lastRun.startTime`
// +kubebuilder:printcolumn:name="Last-Result",type=string,JSONPath=`.status.lastRun.result`
// +kubebuilder:printcolumn:name="Planned",type=integer,JSONPath=`.status.lastRun.planned`
// +kubebuilder:printcolumn:name="Evicted",type=integer,JSONPath=`.status.lastRun.evicted`
// +kubebuilder:printcolumn:name="Next-Run",type=string,JSONPath=`.status.nextRunTime`
// +kubebuilder:printcolumn:name="Profile",type=string,JSONPath=`.status.profile`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RebalancePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired policy.
	Spec RebalancePolicySpec `json:"spec"`
	// status shows the last run and its plan.
	// +optional
	Status RebalancePolicyStatus `json:"status,omitempty"`
}

// RebalancePolicyList is a list of RebalancePolicies.
// +kubebuilder:object:root=true
type RebalancePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the policies.
	Items []RebalancePolicy `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RebalancePolicy{}, &RebalancePolicyList{})
}
