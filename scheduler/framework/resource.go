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
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Default requests counted for a container that requests no CPU or memory,
// so that scoring does not pile best-effort pods onto one node.
const (
	// DefaultMilliCPURequest is 0.1 core.
	DefaultMilliCPURequest int64 = 100
	// DefaultMemoryRequest is 200 MB.
	DefaultMemoryRequest int64 = 200 * 1024 * 1024
)

// Resource is an amount of compute resources in scheduler units.
type Resource struct {
	// MilliCPU is CPU in thousandths of a core.
	MilliCPU int64
	// Memory is in bytes.
	Memory int64
	// EphemeralStorage is in bytes.
	EphemeralStorage int64
	// AllowedPodNumber is the pod count (used for allocatable only).
	AllowedPodNumber int64
	// ScalarResources holds extended resources and hugepages.
	ScalarResources map[v1.ResourceName]int64
}

// NewResource converts a ResourceList.
func NewResource(rl v1.ResourceList) *Resource {
	r := &Resource{}
	r.Add(rl)
	return r
}

// Add adds every quantity of rl.
func (r *Resource) Add(rl v1.ResourceList) {
	for name, q := range rl {
		switch name {
		case v1.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case v1.ResourceMemory:
			r.Memory += q.Value()
		case v1.ResourcePods:
			r.AllowedPodNumber += q.Value()
		case v1.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		default:
			if IsScalarResourceName(name) {
				r.AddScalar(name, q.Value())
			}
		}
	}
}

// AddResource adds o to r.
func (r *Resource) AddResource(o *Resource) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.EphemeralStorage += o.EphemeralStorage
	r.AllowedPodNumber += o.AllowedPodNumber
	for n, v := range o.ScalarResources {
		r.AddScalar(n, v)
	}
}

// SubResource subtracts o from r.
func (r *Resource) SubResource(o *Resource) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	r.AllowedPodNumber -= o.AllowedPodNumber
	for n, v := range o.ScalarResources {
		r.AddScalar(n, -v)
	}
}

// AddScalar adds q of the named scalar resource.
func (r *Resource) AddScalar(name v1.ResourceName, q int64) {
	if r.ScalarResources == nil {
		r.ScalarResources = make(map[v1.ResourceName]int64, 2)
	}
	r.ScalarResources[name] += q
}

// SetScalar sets the named scalar resource to q.
func (r *Resource) SetScalar(name v1.ResourceName, q int64) {
	if r.ScalarResources == nil {
		r.ScalarResources = make(map[v1.ResourceName]int64, 2)
	}
	r.ScalarResources[name] = q
}

// Get returns the amount of a resource by name.
func (r *Resource) Get(name v1.ResourceName) int64 {
	switch name {
	case v1.ResourceCPU:
		return r.MilliCPU
	case v1.ResourceMemory:
		return r.Memory
	case v1.ResourcePods:
		return r.AllowedPodNumber
	case v1.ResourceEphemeralStorage:
		return r.EphemeralStorage
	default:
		return r.ScalarResources[name]
	}
}

// Clone returns a deep copy.
func (r *Resource) Clone() *Resource {
	out := *r
	if r.ScalarResources != nil {
		out.ScalarResources = make(map[v1.ResourceName]int64, len(r.ScalarResources))
		for k, v := range r.ScalarResources {
			out.ScalarResources[k] = v
		}
	}
	return &out
}

// IsScalarResourceName reports whether the resource is counted in ScalarResources,
// as upstream counts them: extended resources, hugepages, attachable-volume
// limits and prefixed native resources (any name with "kubernetes.io/", such
// as the deviceclass.resource.kubernetes.io/<class> a DeviceClass serves).
func IsScalarResourceName(name v1.ResourceName) bool {
	s := string(name)
	if strings.HasPrefix(s, v1.ResourceHugePagesPrefix) || strings.HasPrefix(s, v1.ResourceAttachableVolumesPrefix) ||
		strings.Contains(s, v1.ResourceDefaultNamespacePrefix) {
		return true
	}
	// An extended resource is fully qualified outside kubernetes.io.
	domain, _, ok := strings.Cut(s, "/")
	return ok && domain != "" && !strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix)
}

// PodRequests returns what the pod requests, counting init containers,
// restartable (sidecar) init containers and pod overhead as upstream does.
func PodRequests(pod *v1.Pod) *Resource {
	if c := onlyPlainContainer(pod); c != nil {
		return NewResource(c.Resources.Requests)
	}
	return NewResource(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
}

// onlyPlainContainer returns the pod's container when the pod's requests
// are exactly that one container's: no other containers, no overhead,
// pod-level resources, resource claims or status resources. The scheduler
// derives the requests of every pod it sees, and for such pods (most) the
// general helper's maps are wasted work.
func onlyPlainContainer(pod *v1.Pod) *v1.Container {
	spec, status := &pod.Spec, &pod.Status
	if len(spec.Containers) != 1 || len(spec.InitContainers) > 0 || spec.Overhead != nil || spec.Resources != nil ||
		len(spec.ResourceClaims) > 0 || len(status.ContainerStatuses) > 0 || len(status.InitContainerStatuses) > 0 ||
		status.Resources != nil || status.AllocatedResources != nil {
		return nil
	}
	return &spec.Containers[0]
}

// PodNonZeroRequests is PodRequests with DefaultMilliCPURequest and
// DefaultMemoryRequest counted for containers that request no CPU or memory.
func PodNonZeroRequests(pod *v1.Pod) *Resource {
	if c := onlyPlainContainer(pod); c != nil {
		r := &Resource{MilliCPU: DefaultMilliCPURequest, Memory: DefaultMemoryRequest}
		if q, ok := c.Resources.Requests[v1.ResourceCPU]; ok {
			r.MilliCPU = q.MilliValue()
		}
		if q, ok := c.Resources.Requests[v1.ResourceMemory]; ok {
			r.Memory = q.Value()
		}
		return r
	}
	defaults := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(DefaultMemoryRequest, resource.BinarySI),
	}
	rl := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		NonMissingContainerRequests: defaults,
	})
	r := &Resource{}
	if q, ok := rl[v1.ResourceCPU]; ok {
		r.MilliCPU = q.MilliValue()
	}
	if q, ok := rl[v1.ResourceMemory]; ok {
		r.Memory = q.Value()
	}
	return r
}
