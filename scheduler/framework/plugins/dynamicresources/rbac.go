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

package dynamicresources

// DynamicResources reads slices, classes and the DeviceTaintRules that
// taint devices, adds its finalizer to claims and writes their allocation
// and reservedFor (resourceclaims/binding is what the apiserver asks of a
// writer of both). It creates the claims for pods' extended resources that
// DeviceClasses serve, and deletes them when the binding fails.
//
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceslices;deviceclasses;devicetaintrules,verbs=get;list;watch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims/status;resourceclaims/binding,verbs=get;update;patch
