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

// Package workloads holds scheduling scenarios for Kubernetes' native
// PodGroups (scheduling.k8s.io/v1beta1: gang and basic policies, topology
// constraints, group preemption) and for hierarchies of CompositePodGroups
// (scheduling.k8s.io/v1alpha3) over them, and what upstream kube-scheduler
// v1.37.1 does with each, so that Berth can be compared with it field by
// field.
//
// The package is split so that scenarios and runners stay apart:
//
//   - Scenario (scenario.go) is data: nodes, priority classes, PodGroups,
//     pods and the steps that create, delete or change them, with the
//     checkpoints at which the outcome is recorded. Scenarios() lists
//     those of plain PodGroups (scenarios.go), CompositeScenarios() those
//     of hierarchies (scenarios_composite.go), which need the
//     CompositePodGroup feature gate.
//   - Play (play.go) runs one scenario against any apiserver whose
//     scheduler is already running and returns an Observation: per
//     checkpoint, every pod's node, nomination, PodScheduled and
//     DisruptionTarget conditions and events, and every PodGroup's
//     and CompositePodGroup's conditions, normalised (no times, the
//     namespace replaced by $NS).
//   - Golden files under testdata/ are the Observations of the reference
//     runner (package reference: kube-apiserver and kube-scheduler
//     v1.37.1 with the GenericWorkload and TopologyAwareWorkloadScheduling
//     feature gates, and CompositePodGroup for composite scenarios), each
//     scenario run twice, fields that differed between
//     the runs listed as nondeterministic. Golden loads one.
//   - Compare (observation.go) lists the differences between a golden and
//     another runner's Observation.
//
// A second runner (Berth in-process) needs an apiserver started with the
// same feature gates and runtime config as the reference's (see package
// reference), no nodes but the scenario's (Play creates them by name, so
// use a fresh control plane per scenario or delete them in between), and
// then, per scenario:
//
//	got, err := workloads.Play(ctx, clientset, s)
//	want, err := workloads.Golden(s.Name)
//	for _, d := range workloads.Compare(want, got) {
//		t.Error(d)
//	}
package workloads
