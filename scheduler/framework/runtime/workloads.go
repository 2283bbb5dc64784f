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

	"github.com/berth-io/berth/scheduler/framework"
)

// errWorkloadsUnserved is what a framework built without a source of
// PodGroups answers for every group.
var errWorkloadsUnserved = errors.New("this scheduler does not watch PodGroups")

// unservedWorkloads is the WorkloadLister of a framework built without one.
type unservedWorkloads struct{}

var _ framework.WorkloadLister = unservedWorkloads{}

func (unservedWorkloads) Serves(framework.GroupRef) bool { return false }

func (unservedWorkloads) PodGroup(framework.GroupRef) (*schedulingv1beta1.PodGroup, error) {
	return nil, errWorkloadsUnserved
}

func (unservedWorkloads) Members(framework.GroupRef) []*v1.Pod { return nil }

func (unservedWorkloads) IsPlaced(*v1.Pod) bool { return false }

func (unservedWorkloads) NodeOf(*v1.Pod) string { return "" }

// Workloads returns the PodGroups the scheduler watches.
func (f *Framework) Workloads() framework.WorkloadLister { return f.workloads }

// Activate moves pending pods straight to activeQ; without an activator it does nothing.
func (f *Framework) Activate(logger logr.Logger, pods map[string]*v1.Pod) {
	if f.activator != nil && len(pods) > 0 {
		f.activator.Activate(logger, pods)
	}
}
