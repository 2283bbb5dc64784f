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
	"errors"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// errPodGroupsUnwatched is what a framework built without a PodGroup source
// answers for every group.
var errPodGroupsUnwatched = errors.New("this scheduler does not watch PodGroups")

// unwatchedPodGroups is the PodGroupLister of a framework built without one:
// it knows no group.
type unwatchedPodGroups struct{}

var _ framework.PodGroupLister = unwatchedPodGroups{}

func (unwatchedPodGroups) PodGroup(string, string) (*v1alpha1.PodGroup, error) {
	return nil, errPodGroupsUnwatched
}

func (unwatchedPodGroups) Members(string, string) []*v1.Pod { return nil }

func (unwatchedPodGroups) IsPlaced(*v1.Pod) bool { return false }

// errWorkloadsUnserved is what a framework built without a source of
// scheduling.k8s.io PodGroups answers for every group.
var errWorkloadsUnserved = errors.New("this scheduler does not watch scheduling.k8s.io PodGroups")

// unservedWorkloads is the WorkloadLister of a framework built without one.
type unservedWorkloads struct{}

var _ framework.WorkloadLister = unservedWorkloads{}

func (unservedWorkloads) Served() bool { return false }

func (unservedWorkloads) PodGroup(string, string) (*schedulingv1beta1.PodGroup, error) {
	return nil, errWorkloadsUnserved
}

func (unservedWorkloads) Members(string, string) []*v1.Pod { return nil }

func (unservedWorkloads) IsPlaced(*v1.Pod) bool { return false }

func (unservedWorkloads) NodeOf(*v1.Pod) string { return "" }

// Workloads returns the scheduling.k8s.io PodGroups the scheduler watches.
func (f *Framework) Workloads() framework.WorkloadLister { return f.workloads }

// PodGroups returns the gangs the scheduler watches.
func (f *Framework) PodGroups() framework.PodGroupLister { return f.podGroups }

// Activate moves pending pods straight to activeQ; without an activator it does nothing.
func (f *Framework) Activate(logger logr.Logger, pods map[string]*v1.Pod) {
	if f.activator != nil && len(pods) > 0 {
		f.activator.Activate(logger, pods)
	}
}
