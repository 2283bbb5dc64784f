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

package noderesources

import (
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/berth-io/berth/scheduler/framework"
)

// resourceScorer knows which resources a scoring plugin looks at and how to
// read the pod's and the node's amounts of each. It reads the node without
// allocating, so Score stays allocation-free.
type resourceScorer struct {
	names   []v1.ResourceName
	kinds   []resourceKind
	weights []int64
	// nonZero counts default CPU and memory for containers that request none
	// (NodeResourcesFit); BalancedAllocation counts only real requests.
	nonZero bool
}

func newResourceScorer(specs []ResourceSpec, nonZero bool) resourceScorer {
	s := resourceScorer{
		names:   make([]v1.ResourceName, len(specs)),
		kinds:   make([]resourceKind, len(specs)),
		weights: make([]int64, len(specs)),
		nonZero: nonZero,
	}
	for i, r := range specs {
		s.names[i] = v1.ResourceName(r.Name)
		s.kinds[i] = kindOf(s.names[i])
		s.weights[i] = r.Weight
	}
	return s
}

// resourceKind says where a NodeInfo keeps a scored resource, worked out
// once so that scoring a node compares no resource names.
type resourceKind uint8

const (
	kindCPU resourceKind = iota
	kindMemory
	kindEphemeralStorage
	// kindScalar is an extended resource or hugepages: ScalarResources,
	// left out of the score when the pod does not request it.
	kindScalar
	// kindOther is any other name, also looked up in ScalarResources.
	kindOther
)

func kindOf(name v1.ResourceName) resourceKind {
	switch {
	case name == v1.ResourceCPU:
		return kindCPU
	case name == v1.ResourceMemory:
		return kindMemory
	case name == v1.ResourceEphemeralStorage:
		return kindEphemeralStorage
	case framework.IsScalarResourceName(name):
		return kindScalar
	default:
		return kindOther
	}
}

// podRequests returns the pod's request of each scored resource, in order.
func (s *resourceScorer) podRequests(pod *v1.Pod) []int64 {
	if out, ok := s.plainPodRequests(pod); ok {
		return out
	}
	return s.helperPodRequests(pod)
}

// helperPodRequests computes podRequests with component-helpers, which
// handles every kind of pod.
func (s *resourceScorer) helperPodRequests(pod *v1.Pod) []int64 {
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
	if s.nonZero {
		opts.NonMissingContainerRequests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(framework.DefaultMilliCPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(framework.DefaultMemoryRequest, resource.DecimalSI),
		}
	}
	rl := resourcehelper.PodRequests(pod, opts)
	out := make([]int64, len(s.names))
	for i, n := range s.names {
		q, ok := rl[n]
		switch {
		case !ok:
		case n == v1.ResourceCPU:
			out[i] = q.MilliValue()
		default:
			out[i] = q.Value()
		}
	}
	return out
}

// plainPodRequests sums the containers' requests directly, without the
// maps the general helper builds, for the common pod whose requests are
// just that sum: no init containers, overhead, pod-level resources,
// resource claims or status resources (a pending pod not being resized).
// ok is false for any other pod. The sums are the helper's: quantities are
// added before converting, and with nonZero a container that requests no
// CPU or memory counts the defaults.
func (s *resourceScorer) plainPodRequests(pod *v1.Pod) (out []int64, ok bool) {
	spec, status := &pod.Spec, &pod.Status
	if len(spec.InitContainers) > 0 || spec.Overhead != nil || spec.Resources != nil || len(spec.ResourceClaims) > 0 ||
		len(status.ContainerStatuses) > 0 || len(status.InitContainerStatuses) > 0 || status.Resources != nil || status.AllocatedResources != nil {
		return nil, false
	}
	out = make([]int64, len(s.names))
	for i, n := range s.names {
		var sum resource.Quantity
		for c := range spec.Containers {
			q, found := spec.Containers[c].Resources.Requests[n]
			switch {
			case found:
				sum.Add(q)
			case s.nonZero && n == v1.ResourceCPU:
				sum.Add(*resource.NewMilliQuantity(framework.DefaultMilliCPURequest, resource.DecimalSI))
			case s.nonZero && n == v1.ResourceMemory:
				sum.Add(*resource.NewQuantity(framework.DefaultMemoryRequest, resource.DecimalSI))
			}
		}
		if n == v1.ResourceCPU {
			out[i] = sum.MilliValue()
		} else {
			out[i] = sum.Value()
		}
	}
	return out, true
}

// nodeAmounts returns the node's allocatable amount of resource i and what
// its pods already use of it. A zero allocatable means the resource is left
// out of the node's score: the node lacks it, or it is an extended resource
// the pod does not request.
func (s *resourceScorer) nodeAmounts(ni *framework.NodeInfo, i int, podRequest int64) (allocatable, used int64) {
	kind := s.kinds[i]
	if podRequest == 0 && kind == kindScalar {
		return 0, 0
	}
	requested := ni.Requested
	if s.nonZero {
		requested = ni.NonZeroRequested
	}
	switch kind {
	case kindCPU:
		return ni.Allocatable.MilliCPU, requested.MilliCPU
	case kindMemory:
		return ni.Allocatable.Memory, requested.Memory
	case kindEphemeralStorage:
		return ni.Allocatable.EphemeralStorage, ni.Requested.EphemeralStorage
	default:
		n := s.names[i]
		a, ok := ni.Allocatable.ScalarResources[n]
		if !ok {
			return 0, 0
		}
		return a, ni.Requested.ScalarResources[n]
	}
}

// shapePoint is a RequestedToCapacityRatio point with its score already
// scaled to [0, MaxNodeScore].
type shapePoint struct {
	utilization, score int64
}

// fitScorer scores a node for NodeResourcesFit with one strategy.
type fitScorer struct {
	resourceScorer
	strategy ScoringStrategyType
	shape    []shapePoint
}

func newFitScorer(s *ScoringStrategy) fitScorer {
	f := fitScorer{resourceScorer: newResourceScorer(s.Resources, true), strategy: s.Type}
	if s.Type == RequestedToCapacityRatio && s.RequestedToCapacityRatio != nil {
		scale := framework.MaxNodeScore / int64(MaxCustomPriorityScore)
		for _, p := range s.RequestedToCapacityRatio.Shape {
			f.shape = append(f.shape, shapePoint{utilization: int64(p.Utilization), score: int64(p.Score) * scale})
		}
	}
	return f
}

// score is the weighted mean of the per-resource scores of the node with the
// pod on it. RequestedToCapacityRatio leaves resources scoring 0 out of the
// mean and rounds, as upstream does.
func (f *fitScorer) score(ni *framework.NodeInfo, podRequests []int64) int64 {
	var total, weights int64
	for i := range f.names {
		allocatable, used := f.nodeAmounts(ni, i, podRequests[i])
		if allocatable == 0 {
			continue
		}
		requested := used + podRequests[i]
		var s int64
		switch f.strategy {
		case LeastAllocated:
			s = leastAllocatedScore(requested, allocatable)
		case MostAllocated:
			s = mostAllocatedScore(requested, allocatable)
		case RequestedToCapacityRatio:
			if s = f.ratioScore(requested, allocatable); s <= 0 {
				continue
			}
		}
		total += s * f.weights[i]
		weights += f.weights[i]
	}
	if weights == 0 {
		return 0
	}
	if f.strategy == RequestedToCapacityRatio {
		return int64(math.Round(float64(total) / float64(weights)))
	}
	return total / weights
}

// leastAllocatedScore is the free share of the resource after placing the pod.
func leastAllocatedScore(requested, allocatable int64) int64 {
	if allocatable == 0 || requested > allocatable {
		return 0
	}
	return (allocatable - requested) * framework.MaxNodeScore / allocatable
}

// mostAllocatedScore is the used share of the resource after placing the pod.
func mostAllocatedScore(requested, allocatable int64) int64 {
	if allocatable == 0 {
		return 0
	}
	return min(requested, allocatable) * framework.MaxNodeScore / allocatable
}

// ratioScore maps utilization through the shape; an overcommitted resource
// counts as 100% used.
func (f *fitScorer) ratioScore(requested, allocatable int64) int64 {
	utilization := int64(100)
	if allocatable != 0 && requested <= allocatable {
		utilization = requested * 100 / allocatable
	}
	return interpolate(f.shape, utilization)
}

// interpolate evaluates the piecewise-linear shape at u, flat before the
// first point and after the last.
func interpolate(shape []shapePoint, u int64) int64 {
	for i, p := range shape {
		if u > p.utilization {
			continue
		}
		if i == 0 {
			return p.score
		}
		prev := shape[i-1]
		return prev.score + (p.score-prev.score)*(u-prev.utilization)/(p.utilization-prev.utilization)
	}
	return shape[len(shape)-1].score
}

// balanceScores returns, for the node with and without the pod, MaxNodeScore
// times one minus the standard deviation of the node's used fractions of the
// scored resources. It reads the node at most twice per resource rather than
// keeping the fractions, so it does not allocate.
func (s *resourceScorer) balanceScores(ni *framework.NodeInfo, podRequests []int64) (with, without int64) {
	fractions := func(i int) (withPod, withoutPod float64, ok bool) {
		allocatable, used := s.nodeAmounts(ni, i, podRequests[i])
		if allocatable == 0 {
			return 0, 0, false
		}
		a := float64(allocatable)
		return min(float64(used+podRequests[i])/a, 1), min(float64(used)/a, 1), true
	}
	var n int
	var w, wo spread
	for i := range s.names {
		fw, fwo, ok := fractions(i)
		if !ok {
			continue
		}
		w.add(n, fw)
		wo.add(n, fwo)
		n++
	}
	if n > 2 {
		w.mean, wo.mean = w.sum/float64(n), wo.sum/float64(n)
		for i := range s.names {
			if fw, fwo, ok := fractions(i); ok {
				w.addSquare(fw)
				wo.addSquare(fwo)
			}
		}
	}
	return w.score(n), wo.score(n)
}

// spread accumulates the used fractions of one node state.
type spread struct {
	sum, first, second, mean, squares float64
}

func (p *spread) add(i int, f float64) {
	switch i {
	case 0:
		p.first = f
	case 1:
		p.second = f
	}
	p.sum += f
}

func (p *spread) addSquare(f float64) { p.squares += (f - p.mean) * (f - p.mean) }

// score turns the standard deviation of n fractions into a score; for two
// fractions it is half their difference, as upstream computes it.
func (p *spread) score(n int) int64 {
	var std float64
	switch {
	case n == 2:
		std = math.Abs((p.first - p.second) / 2)
	case n > 2:
		std = math.Sqrt(p.squares / float64(n))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}
