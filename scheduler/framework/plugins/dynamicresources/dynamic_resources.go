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

// Package dynamicresources implements DynamicResources, which places pods
// that use dynamic resource allocation (spec.resourceClaims) as
// kube-scheduler v1.37 does: it waits for a pod's claims to exist, finds per
// node whether Kubernetes' structured allocator can satisfy the unallocated
// ones from that node's ResourceSlices (and whether allocated ones are
// usable there), keeps the chosen devices in flight from Reserve until
// PreBind has written each claim's status.allocation and status.reservedFor,
// and waits at PreBind for devices with binding conditions.
package dynamicresources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/dra"
	"github.com/berth-io/berth/scheduler/framework/plugins/extendedresource"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.DynamicResources

// Reasons a pod gets, as upstream words them.
const (
	// ErrReasonCannotAllocate is Filter's reason when the allocator finds
	// no devices for the pod's claims on a node.
	ErrReasonCannotAllocate = "cannot allocate all claims"
	// ErrReasonNotAvailable is Filter's reason when an allocated claim
	// cannot be used on a node.
	ErrReasonNotAvailable = "resourceclaim not available on the node"
	// ErrReasonInUse is PreFilter's reason when a claim is allocated and
	// cannot be reserved for one more consumer.
	ErrReasonInUse = "resourceclaim in use"
	// ReasonDeallocated is PostFilter's status after it freed a claim so
	// that the next attempt may allocate it elsewhere.
	ReasonDeallocated = "deallocation of ResourceClaim completed"
)

const (
	stateKey framework.StateKey = Name
	// sharedTrackerKey keys the claim tracker every profile shares.
	sharedTrackerKey = Name + "/claims"
	// celCacheSize is how many compiled CEL expressions are kept between cycles.
	celCacheSize = 10
	// defaultPollInterval is how often PreBind looks at binding conditions.
	defaultPollInterval = 5 * time.Second
)

var (
	// ErrDeviceBindingTimeout is wrapped by PreBind's error when devices'
	// binding conditions were not met within bindingTimeout.
	ErrDeviceBindingTimeout = errors.New("device binding timeout")
	// ErrDeviceBindingFailed is wrapped by PreBind's error when a device's
	// binding failure condition became true.
	ErrDeviceBindingFailed = errors.New("device binding failed")
)

// allocatorFeatures are the allocator's features that kube-scheduler v1.37
// turns on with its default feature gates: admin access, prioritized lists,
// partitionable devices, device taints, binding conditions with device
// status, consumable capacity and fractional capacity ranges.
func allocatorFeatures() structured.Features {
	return structured.Features{
		AdminAccess:             true,
		PrioritizedList:         true,
		PartitionableDevices:    true,
		DeviceTaints:            true,
		DeviceBindingAndStatus:  true,
		ConsumableCapacity:      true,
		FractionalCapacityRange: true,
	}
}

// DynamicResources allocates and reserves a pod's ResourceClaims.
type DynamicResources struct {
	client  kubernetes.Interface
	handle  framework.Handle
	tracker *claimTracker
	slices  dra.SliceSource
	classes classLister
	// extended resolves the extended resources DeviceClasses serve.
	extended *extendedresource.Classes
	celCache *cel.Cache
	features structured.Features

	filterTimeout  time.Duration
	bindingTimeout time.Duration
	pollInterval   time.Duration
	clock          clock.WithTicker
}

var (
	_ framework.PreEnqueuePlugin       = &DynamicResources{}
	_ framework.PreFilterPlugin        = &DynamicResources{}
	_ framework.FilterPlugin           = &DynamicResources{}
	_ framework.PostFilterPlugin       = &DynamicResources{}
	_ framework.PreScorePlugin         = &DynamicResources{}
	_ framework.ScorePlugin            = &DynamicResources{}
	_ framework.ReservePlugin          = &DynamicResources{}
	_ framework.PreBindPreFlightPlugin = &DynamicResources{}
	_ framework.EnqueueExtensions      = &DynamicResources{}
	_ framework.SignPlugin             = &DynamicResources{}
)

// Option configures the plugin.
type Option func(*DynamicResources)

// WithClock sets the clock PreBind waits with and binding timeouts are measured on.
func WithClock(c clock.WithTicker) Option { return func(pl *DynamicResources) { pl.clock = c } }

// WithPollInterval sets how often PreBind checks devices' binding conditions.
func WithPollInterval(d time.Duration) Option {
	return func(pl *DynamicResources) { pl.pollInterval = d }
}

// pluginStateSharer is the part of the scheduler's handle that shares
// plugin state across profiles.
type pluginStateSharer interface {
	SharedPluginState() *framework.SharedPluginState
}

// New is the plugin's factory: it loads Args with args.Load and builds the
// plugin from them.
func New(ctx context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(ctx, a, h)
}

// NewWithArgs builds the plugin from args that args.Load returned, reading ResourceClaims,
// ResourceSlices and DeviceClasses through the handle's informer factory.
func NewWithArgs(_ context.Context, a *Args, h framework.Handle, opts ...Option) (*DynamicResources, error) {
	if h == nil || h.SharedInformerFactory() == nil {
		return nil, fmt.Errorf("plugin %s needs an informer factory", Name)
	}
	resources := h.SharedInformerFactory().Resource().V1()
	pl := &DynamicResources{
		client:         h.ClientSet(),
		handle:         h,
		classes:        classLister{lister: resources.DeviceClasses().Lister()},
		extended:       extendedresource.NewClasses(resources.DeviceClasses().Lister()),
		celCache:       cel.NewCache(celCacheSize, cel.Features{EnableConsumableCapacity: true}),
		features:       allocatorFeatures(),
		filterTimeout:  a.FilterTimeout.Duration,
		bindingTimeout: a.BindingTimeout.Duration,
		pollInterval:   defaultPollInterval,
		clock:          clock.RealClock{},
	}
	for _, o := range opts {
		o(pl)
	}
	claims := resources.ResourceClaims().Lister()
	// Without the scheduler's index the tracker lists claims, and without
	// its slice tracker the plugin lists slices as the informer has them.
	index := h.AllocatedDevices()
	newTracker := func() any { return newClaimTracker(claims, index, pl.clock) }
	var slices dra.SliceSource = listerSource{lister: resources.ResourceSlices().Lister()}
	if s := h.ResourceSlices(); s != nil {
		slices = s
	}
	if s, ok := h.(pluginStateSharer); ok && s.SharedPluginState() != nil {
		pl.tracker = s.SharedPluginState().LoadOrStore(sharedTrackerKey, newTracker).(*claimTracker)
	} else {
		pl.tracker = newTracker().(*claimTracker)
	}
	pl.slices = slices
	return pl, nil
}

// Name returns the plugin's name.
func (*DynamicResources) Name() string { return Name }

// reasonClaimsSignature is SignPod's reason for a pod with resource claims.
const reasonClaimsSignature = "pods with dra resource claims are not signable"

// SignPod declines a pod with resource claims: their allocation differs
// from pod to pod. Any other pod signs with nothing from this plugin; a
// pod requesting extended resources that DeviceClasses serve is declined
// by NodeResourcesFit instead.
func (*DynamicResources) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	if len(pod.Spec.ResourceClaims) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, reasonClaimsSignature)
	}
	return nil, nil
}

// stateData is what PreFilter learns about the pod's claims and what the
// later extension points add. Filter runs in parallel over nodes, so its
// results are guarded by mu. Clone returns the same pointer, as upstream:
// preemption's simulations do not change it.
type stateData struct {
	// claims are the pod's claims, as read in PreFilter and as PreBind wrote
	// them, followed by the claim for its extended resources, if any.
	claims []*resourceapi.ResourceClaim
	// ext describes that last claim; nil when the pod requests no extended
	// resource a DeviceClass serves.
	ext *extendedState
	// availableOn is, per allocated claim, the nodes its allocation allows (nil: any).
	availableOn []*nodeaffinity.NodeSelector
	// toAllocate are the indexes of the claims the plugin allocates, and
	// unallocated the claims themselves, in the same order.
	toAllocate  []int
	unallocated []*resourceapi.ResourceClaim
	// allocator allocates unallocated for a node; nil when there are none.
	allocator structured.Allocator

	mu sync.Mutex
	// unavailable are indexes of allocated claims some node could not use.
	unavailable sets.Set[int]
	// byNode holds each feasible node's allocations, in toAllocate's order.
	byNode map[string][]resourceapi.AllocationResult
	// extByNode holds each feasible node's extended claim, nil where the
	// node's device plugins serve the extended resources.
	extByNode map[string]*nodeExtended

	// allocations are, per claim, the allocations Reserve put in flight;
	// set in Reserve, read in the binding cycle.
	allocations []*resourceapi.AllocationResult
	// chosenExt is the extended claim of the node Reserve was given, nil
	// when there is none to create.
	chosenExt *nodeExtended
}

// isExt reports whether claim i is the claim for the pod's extended resources.
func (s *stateData) isExt(i int) bool { return s.ext != nil && i == s.ext.index }

// Clone returns the state itself.
func (s *stateData) Clone() framework.StateData { return s }

// readState returns the cycle's state, or nil when PreFilter left none
// (the pod has no claims).
func readState(cs *framework.CycleState) *stateData {
	s, err := framework.ReadState[*stateData](cs, stateKey)
	if err != nil {
		return nil
	}
	return s
}

// PreEnqueue keeps a pod out of the active queue until each of its claims
// exists: a claim from a template must have been created by the
// resourceclaim controller and recorded in the pod's status.
func (pl *DynamicResources) PreEnqueue(ctx context.Context, pod *v1.Pod) *framework.Status {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil
	}
	if _, err := pl.podClaims(pod); err != nil {
		return unschedulable(klog.FromContext(ctx), pod, err.Error())
	}
	return nil
}

// PreFilter reads the pod's claims, checks that unallocated ones can be
// allocated at all (their device classes exist, no other pod is allocating
// them), and prepares an allocator over every ResourceSlice with the devices
// already taken, including those in flight. It adds the claim for the pod's
// extended resources that DeviceClasses serve, if any. A pod with neither
// skips the plugin.
func (pl *DynamicResources) PreFilter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	logger := klog.FromContext(ctx)
	relocation := framework.IsRelocation(cs)
	ext, extClaim, extReleased, err := pl.preFilterExtended(pod, relocation)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(pod.Spec.ResourceClaims) == 0 && ext == nil {
		return nil, framework.Skipped()
	}
	claims, err := pl.podClaims(pod)
	if err != nil {
		return nil, unschedulable(logger, pod, err.Error())
	}
	if ext != nil {
		ext.index = len(claims)
		claims = append(claims, extClaim)
	}
	if len(claims) == 0 {
		return nil, framework.Skipped()
	}
	s := &stateData{
		claims:      claims,
		ext:         ext,
		availableOn: make([]*nodeaffinity.NodeSelector, len(claims)),
		byNode:      make(map[string][]resourceapi.AllocationResult),
		extByNode:   make(map[string]*nodeExtended),
	}
	var released sets.Set[types.UID]
	if relocation {
		released = releaseOwnClaims(pod, claims)
		if extReleased != "" {
			released.Insert(extReleased)
		}
	}
	for i, claim := range claims {
		if s.isExt(i) {
			// Filter judges it per node.
			continue
		}
		if claim.Status.Allocation != nil {
			if !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, false) {
				return nil, unschedulable(logger, pod, ErrReasonInUse)
			}
			if sel := claim.Status.Allocation.NodeSelector; sel != nil {
				ns, err := nodeaffinity.NewNodeSelector(sel)
				if err != nil {
					return nil, framework.AsStatus(fmt.Errorf("node selector of resource claim %s: %w", klog.KObj(claim), err))
				}
				s.availableOn[i] = ns
			}
			continue
		}
		if pl.tracker.pending(claim.UID) != nil {
			return nil, unschedulable(logger, pod, fmt.Sprintf("resource claim %s is in the process of being allocated", klog.KObj(claim)))
		}
		if st := pl.checkRequests(logger, pod, claim); st != nil {
			return nil, st
		}
		s.toAllocate = append(s.toAllocate, i)
		s.unallocated = append(s.unallocated, claim)
	}
	if len(s.toAllocate) > 0 || (ext != nil && !ext.stale) {
		allocated, err := pl.tracker.allocatedState(released)
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		resourceSlices, err := pl.slices.ListPatchedResourceSlices()
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("listing resource slices: %w", err))
		}
		s.allocator, err = structured.NewAllocator(ctx, pl.features, allocated, pl.classes, resourceSlices, pl.celCache)
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("preparing the allocator: %w", err))
		}
	}
	cs.Write(stateKey, s)
	return nil, nil
}

// releaseOwnClaims prepares a relocation cycle (framework.MarkRelocation):
// each allocated claim reserved for the pod alone is what the pod's
// eviction would release (the resourceclaim controller deallocates it, or
// deletes it with the pod when it came from a template and the
// replacement gets a new one from the same template). Such a claim is
// replaced in claims by a copy without allocation, so that it is allocated
// afresh on each node, and its UID is returned so that its devices count
// as free. Claims other pods also use stay as they are.
func releaseOwnClaims(pod *v1.Pod, claims []*resourceapi.ResourceClaim) sets.Set[types.UID] {
	released := sets.New[types.UID]()
	for i, claim := range claims {
		reserved := claim.Status.ReservedFor
		if claim.Status.Allocation == nil || len(reserved) != 1 || reserved[0].UID != pod.UID {
			continue
		}
		free := claim.DeepCopy()
		free.Status = resourceapi.ResourceClaimStatus{}
		claims[i] = free
		released.Insert(claim.UID)
	}
	return released
}

// checkRequests checks that every device class an unallocated claim's
// requests name exists.
func (pl *DynamicResources) checkRequests(logger logr.Logger, pod *v1.Pod, claim *resourceapi.ResourceClaim) *framework.Status {
	for _, req := range claim.Spec.Devices.Requests {
		switch {
		case req.Exactly != nil:
			if st := pl.checkClass(logger, pod, req.Exactly.DeviceClassName, req.Name); st != nil {
				return st
			}
		case len(req.FirstAvailable) > 0:
			for _, sub := range req.FirstAvailable {
				if st := pl.checkClass(logger, pod, sub.DeviceClassName, resourceclaim.CreateSubRequestRef(req.Name, sub.Name)); st != nil {
					return st
				}
			}
		default:
			return unschedulable(logger, pod, fmt.Sprintf("resource claim %s, request %s: unknown request type", klog.KObj(claim), req.Name))
		}
	}
	return nil
}

// checkClass reports a missing device class as unschedulable: the pod waits
// for the class to be created.
func (pl *DynamicResources) checkClass(logger logr.Logger, pod *v1.Pod, className, requestName string) *framework.Status {
	if className == "" {
		return framework.AsStatus(fmt.Errorf("request %s: unsupported request type", requestName))
	}
	_, err := pl.classes.Get(className)
	switch {
	case apierrors.IsNotFound(err):
		return unschedulable(logger, pod, fmt.Sprintf("request %s: device class %s does not exist", requestName, className))
	case err != nil:
		return framework.AsStatus(fmt.Errorf("reading device class %s: %w", className, err))
	}
	return nil
}

// PreFilterExtensions returns nil: preemption does not change the claims.
func (*DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks that the pod's allocated claims may be used on the node
// (their node selector matches, their devices' binding has not failed or
// timed out) and that the allocator finds devices there for the others.
func (pl *DynamicResources) Filter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s := readState(cs)
	if s == nil || len(s.claims) == 0 {
		return nil
	}
	logger := klog.FromContext(ctx)
	node := nodeInfo.Node()
	var ext *nodeExtended
	if s.ext != nil {
		var st *framework.Status
		if ext, st = filterExtended(logger, s, pod, nodeInfo); st != nil {
			return st
		}
		if ext == nil && len(s.claims) == 1 {
			// Device plugins serve the pod's extended resources here.
			return nil
		}
	}
	var unavailable []int
	for i, claim := range s.claims {
		if sel := s.availableOn[i]; sel != nil && !sel.Match(node) {
			unavailable = append(unavailable, i)
			continue
		}
		if claim.Status.Allocation != nil {
			ready, err := readyForBinding(claim)
			if err != nil || (!ready && pl.bindingTimedOut(claim)) {
				unavailable = append(unavailable, i)
			}
		}
	}
	var allocations []resourceapi.AllocationResult
	toAllocate := s.unallocated
	if ext != nil {
		toAllocate = append(slices.Clip(toAllocate), ext.claim)
	}
	if s.allocator != nil && len(toAllocate) > 0 {
		allocCtx := ctx
		if pl.filterTimeout > 0 {
			var cancel context.CancelFunc
			allocCtx, cancel = context.WithTimeout(ctx, pl.filterTimeout)
			defer cancel()
		}
		results, err := s.allocator.Allocate(allocCtx, node, toAllocate)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return framework.AsStatus(fmt.Errorf("node %s: timed out trying to allocate devices", node.Name))
		case errors.Is(err, structured.ErrFailedAllocationOnNode):
			return unschedulable(logger, pod, err.Error())
		case ctx.Err() != nil:
			return unschedulable(logger, pod, fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)))
		case err != nil:
			return framework.AsStatus(fmt.Errorf("allocating devices on node %s: %w", node.Name, err))
		}
		if len(results) != len(toAllocate) {
			return unschedulable(logger, pod, ErrReasonCannotAllocate)
		}
		allocations = results
		if ext != nil {
			ext.allocation = &results[len(s.unallocated)]
			allocations = results[:len(s.unallocated)]
		}
	}
	if len(unavailable) > 0 {
		s.mu.Lock()
		if s.unavailable == nil {
			s.unavailable = sets.New[int]()
		}
		s.unavailable.Insert(unavailable...)
		s.mu.Unlock()
		return unschedulable(logger, pod, ErrReasonNotAvailable)
	}
	if allocations != nil || ext != nil {
		s.mu.Lock()
		if allocations != nil {
			s.byNode[node.Name] = allocations
		}
		s.extByNode[node.Name] = ext
		s.mu.Unlock()
	}
	return nil
}

// PostFilter frees, when no node fits, one allocated claim that some node
// could not use and that no other pod uses, so that the next attempt may
// allocate it where the pod fits. Upstream picks the claim at random, as
// here (set order).
func (pl *DynamicResources) PostFilter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, _ framework.NodeToStatusReader) (*framework.PostFilterResult, *framework.Status) {
	s := readState(cs)
	if s == nil || len(s.claims) == 0 {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	s.mu.Lock()
	candidates := s.unavailable.UnsortedList()
	s.mu.Unlock()
	for _, i := range candidates {
		if s.isExt(i) {
			continue
		}
		claim := s.claims[i]
		reserved := claim.Status.ReservedFor
		if len(reserved) > 1 || (len(reserved) == 1 && reserved[0].UID != pod.UID) {
			continue
		}
		freed := claim.DeepCopy()
		freed.Status.ReservedFor = nil
		freed.Status.Allocation = nil
		freed.Status.Devices = nil
		klog.FromContext(ctx).V(5).Info("Deallocating resource claim", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim))
		if _, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, freed, metav1.UpdateOptions{}); err != nil {
			return nil, framework.AsStatus(fmt.Errorf("deallocating resource claim %s: %w", klog.KObj(claim), err))
		}
		return nil, framework.NewStatus(framework.Unschedulable, ReasonDeallocated)
	}
	if s.ext != nil && s.ext.stale {
		// The claim an earlier attempt made goes, and with it its devices;
		// its deletion retries the pod.
		if err := pl.deleteExtendedClaim(ctx, s.claims[s.ext.index]); err != nil {
			return nil, framework.AsStatus(err)
		}
		return nil, framework.NewStatus(framework.Unschedulable, ReasonExtendedClaimDeleted)
	}
	return nil, framework.NewStatus(framework.Unschedulable)
}

// unschedulable logs why the pod cannot be scheduled and returns that as
// UnschedulableAndUnresolvable, as upstream does for every DRA rejection:
// preemption cannot free devices, so only a cluster event helps.
func unschedulable(logger logr.Logger, pod *v1.Pod, reason string) *framework.Status {
	logger.V(5).Info("Pod unschedulable", "pod", klog.KObj(pod), "reason", reason)
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason)
}
