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
)

// PodActivator moves pending pods straight to the active queue.
type PodActivator interface {
	// Activate moves the pods, keyed by namespace/name, from backoff or the
	// unschedulable set to activeQ; other pods are ignored.
	Activate(logger logr.Logger, pods map[string]*v1.Pod)
}
