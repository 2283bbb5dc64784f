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

package strategies

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/berth-io/berth/scheduler/framework"
)

// Usage is what a node offers and what its pods request of a list of
// resources, for the utilization strategies.
type Usage struct {
	// NodeInfo is the node measured.
	NodeInfo *framework.NodeInfo
	// Alloc and Used are allocatable and requested amounts, one per resource.
	Alloc, Used []float64
}

// MeasureUsage sums the requests of the node's non-terminal pods.
func MeasureUsage(ni *framework.NodeInfo, resources []v1.ResourceName) *Usage {
	u := &Usage{NodeInfo: ni, Alloc: make([]float64, len(resources)), Used: make([]float64, len(resources))}
	for i, r := range resources {
		u.Alloc[i] = amount(ni.Node().Status.Allocatable, r)
	}
	for _, pod := range PodsOf(ni) {
		if IsTerminal(pod) {
			continue
		}
		for i, v := range PodAmounts(pod, resources) {
			u.Used[i] += v
		}
	}
	return u
}

// Percent returns the utilization of resource i in percent; a resource the
// node does not offer is full as soon as anything requests it.
func (u *Usage) Percent(i int) float64 {
	if u.Alloc[i] <= 0 {
		if u.Used[i] > 0 {
			return 100
		}
		return 0
	}
	return u.Used[i] * 100 / u.Alloc[i]
}

// PodAmounts returns what pod requests of each resource; a pod counts as one
// of the "pods" resource.
func PodAmounts(pod *v1.Pod, resources []v1.ResourceName) []float64 {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	out := make([]float64, len(resources))
	for i, r := range resources {
		if r == v1.ResourcePods {
			out[i] = 1
			continue
		}
		out[i] = amount(reqs, r)
	}
	return out
}

// amount reads resource r from list: millicores for CPU, units otherwise.
func amount(list v1.ResourceList, r v1.ResourceName) float64 {
	q, ok := list[r]
	if !ok {
		return 0
	}
	if r == v1.ResourceCPU {
		return float64(q.MilliValue())
	}
	return float64(q.Value())
}

// ValidateThresholds reports thresholds that name no resource and every
// threshold that is not a percentage, each under path, the path of the
// thresholds in the args (thresholds[cpu]).
func ValidateThresholds[P ~float64](path *field.Path, thresholds map[v1.ResourceName]P) field.ErrorList {
	if len(thresholds) == 0 {
		return field.ErrorList{field.Required(path, "no resource threshold is configured")}
	}
	var errs field.ErrorList
	for _, r := range slices.Sorted(maps.Keys(thresholds)) {
		if p := thresholds[r]; p < 0 || p > 100 {
			errs = append(errs, field.Invalid(path.Key(string(r)), float64(p), "is not a percentage from 0 to 100"))
		}
	}
	return errs
}
