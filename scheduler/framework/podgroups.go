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
	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

// PodGroupLister reads the gangs (PodGroups) the scheduler watches and their members.
type PodGroupLister interface {
	// PodGroup returns the named PodGroup, or an error that says why it is unknown.
	PodGroup(namespace, name string) (*v1alpha1.PodGroup, error)
	// Members returns the group's member pods that are neither terminal nor
	// being deleted, bound or not. The pods must not be modified.
	Members(namespace, name string) []*v1.Pod
	// IsPlaced reports whether the pod is assumed on or bound to a node.
	IsPlaced(pod *v1.Pod) bool
}

// PodActivator moves pending pods straight to the active queue.
type PodActivator interface {
	// Activate moves the pods, keyed by namespace/name, from backoff or the
	// unschedulable set to activeQ; other pods are ignored.
	Activate(logger logr.Logger, pods map[string]*v1.Pod)
}

// PodGroupOf returns the name of the PodGroup the pod joins by its label, if any.
func PodGroupOf(pod *v1.Pod) (string, bool) {
	name, ok := pod.Labels[v1alpha1.PodGroupLabel]
	return name, ok && name != ""
}
