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
	"context"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/extendedresource"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// FitName is the registered name of NodeResourcesFit.
const FitName = names.NodeResourcesFit

// Filter reasons of NodeResourcesFit, as upstream.
const (
	// ReasonTooManyPods is given when the node's pod capacity is used up.
	ReasonTooManyPods = "Too many pods"
	// ReasonInsufficientCPU is given when too little CPU is free.
	ReasonInsufficientCPU = "Insufficient cpu"
	// ReasonInsufficientMemory is given when too little memory is free.
	ReasonInsufficientMemory = "Insufficient memory"
	// ReasonInsufficientEphemeralStorage is given when too little ephemeral storage is free.
	ReasonInsufficientEphemeralStorage = "Insufficient ephemeral-storage"
)

const (
	fitPreFilterKey framework.StateKey = "PreFilter" + FitName
	fitPreScoreKey  framework.StateKey = "PreScore" + FitName
)

// Fit filters out nodes without enough free resources for the pod and scores
// the rest with its scoring strategy.
//
// An extended resource that a DeviceClass serves (DRAExtendedResource, as
// upstream) is left to DynamicResources on a node without allocatable for
// it: there the devices come from the node's ResourceSlices.
type Fit struct {
	ignoredResources sets.Set[string]
	ignoredGroups    sets.Set[string]
	scorer           fitScorer
	// placementScorer scores a PodGroup's placements: MostAllocated over
	// the scoring strategy's resources, whatever the strategy.
	placementScorer resourceScorer
	// classes resolves extended resources to the DeviceClasses serving
	// them; nil, none is.
	classes *extendedresource.Classes
}

var (
	_ framework.PreFilterPlugin   = &Fit{}
	_ framework.FilterPlugin      = &Fit{}
	_ framework.PreScorePlugin    = &Fit{}
	_ framework.CycleScorePlugin  = &Fit{}
	_ framework.EnqueueExtensions = &Fit{}
)

// NewFit is the plugin's factory: it loads NodeResourcesFitArgs with
// args.Load and builds the plugin from them.
// Extended resources backed by DRA are resolved through the handle's
// DeviceClass informer, when it has an informer factory.
func NewFit(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[NodeResourcesFitArgs]("plugin "+FitName, raw)
	if err != nil {
		return nil, err
	}
	var opts []FitOption
	if h != nil && h.SharedInformerFactory() != nil {
		opts = append(opts, WithDeviceClasses(extendedresource.NewClasses(h.SharedInformerFactory().Resource().V1().DeviceClasses().Lister())))
	}
	return NewFitWithArgs(a, opts...), nil
}

// FitOption configures Fit.
type FitOption func(*Fit)

// WithDeviceClasses has Fit leave the extended resources these classes
// serve to DynamicResources on nodes without allocatable for them.
func WithDeviceClasses(c *extendedresource.Classes) FitOption {
	return func(f *Fit) { f.classes = c }
}

// NewFitWithArgs builds the plugin from args that args.Load returned.
func NewFitWithArgs(a *NodeResourcesFitArgs, opts ...FitOption) *Fit {
	f := &Fit{
		ignoredResources: sets.New(a.IgnoredResources...),
		ignoredGroups:    sets.New(a.IgnoredResourceGroups...),
		scorer:           newFitScorer(a.ScoringStrategy),
		placementScorer:  newResourceScorer(a.ScoringStrategy.Resources, true),
	}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Name returns the plugin's name.
func (*Fit) Name() string { return FitName }

// FilterFingerprint returns the args Fit filters with: the resources and
// groups it ignores. Its scoring strategy does not change which nodes fit.
func (f *Fit) FilterFingerprint() string {
	return strings.Join(sets.List(f.ignoredResources), ",") + ";" + strings.Join(sets.List(f.ignoredGroups), ",")
}

// InsufficientResource is a resource the node has too little of for the pod.
type InsufficientResource struct {
	// ResourceName is the resource.
	ResourceName v1.ResourceName
	// Reason is the filter reason, for example "Insufficient cpu".
	Reason string
	// Requested is what the pod requests.
	Requested int64
	// Used is what the node's pods already request.
	Used int64
	// Capacity is the node's allocatable amount.
	Capacity int64
	// Unresolvable is set when the pod requests more than the node's whole
	// allocatable amount, so no preemption can help.
	Unresolvable bool
}

// scalarRequest is a requested extended resource (or hugepages) with its
// filter reason formatted once per pod.
type scalarRequest struct {
	name   v1.ResourceName
	amount int64
	reason string
	// dra is set when a DeviceClass serves the resource: a node without
	// allocatable for it leaves it to DynamicResources.
	dra bool
}

// fitRequest is what the pod needs of a node, computed once per cycle.
type fitRequest struct {
	milliCPU, memory, ephemeralStorage int64
	scalars                            []scalarRequest
}

// Clone returns the state itself: it is never changed after PreFilter.
func (r *fitRequest) Clone() framework.StateData { return r }

type fitScoreState struct {
	podRequests []int64
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *fitScoreState) Clone() framework.StateData { return s }

// newFitRequest computes the pod's request (init containers, sidecars,
// overhead and pod-level resources counted), leaving out ignored extended
// resources and zero scalar requests.
func newFitRequest(pod *v1.Pod, ignored, ignoredGroups sets.Set[string]) *fitRequest {
	r := framework.PodRequests(pod)
	out := &fitRequest{milliCPU: r.MilliCPU, memory: r.Memory, ephemeralStorage: r.EphemeralStorage}
	for name, amount := range r.ScalarResources {
		if amount == 0 || isIgnored(name, ignored, ignoredGroups) {
			continue
		}
		out.scalars = append(out.scalars, scalarRequest{name: name, amount: amount, reason: "Insufficient " + string(name)})
	}
	slices.SortFunc(out.scalars, func(a, b scalarRequest) int { return strings.Compare(string(a.name), string(b.name)) })
	return out
}

// isIgnored reports whether the args exclude the resource from the filter;
// only extended resources can be ignored.
func isIgnored(name v1.ResourceName, ignored, ignoredGroups sets.Set[string]) bool {
	if !isExtendedResourceName(name) {
		return false
	}
	if ignored.Has(string(name)) {
		return true
	}
	group, _, _ := strings.Cut(string(name), "/")
	return ignoredGroups.Has(group)
}

// isExtendedResourceName reports whether name is a fully qualified resource
// outside the kubernetes.io domains.
func isExtendedResourceName(name v1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, "kubernetes.io/") {
		return false
	}
	return !strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix)
}

// markDRA marks the scalars a DeviceClass serves. It reads the classes only
// when the pod requests an extended resource.
func (r *fitRequest) markDRA(classes *extendedresource.Classes) error {
	if classes == nil {
		return nil
	}
	var names []v1.ResourceName
	for _, s := range r.scalars {
		if extendedresource.IsDRAName(s.name) {
			names = append(names, s.name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	served, err := classes.Resolve(names...)
	if err != nil {
		return err
	}
	for i := range r.scalars {
		_, r.scalars[i].dra = served[r.scalars[i].name]
	}
	return nil
}

func (r *fitRequest) requestsNothing() bool {
	return r.milliCPU == 0 && r.memory == 0 && r.ephemeralStorage == 0 && len(r.scalars) == 0
}

// check appends to out every resource the node lacks for the request, in
// upstream's order: pods, cpu, memory, ephemeral storage, then scalars by
// name. It allocates only when something is lacking.
func (r *fitRequest) check(ni *framework.NodeInfo, out []InsufficientResource) []InsufficientResource {
	alloc, used := ni.Allocatable, ni.Requested
	if pods := int64(len(ni.Pods)); pods+1 > alloc.AllowedPodNumber {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourcePods, Reason: ReasonTooManyPods,
			Requested: 1, Used: pods, Capacity: alloc.AllowedPodNumber,
		})
	}
	if r.requestsNothing() {
		return out
	}
	out = checkOne(out, v1.ResourceCPU, ReasonInsufficientCPU, r.milliCPU, used.MilliCPU, alloc.MilliCPU)
	out = checkOne(out, v1.ResourceMemory, ReasonInsufficientMemory, r.memory, used.Memory, alloc.Memory)
	out = checkOne(out, v1.ResourceEphemeralStorage, ReasonInsufficientEphemeralStorage, r.ephemeralStorage, used.EphemeralStorage, alloc.EphemeralStorage)
	for i := range r.scalars {
		s := &r.scalars[i]
		capacity := alloc.ScalarResources[s.name]
		if s.dra && capacity == 0 {
			continue
		}
		out = checkOne(out, s.name, s.reason, s.amount, used.ScalarResources[s.name], capacity)
	}
	return out
}

func checkOne(out []InsufficientResource, name v1.ResourceName, reason string, want, used, capacity int64) []InsufficientResource {
	if want <= 0 || want <= capacity-used {
		return out
	}
	return append(out, InsufficientResource{
		ResourceName: name, Reason: reason, Requested: want, Used: used, Capacity: capacity,
		Unresolvable: want > capacity,
	})
}

// Fits lists what the node lacks to run the pod, ignoring no resource and
// leaving no extended resource to DRA; an empty result means the pod fits.
func Fits(pod *v1.Pod, ni *framework.NodeInfo) []InsufficientResource {
	return newFitRequest(pod, nil, nil).check(ni, nil)
}

// PreFilter computes the pod's request once for all nodes, and which of its
// extended resources DeviceClasses serve.
func (f *Fit) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	req := newFitRequest(pod, f.ignoredResources, f.ignoredGroups)
	if err := req.markDRA(f.classes); err != nil {
		return nil, framework.AsStatus(err)
	}
	state.Write(fitPreFilterKey, req)
	return nil, nil
}

// PreFilterExtensions returns nil: the state does not depend on other pods.
func (*Fit) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node without enough free resources, giving one reason per
// lacking resource. The status is UnschedulableAndUnresolvable when some
// request exceeds the node's allocatable amount, else Unschedulable.
func (f *Fit) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	req, err := framework.ReadState[*fitRequest](state, fitPreFilterKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %q from cycle state: %w", fitPreFilterKey, err))
	}
	lacking := req.check(ni, nil)
	if len(lacking) == 0 {
		return nil
	}
	code := framework.Unschedulable
	reasons := make([]string, len(lacking))
	for i := range lacking {
		reasons[i] = lacking[i].Reason
		if lacking[i].Unresolvable {
			code = framework.UnschedulableAndUnresolvable
		}
	}
	return framework.NewStatus(code, reasons...)
}

// PreScore computes the pod's request of each scored resource once.
func (f *Fit) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(fitPreScoreKey, &fitScoreState{podRequests: f.scorer.podRequests(pod)})
	return nil
}

// Score scores the node with the configured strategy.
func (f *Fit) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return f.scorer.score(ni, f.scoreRequests(state, pod)), nil
}

// NodeScorer scores like Score with the pod's requests read once.
func (f *Fit) NodeScorer(_ context.Context, state *framework.CycleState, pod *v1.Pod) (framework.NodeScorer, *framework.Status) {
	requests := f.scoreRequests(state, pod)
	return func(ni *framework.NodeInfo) (int64, *framework.Status) { return f.scorer.score(ni, requests), nil }, nil
}

// scoreRequests returns the pod's request of each scored resource, as
// PreScore stored it or, when PreScore did not run, computed now.
func (f *Fit) scoreRequests(state *framework.CycleState, pod *v1.Pod) []int64 {
	if s, err := framework.ReadState[*fitScoreState](state, fitPreScoreKey); err == nil {
		return s.podRequests
	}
	return f.scorer.podRequests(pod)
}

// ScoreExtensions returns nil: scores are already in [0, MaxNodeScore].
func (*Fit) ScoreExtensions() framework.ScoreExtensions { return nil }
