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

package manager

// The markers below add what `berth manager` needs, beyond the controllers'
// own markers, to the ClusterRole berth-manager and the Role berth-manager
// (leader election) that `make manifests` writes to config/rbac/role.yaml.
// They mirror upstream's system:kube-scheduler and system:volume-scheduler
// ClusterRoles (kube-scheduler v1.37), without dynamic resource allocation,
// which Berth does not schedule, and the retired extensions API group.

// The scheduler: nodes and pods, binding, preemption, status.
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=pods/binding;bindings,verbs=create
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=patch;update

// What selects pods and what pods use, for spreading, affinity and volumes.
// +kubebuilder:rbac:groups="",resources=services;replicationcontrollers;namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets;statefulsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=persistentvolumes;persistentvolumeclaims,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses;csinodes;csidrivers;csistoragecapacities;volumeattachments,verbs=get;list;watch

// Dynamic resource allocation: DynamicResources reads slices, classes and
// the DeviceTaintRules that taint devices, adds its finalizer to claims and
// writes their allocation and reservedFor (resourceclaims/binding is what
// the apiserver asks of a writer of both).
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceslices;deviceclasses;devicetaintrules,verbs=get;list;watch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims/status;resourceclaims/binding,verbs=get;update;patch

// The rebalancer evicts through the Eviction API only.
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create

// Events of the scheduler, the controllers and leader election.
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch;update

// Berth's custom resources and their status.
// +kubebuilder:rbac:groups=scheduling.berth.io,resources=schedulingprofiles;pluginweights;rebalancepolicies;podgroups,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.berth.io,resources=schedulingprofiles/status;pluginweights/status;rebalancepolicies/status;podgroups/status,verbs=get;update;patch

// The secure metrics endpoint asks the apiserver who calls and whether it may.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Leader election, in the manager's namespace only.
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=system,resources=leases,verbs=get;list;watch;create;update;patch
