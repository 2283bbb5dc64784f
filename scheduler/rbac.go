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

package scheduler

// The scheduler's own needs, which `make manifests` adds to the ClusterRole
// berth-manager (config/rbac/role.yaml): it reads every kind its cluster
// event handlers watch to know when an unschedulable pod may fit,
// binds pods, writes their PodScheduled condition and nomination, reads
// Kubernetes' own PodGroups and writes their PodGroupInitiallyScheduled
// condition, records events, and lists the Scheduled events of pods that
// another scheduler bound, to name it (see internal/foreign). In its own
// namespace only (a Role), it reads the Secrets that extenders take their
// TLS client certificate from (see framework/extender/secrets.go), and
// Prometheus usage sources their token and CA. It lists NodeMetrics from
// metrics.k8s.io for load-aware plugins and RebalancePolicies reading
// metrics-server (see scheduler/usage). The plugins that
// write more (preemption, volume binding, dynamic resource allocation)
// carry their own markers, as do the controllers and the rebalancer.
//
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/binding;bindings,verbs=create
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=patch;update
// +kubebuilder:rbac:groups="",resources=services;replicationcontrollers;namespaces;persistentvolumes;persistentvolumeclaims,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets;statefulsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses;csinodes;csidrivers;csistoragecapacities;volumeattachments,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups="",resources=events,verbs=list
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=podgroups;compositepodgroups,verbs=get;list;watch
// +kubebuilder:rbac:groups=metrics.k8s.io,resources=nodes;pods,verbs=get;list
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=podgroups/status,verbs=patch;update
