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

// Package volumebinding implements VolumeBinding, which keeps pods on nodes
// where their PersistentVolumeClaims can be used: bound claims' PVs must
// admit the node, and claims of WaitForFirstConsumer classes must find an
// available PV there or be provisionable there. It reserves the chosen PVs
// in memory and, at PreBind, asks the PV controller to bind them.
//
// The plugin never binds a claim itself. It writes the decision — a PV's
// spec.claimRef for an existing volume, the volume.kubernetes.io/selected-node
// annotation for a claim to provision — and waits for the PV controller (and
// the external provisioner) to complete the binding, as kube-scheduler does.
package volumebinding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.VolumeBinding

// ErrReasonUnboundImmediate is the PreFilter reason for a pod whose claims
// of Immediate classes are not bound yet.
const ErrReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"

const (
	stateKey framework.StateKey = Name
	// classIndex is the PV informer index by storage class.
	classIndex = "berth.io/volumebinding-storageclass"
	// defaultPollInterval is how often PreBind looks at the informer caches
	// while waiting for the PV controller.
	defaultPollInterval = time.Second
)

// VolumeBinding checks, reserves and binds a pod's persistent volumes.
type VolumeBinding struct {
	client     kubernetes.Interface
	pvcs       *assumeCache[*v1.PersistentVolumeClaim]
	pvs        *assumeCache[*v1.PersistentVolume]
	classes    storagelisters.StorageClassLister
	drivers    storagelisters.CSIDriverLister
	capacities storagelisters.CSIStorageCapacityLister
	nodes      corelisters.NodeLister
	pods       corelisters.PodLister

	bindTimeout  time.Duration
	pollInterval time.Duration
	clock        clock.WithTicker
	shape        []UtilizationShapePoint
}

var (
	_ framework.PreFilterPlugin   = &VolumeBinding{}
	_ framework.FilterPlugin      = &VolumeBinding{}
	_ framework.PreScorePlugin    = &VolumeBinding{}
	_ framework.ScorePlugin       = &VolumeBinding{}
	_ framework.ReservePlugin     = &VolumeBinding{}
	_ framework.PreBindPlugin     = &VolumeBinding{}
	_ framework.EnqueueExtensions = &VolumeBinding{}
	_ framework.SignPlugin        = &VolumeBinding{}
)

// Option configures the plugin.
type Option func(*VolumeBinding)

// WithClock sets the clock PreBind waits with.
func WithClock(c clock.WithTicker) Option { return func(pl *VolumeBinding) { pl.clock = c } }

// New is the plugin's factory: it decodes and validates VolumeBindingArgs.
func New(ctx context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[VolumeBindingArgs]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(ctx, a, h)
}

// NewWithArgs builds the plugin from args that args.Load returned, reading PVCs, PVs,
// StorageClasses, CSIDrivers, CSIStorageCapacities, nodes and pods through
// the handle's informer factory.
func NewWithArgs(_ context.Context, a *VolumeBindingArgs, h framework.Handle, opts ...Option) (*VolumeBinding, error) {
	f := h.SharedInformerFactory()
	if f == nil {
		return nil, fmt.Errorf("plugin %s needs an informer factory", Name)
	}
	pvInformer := f.Core().V1().PersistentVolumes().Informer()
	// Profiles share the informer; an identical index may already be there.
	if err := pvInformer.AddIndexers(cache.Indexers{classIndex: pvStorageClass}); err != nil {
		if _, exists := pvInformer.GetIndexer().GetIndexers()[classIndex]; !exists {
			return nil, fmt.Errorf("indexing PVs by storage class: %w", err)
		}
	}
	storage := f.Storage().V1()
	pl := &VolumeBinding{
		client:       h.ClientSet(),
		pvcs:         newAssumeCache[*v1.PersistentVolumeClaim](f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(), "persistentvolumeclaims"),
		pvs:          newAssumeCache[*v1.PersistentVolume](pvInformer.GetIndexer(), "persistentvolumes"),
		classes:      storage.StorageClasses().Lister(),
		drivers:      storage.CSIDrivers().Lister(),
		capacities:   storage.CSIStorageCapacities().Lister(),
		nodes:        f.Core().V1().Nodes().Lister(),
		pods:         f.Core().V1().Pods().Lister(),
		bindTimeout:  time.Duration(*a.BindTimeoutSeconds) * time.Second,
		pollInterval: defaultPollInterval,
		clock:        clock.RealClock{},
		shape:        a.Shape,
	}
	// CSINodes matter to upstream only to translate in-tree PVs to CSI; the
	// informer is still registered so its events reach this plugin's hints.
	_ = storage.CSINodes().Informer()
	for _, o := range opts {
		o(pl)
	}
	return pl, nil
}

// Name returns the plugin's name.
func (*VolumeBinding) Name() string { return Name }

// SignPod signs the pod by its volumes, whose claims are what the plugin
// binds; ConfigMaps and Secrets are left out.
func (*VolumeBinding) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	volumes, err := framework.VolumesSignature(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{{Key: framework.VolumesSignKey, Value: volumes}}, nil
}

// stateData is the pod's claims and, per feasible node, how its delayed
// claims would bind there. Filter runs in parallel, so byNode is guarded.
// Clone returns the same pointer, as upstream: preemption's simulations do
// not change it.
type stateData struct {
	claims *podClaims

	mu     sync.Mutex
	byNode map[string]*nodeVolumes
	// scorable is set when some node has volumes Score can weigh.
	scorable atomic.Bool

	// reserved is what Reserve assumed, and allBound whether there was
	// nothing to assume; both are set once, in the serial Reserve.
	reserved *nodeVolumes
	allBound bool
}

// Clone returns the state itself.
func (s *stateData) Clone() framework.StateData { return s }

// preBindHasWork reports whether PreBind has claims to write and wait for;
// a missing reservation counts, as PreBind reports it.
func (s *stateData) preBindHasWork() bool {
	return !s.allBound && (s.reserved == nil || len(s.reserved.static) > 0 || len(s.reserved.provision) > 0)
}

func (s *stateData) forNode(name string) *nodeVolumes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byNode[name]
}

func readState(cs *framework.CycleState) (*stateData, error) {
	return framework.ReadState[*stateData](cs, stateKey)
}

// PreFilter reads the pod's claims. A pod without claims skips the plugin.
// A missing, lost or terminating claim, and an unbound claim of an
// Immediate class, reject the pod on every node.
func (pl *VolumeBinding) PreFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !hasClaims(pod) {
		return nil, framework.Skipped()
	}
	pc, err := pl.classify(pod)
	if err != nil {
		var unusable *unusableClaimError
		if errors.As(err, &unusable) {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, unusable.msg)
		}
		return nil, framework.AsStatus(fmt.Errorf("reading the claims of pod %s: %w", framework.PodKey(pod), err))
	}
	if len(pc.immediate) > 0 {
		// The PV controller binds these; the pod is retried on the PVC update.
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnboundImmediate)
	}
	s := &stateData{claims: pc}
	if len(pc.delayed) > 0 {
		s.byNode = make(map[string]*nodeVolumes)
	}
	cs.Write(stateKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil: other pods do not change the result.
func (*VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks that the bound claims' PVs admit the node and that every
// delayed claim can bind an available PV or be provisioned there, and keeps
// the per-node decision for Reserve. Bound-only pods are checked without
// allocating.
func (pl *VolumeBinding) Filter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	s, err := readState(cs)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: %w", framework.PodKey(pod), err))
	}
	v := checkBound(s.claims.bound, node)
	if len(s.claims.delayed) == 0 {
		if v.ok() {
			return nil
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, v.reasons()...)
	}
	nv, err := pl.findVolumes(klog.FromContext(ctx), s.claims, node, &v)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !v.ok() {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, v.reasons()...)
	}
	s.mu.Lock()
	s.byNode[node.Name] = nv
	s.mu.Unlock()
	if nv.scorable() {
		s.scorable.Store(true)
	}
	return nil
}

// PreScore skips Score unless some feasible node would bind an existing PV
// or provision from tracked capacity; otherwise every node scores 0.
func (pl *VolumeBinding) PreScore(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	s, err := readState(cs)
	if err != nil || !s.scorable.Load() {
		return framework.Skipped()
	}
	return nil
}

// classUse is one storage class's requested and available bytes on a node.
type classUse struct {
	class               string
	requested, capacity int64
}

// Score rates the node by the utilization of each storage class the pod
// would use there, through the args' shape, averaged over the classes.
// Existing PVs count when the node has any; else provisioned volumes with
// tracked capacity do.
func (pl *VolumeBinding) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, err := readState(cs)
	if err != nil {
		return 0, nil
	}
	nv := s.forNode(nodeInfo.Node().Name)
	if nv == nil {
		return 0, nil
	}
	var buf [4]classUse
	uses := buf[:0]
	if len(nv.static) > 0 {
		for _, b := range nv.static {
			req := b.pvc.Spec.Resources.Requests[v1.ResourceStorage]
			capQ := b.pv.Spec.Capacity[v1.ResourceStorage]
			var i int
			uses, i = useOf(uses, b.pv.Spec.StorageClassName)
			uses[i].requested += req.Value()
			uses[i].capacity += capQ.Value()
		}
	} else {
		for _, p := range nv.provision {
			if p.capacity == nil {
				continue
			}
			req := p.pvc.Spec.Resources.Requests[v1.ResourceStorage]
			var i int
			uses, i = useOf(uses, p.capacity.StorageClassName)
			// Volumes of one class share the same pool: its capacity counts once.
			if p.capacity.Capacity != nil {
				uses[i].capacity = p.capacity.Capacity.Value()
			}
			uses[i].requested += req.Value()
		}
	}
	return pl.scoreUses(uses), nil
}

// useOf returns the entry of the class in uses, adding it if missing.
func useOf(uses []classUse, class string) ([]classUse, int) {
	for i := range uses {
		if uses[i].class == class {
			return uses, i
		}
	}
	return append(uses, classUse{class: class}), len(uses)
}

func (pl *VolumeBinding) scoreUses(uses []classUse) int64 {
	if len(uses) == 0 {
		return 0
	}
	var sum int64
	for _, u := range uses {
		util := int64(maxUtilization)
		if u.capacity > 0 && u.requested <= u.capacity {
			util = u.requested * maxUtilization / u.capacity
		}
		sum += shapeScore(pl.shape, util)
	}
	return int64(math.Round(float64(sum) / float64(len(uses))))
}

// shapeScore interpolates the shape linearly at utilization p and scales
// the result to framework.MaxNodeScore.
func shapeScore(shape []UtilizationShapePoint, p int64) int64 {
	scale := framework.MaxNodeScore / int64(MaxCustomPriorityScore)
	for i := range shape {
		u := int64(shape[i].Utilization)
		if p > u {
			continue
		}
		if i == 0 {
			return int64(shape[0].Score) * scale
		}
		u0, s0, s1 := int64(shape[i-1].Utilization), int64(shape[i-1].Score)*scale, int64(shape[i].Score)*scale
		return s0 + (s1-s0)*(p-u0)/(u-u0)
	}
	return int64(shape[len(shape)-1].Score) * scale
}

// ScoreExtensions returns nil: scores are already in [0, 100].
func (*VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }

// Reserve assumes the node's decision in memory — the chosen PVs carry the
// claims' references and the claims to provision carry the selected node —
// so later pods see those PVs as taken before the API writes land.
func (pl *VolumeBinding) Reserve(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	s, err := readState(cs)
	if err != nil {
		return nil // no claims
	}
	if len(s.claims.delayed) == 0 {
		s.allBound = true
		return nil
	}
	nv := s.forNode(nodeName)
	if nv == nil {
		return framework.AsStatus(fmt.Errorf("reserving volumes of pod %s: no volume decision for node %q", framework.PodKey(pod), nodeName))
	}
	reserved, err := pl.assume(nv, nodeName)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reserving volumes of pod %s: %w", framework.PodKey(pod), err))
	}
	s.reserved = reserved
	klog.FromContext(ctx).V(4).Info("assumed pod volumes", "pod", klog.KObj(pod), "node", nodeName,
		"staticBindings", len(reserved.static), "provisionings", len(reserved.provision))
	return nil
}

// assume writes the decision into the assume caches and returns it with the
// assumed objects; on failure it undoes what it assumed.
func (pl *VolumeBinding) assume(nv *nodeVolumes, nodeName string) (*nodeVolumes, error) {
	out := &nodeVolumes{}
	for _, b := range nv.static {
		pv, changed, err := bindVolumeToClaim(b.pv, b.pvc)
		if err == nil && changed {
			err = pl.pvs.assume(pv)
		}
		if err != nil {
			pl.revert(out)
			return nil, err
		}
		out.static = append(out.static, staticBinding{pvc: b.pvc, pv: pv})
	}
	for _, p := range nv.provision {
		pvc := withSelectedNode(p.pvc, nodeName)
		if err := pl.pvcs.assume(pvc); err != nil {
			pl.revert(out)
			return nil, err
		}
		out.provision = append(out.provision, provisioning{pvc: pvc, capacity: p.capacity})
	}
	return out, nil
}

// revert drops the assumed objects of a decision.
func (pl *VolumeBinding) revert(nv *nodeVolumes) {
	for _, b := range nv.static {
		pl.pvs.restore(b.pv)
	}
	for _, p := range nv.provision {
		pl.pvcs.restore(p.pvc)
	}
}

// Unreserve drops what Reserve assumed. It is idempotent.
func (pl *VolumeBinding) Unreserve(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) {
	s, err := readState(cs)
	if err != nil || s.reserved == nil {
		return
	}
	pl.revert(s.reserved)
}
