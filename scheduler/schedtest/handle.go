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

package schedtest

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/dra"
)

// Handle is a framework.Handle for plugin tests that answers from its
// fields; a nil field answers nil. Every other method panics through the
// nil embedded Handle, so a test sees at once what else a plugin uses.
type Handle struct {
	framework.Handle
	// Client is the Kubernetes client.
	Client kubernetes.Interface
	// Informers is the informer factory.
	Informers informers.SharedInformerFactory
	// Snapshot is the cycle's snapshot, such as a Lister.
	Snapshot framework.SharedLister
	// Parallel runs work over nodes, such as Serial or Concurrent.
	Parallel framework.Parallelizer
	// Shared is the scheduler's state shared between plugins.
	Shared *framework.SharedPluginState
	// Native lists the PodGroups, Kubernetes' own and Berth's.
	Native framework.WorkloadLister
	// Events records events.
	Events events.EventRecorder
	// Binder creates Bindings for PostBinding.
	Binder framework.BindingPoster
	// Allocated is the index of allocated devices.
	Allocated *dra.AllocatedDevices
	// Slices lists the ResourceSlices.
	Slices dra.SliceSource
	// Usage gives the usage stores; nil by default.
	Usage framework.UsageProvider
}

var _ framework.Handle = (*Handle)(nil)

// ClientSet returns Client.
func (h *Handle) ClientSet() kubernetes.Interface { return h.Client }

// SharedInformerFactory returns Informers.
func (h *Handle) SharedInformerFactory() informers.SharedInformerFactory { return h.Informers }

// SnapshotSharedLister returns Snapshot.
func (h *Handle) SnapshotSharedLister() framework.SharedLister { return h.Snapshot }

// Parallelizer returns Parallel.
func (h *Handle) Parallelizer() framework.Parallelizer { return h.Parallel }

// SharedPluginState returns Shared.
func (h *Handle) SharedPluginState() *framework.SharedPluginState { return h.Shared }

// Workloads returns Native.
func (h *Handle) Workloads() framework.WorkloadLister { return h.Native }

// EventRecorder returns Events.
func (h *Handle) EventRecorder() events.EventRecorder { return h.Events }

// PostBinding creates binding with Binder.
func (h *Handle) PostBinding(ctx context.Context, binding *v1.Binding) error {
	return h.Binder.PostBinding(ctx, binding)
}

// AllocatedDevices returns Allocated.
func (h *Handle) AllocatedDevices() *dra.AllocatedDevices { return h.Allocated }

// ResourceSlices returns Slices.
func (h *Handle) ResourceSlices() dra.SliceSource { return h.Slices }

// NodeUsage returns Usage.
func (h *Handle) NodeUsage() framework.UsageProvider { return h.Usage }
