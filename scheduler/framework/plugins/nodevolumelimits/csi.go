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

// Package nodevolumelimits implements NodeVolumeLimits, which keeps a pod off
// nodes where attaching its CSI volumes would exceed a driver's attach limit
// (CSINode spec.drivers[].allocatable.count).
//
// Volumes are counted per CSI driver and by volume handle, so a volume shared
// by several pods on a node counts once. Counted are the volumes of the
// node's pods (claims and generic ephemeral volumes), VolumeAttachments to
// the node, and the new pod's own volumes. Unlike upstream, in-tree volumes
// are never translated to their CSI drivers (k8s.io/csi-translation-lib is
// not a dependency of Berth): only volumes whose PersistentVolume has a CSI
// source, or whose unbound claim's StorageClass names a provisioner, count.
package nodevolumelimits

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-helpers/storage/ephemeral"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.NodeVolumeLimits

// ErrReasonMaxVolumeCountExceeded is the Filter reason for a node whose
// attach limit the pod would exceed, worded as upstream v1.37 words it.
const ErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count"

// driverNotInstalledFmt words the rejection of a node that lacks a CSI driver
// which asks, through its CSIDriver object, to be present for scheduling.
const driverNotInstalledFmt = "%s CSI driver is not installed on the node"

// attachmentsByNode names the VolumeAttachment index by spec.nodeName.
const attachmentsByNode = "va.spec.nodename"

const stateKey framework.StateKey = "PreFilter" + Name

// Where a counted volume was seen on a node.
const (
	seenOnPod uint8 = 1 << iota
	seenAttached
)

// volumeKey identifies a volume for counting: by its CSI handle once bound,
// or by its claim while unbound (so an unbound claim shared by two pods
// counts once, and never collides with a real handle).
type volumeKey struct {
	driver string
	handle string
	claim  string
}

// driverNeed is a CSI driver the pod uses and whether its CSIDriver object
// demands that the driver be installed on the node.
type driverNeed struct {
	name             string
	mustBeInstalled  bool
	installCheckFail *framework.Status
}

// CSILimits enforces per-node CSI attach limits.
type CSILimits struct {
	pvcLister       corelisters.PersistentVolumeClaimLister
	csiDriverLister storagelisters.CSIDriverLister
	pvcs            cache.Indexer
	pvs             cache.Indexer
	classes         cache.Indexer
	csiNodes        cache.Indexer
	attachments     cache.Indexer

	// requireInstalledDrivers mirrors upstream's VolumeLimitScaling feature
	// gate, beta and on by default in v1.37: a node missing a driver whose
	// CSIDriver sets preventPodSchedulingIfMissing is rejected.
	requireInstalledDrivers bool

	// seen pools the per-Filter sets of counted volumes, so Filter does not
	// allocate once the pool is warm.
	seen sync.Pool
}

var (
	_ framework.PreFilterPlugin   = &CSILimits{}
	_ framework.FilterPlugin      = &CSILimits{}
	_ framework.EnqueueExtensions = &CSILimits{}
	_ framework.SignPlugin        = &CSILimits{}
	_ framework.StateData         = &preFilterState{}
)

// New is the plugin's factory; NodeVolumeLimits takes no args. It reads
// claims, volumes, storage classes, CSINodes, CSIDrivers and
// VolumeAttachments through the handle's shared informer factory, and adds a
// by-node index to the VolumeAttachment informer.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	if h == nil || h.SharedInformerFactory() == nil {
		return nil, fmt.Errorf("plugin %s needs a handle with a shared informer factory", Name)
	}
	f := h.SharedInformerFactory()
	vaInformer := f.Storage().V1().VolumeAttachments().Informer()
	if err := vaInformer.AddIndexers(cache.Indexers{attachmentsByNode: attachmentNode}); err != nil {
		// Another profile's instance may have added the same index already.
		if _, ok := vaInformer.GetIndexer().GetIndexers()[attachmentsByNode]; !ok {
			return nil, fmt.Errorf("indexing VolumeAttachments by node: %w", err)
		}
	}
	pl := &CSILimits{
		pvcLister:               f.Core().V1().PersistentVolumeClaims().Lister(),
		csiDriverLister:         f.Storage().V1().CSIDrivers().Lister(),
		pvcs:                    f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(),
		pvs:                     f.Core().V1().PersistentVolumes().Informer().GetIndexer(),
		classes:                 f.Storage().V1().StorageClasses().Informer().GetIndexer(),
		csiNodes:                f.Storage().V1().CSINodes().Informer().GetIndexer(),
		attachments:             vaInformer.GetIndexer(),
		requireInstalledDrivers: true,
	}
	pl.seen.New = func() any { return make(map[volumeKey]uint8) }
	return pl, nil
}

// attachmentNode indexes a VolumeAttachment by the node it attaches to.
func attachmentNode(obj any) ([]string, error) {
	if va, ok := obj.(*storagev1.VolumeAttachment); ok {
		return []string{va.Spec.NodeName}, nil
	}
	return nil, nil
}

// Name returns the plugin's name.
func (*CSILimits) Name() string { return Name }

// SignPod signs the pod by its volumes: which of them count against a
// node's CSI limits depends on their sources alone, ConfigMaps and Secrets
// never counting.
func (*CSILimits) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	volumes, err := framework.VolumesSignature(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{{Key: framework.VolumesSignKey, Value: volumes}}, nil
}

// preFilterState is the pod's own CSI volumes and drivers, resolved once.
type preFilterState struct {
	// status, when set, is what Filter returns for every node: the pod's
	// volumes could not be resolved.
	status  *framework.Status
	volumes []volumeKey
	drivers []driverNeed
}

// Clone returns the state itself: it is never changed after PreFilter.
func (s *preFilterState) Clone() framework.StateData { return s }

// usesClaims reports whether the pod has a claim or generic ephemeral volume.
func usesClaims(pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return true
		}
	}
	return false
}

// PreFilter resolves the pod's claims and generic ephemeral volumes to CSI
// volumes once per cycle. It skips the pod when none is a CSI volume. A
// claim that cannot be resolved is remembered and reported by Filter on
// every node, as upstream reports it: a missing claim is unresolvable, an
// ephemeral claim not owned by the pod is an error.
func (pl *CSILimits) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !usesClaims(pod) {
		return nil, framework.Skipped()
	}
	logger := klog.FromContext(ctx)
	s := &preFilterState{}
	if err := pl.podVolumes(logger, pod, s); err != nil {
		if apierrors.IsNotFound(err) {
			s.status = framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
		} else {
			s.status = framework.AsStatus(err)
		}
		state.Write(stateKey, s)
		return nil, nil
	}
	if len(s.volumes) == 0 {
		return nil, framework.Skipped()
	}
	for i := range s.drivers {
		pl.checkDriverObject(&s.drivers[i])
	}
	state.Write(stateKey, s)
	return nil, nil
}

// podVolumes fills s with the pod's distinct CSI volumes and their drivers.
func (pl *CSILimits) podVolumes(logger logr.Logger, pod *v1.Pod, s *preFilterState) error {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		var name string
		switch {
		case v.PersistentVolumeClaim != nil:
			name = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(pod, v)
		default:
			continue
		}
		if name == "" {
			return fmt.Errorf("PersistentVolumeClaim had no name")
		}
		pvc, err := pl.pvcLister.PersistentVolumeClaims(pod.Namespace).Get(name)
		if err != nil {
			return fmt.Errorf("looking up PVC %s/%s: %w", pod.Namespace, name, err)
		}
		if v.Ephemeral != nil {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return err
			}
		}
		key, ok := pl.resolveClaim(logger, pvc, pod.Namespace+"/"+name)
		if !ok || containsKey(s.volumes, key) {
			continue
		}
		s.volumes = append(s.volumes, key)
		if !containsDriver(s.drivers, key.driver) {
			s.drivers = append(s.drivers, driverNeed{name: key.driver})
		}
	}
	return nil
}

// checkDriverObject records whether the driver's CSIDriver object asks for
// pods to stay off nodes without the driver. A driver without a CSIDriver
// object may not be a CSI driver at all, so nothing is demanded of it.
func (pl *CSILimits) checkDriverObject(d *driverNeed) {
	obj, err := pl.csiDriverLister.Get(d.name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		d.installCheckFail = framework.AsStatus(fmt.Errorf("getting CSIDriver %s: %w", d.name, err))
	default:
		d.mustBeInstalled = obj.Spec.PreventPodSchedulingIfMissing != nil && *obj.Spec.PreventPodSchedulingIfMissing
	}
}

func containsKey(keys []volumeKey, k volumeKey) bool {
	for i := range keys {
		if keys[i] == k {
			return true
		}
	}
	return false
}

func containsDriver(drivers []driverNeed, name string) bool {
	for i := range drivers {
		if drivers[i].name == name {
			return true
		}
	}
	return false
}

// resolveClaim maps a claim to the CSI volume it counts as. A bound claim
// counts by its PV's CSI driver and handle; a PV without a CSI source does
// not count. An unbound claim, or one whose PV is gone, counts by its
// StorageClass's provisioner and the claim key; without a class it does not
// count (it must then bind before scheduling).
func (pl *CSILimits) resolveClaim(logger logr.Logger, pvc *v1.PersistentVolumeClaim, claimKey string) (volumeKey, bool) {
	if name := pvc.Spec.VolumeName; name != "" {
		if obj, ok, _ := pl.pvs.GetByKey(name); ok {
			pv := obj.(*v1.PersistentVolume)
			if pv.Spec.CSI == nil {
				return volumeKey{}, false
			}
			return volumeKey{driver: pv.Spec.CSI.Driver, handle: pv.Spec.CSI.VolumeHandle}, true
		}
		logger.V(5).Info("claim's volume not found, counting by storage class", "pvc", klog.KObj(pvc), "pv", name)
	}
	class := storagehelpers.GetPersistentVolumeClaimClass(pvc)
	if class == "" {
		return volumeKey{}, false
	}
	obj, ok, _ := pl.classes.GetByKey(class)
	if !ok {
		return volumeKey{}, false
	}
	return volumeKey{driver: obj.(*storagev1.StorageClass).Provisioner, claim: claimKey}, true
}

// PreFilterExtensions returns nil: Filter reads the node's pods directly.
func (*CSILimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node missing a driver the pod needs installed, and a node
// where, for a driver with an attach limit, the volumes already counted
// there plus the pod's volumes not yet there exceed the limit.
func (pl *CSILimits) Filter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if len(pod.Spec.Volumes) == 0 {
		return nil
	}
	s, err := framework.ReadState[*preFilterState](state, stateKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	if s.status != nil {
		return s.status
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	logger := klog.FromContext(ctx)
	csiNode := pl.csiNode(node.Name)
	if pl.requireInstalledDrivers {
		for i := range s.drivers {
			d := &s.drivers[i]
			if d.installCheckFail != nil {
				return d.installCheckFail
			}
			if d.mustBeInstalled && !hasDriver(csiNode, d.name) {
				return framework.NewStatus(framework.Unschedulable, fmt.Sprintf(driverNotInstalledFmt, d.name))
			}
		}
	}
	limited := false
	for i := range s.drivers {
		if _, ok := attachLimit(csiNode, s.drivers[i].name); ok {
			limited = true
			break
		}
	}
	if !limited {
		return nil
	}

	seen := pl.seen.Get().(map[volumeKey]uint8)
	defer func() {
		clear(seen)
		pl.seen.Put(seen)
	}()
	if err := pl.countNodeVolumes(logger, nodeInfo, s.drivers, seen); err != nil {
		return framework.AsStatus(err)
	}
	if err := pl.countAttachments(logger, node.Name, s.drivers, seen); err != nil {
		return framework.AsStatus(err)
	}
	for i := range s.drivers {
		name := s.drivers[i].name
		limit, ok := attachLimit(csiNode, name)
		if !ok {
			continue
		}
		attached := 0
		for k := range seen {
			if k.driver == name {
				attached++
			}
		}
		added := 0
		for _, k := range s.volumes {
			if k.driver == name && seen[k]&seenOnPod == 0 {
				added++
			}
		}
		if int64(attached+added) > limit {
			if v := logger.V(5); v.Enabled() {
				v.Info("attach limit exceeded", "pod", klog.KObj(pod), "node", klog.KObj(node), "driver", name,
					"limit", limit, "attached", attached, "added", added)
			}
			return framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
		}
	}
	return nil
}

// csiNode returns the node's CSINode, or nil when it has none (yet).
func (pl *CSILimits) csiNode(name string) *storagev1.CSINode {
	obj, ok, err := pl.csiNodes.GetByKey(name)
	if err != nil || !ok {
		return nil
	}
	return obj.(*storagev1.CSINode)
}

// hasDriver reports whether the CSINode lists the driver.
func hasDriver(csiNode *storagev1.CSINode, name string) bool {
	if csiNode == nil {
		return false
	}
	for i := range csiNode.Spec.Drivers {
		if csiNode.Spec.Drivers[i].Name == name {
			return true
		}
	}
	return false
}

// attachLimit returns the driver's attach limit on the node, if it has one.
func attachLimit(csiNode *storagev1.CSINode, name string) (int64, bool) {
	if csiNode == nil {
		return 0, false
	}
	for i := range csiNode.Spec.Drivers {
		d := &csiNode.Spec.Drivers[i]
		if d.Name == name && d.Allocatable != nil && d.Allocatable.Count != nil {
			return int64(*d.Allocatable.Count), true
		}
	}
	return 0, false
}

// countNodeVolumes marks in seen the volumes of the node's pods that belong
// to one of the drivers. Claims come from the node's claim reference counts,
// so a claim shared by several pods is looked up once; claims that cannot
// be found are not counted. Generic ephemeral volumes come from the pods.
func (pl *CSILimits) countNodeVolumes(logger logr.Logger, nodeInfo *framework.NodeInfo, drivers []driverNeed, seen map[volumeKey]uint8) error {
	for claimKey := range nodeInfo.PVCRefCounts {
		obj, ok, _ := pl.pvcs.GetByKey(claimKey)
		if !ok {
			continue
		}
		if key, ok := pl.resolveClaim(logger, obj.(*v1.PersistentVolumeClaim), claimKey); ok && containsDriver(drivers, key.driver) {
			seen[key] |= seenOnPod
		}
	}
	for _, pi := range nodeInfo.Pods {
		p := pi.Pod
		for i := range p.Spec.Volumes {
			v := &p.Spec.Volumes[i]
			if v.Ephemeral == nil {
				continue
			}
			claimKey := p.Namespace + "/" + ephemeral.VolumeClaimName(p, v)
			obj, ok, _ := pl.pvcs.GetByKey(claimKey)
			if !ok {
				continue
			}
			pvc := obj.(*v1.PersistentVolumeClaim)
			if err := ephemeral.VolumeIsForPod(p, pvc); err != nil {
				return err
			}
			if key, ok := pl.resolveClaim(logger, pvc, claimKey); ok && containsDriver(drivers, key.driver) {
				seen[key] |= seenOnPod
			}
		}
	}
	return nil
}

// countAttachments marks in seen the CSI volumes attached to the node by
// VolumeAttachments of one of the drivers; attachments without an attacher,
// a PV name, or a CSI PV are ignored.
func (pl *CSILimits) countAttachments(logger logr.Logger, nodeName string, drivers []driverNeed, seen map[volumeKey]uint8) error {
	objs, err := pl.attachments.ByIndex(attachmentsByNode, nodeName)
	if err != nil {
		return fmt.Errorf("listing VolumeAttachments of node %s: %w", nodeName, err)
	}
	for _, obj := range objs {
		va, ok := obj.(*storagev1.VolumeAttachment)
		if !ok || va.Spec.NodeName != nodeName || va.Spec.Attacher == "" || va.Spec.Source.PersistentVolumeName == nil {
			continue
		}
		if !containsDriver(drivers, va.Spec.Attacher) {
			continue
		}
		pvObj, ok, _ := pl.pvs.GetByKey(*va.Spec.Source.PersistentVolumeName)
		if !ok {
			logger.V(5).Info("VolumeAttachment's volume not found", "volumeAttachment", klog.KObj(va))
			continue
		}
		pv := pvObj.(*v1.PersistentVolume)
		if pv.Spec.CSI == nil {
			continue
		}
		seen[volumeKey{driver: va.Spec.Attacher, handle: pv.Spec.CSI.VolumeHandle}] |= seenAttached
	}
	return nil
}

// EventsToRegister retries a rejected pod when a CSINode appears or raises a
// limit, an assigned pod with volumes goes away, one of its claims appears,
// or a VolumeAttachment goes away.
func (pl *CSILimits) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Add}},
		{
			Event:          framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Update},
			QueueingHintFn: pl.isSchedulableAfterCSINodeUpdated,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete},
			QueueingHintFn: pl.isSchedulableAfterPodDeleted,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add},
			QueueingHintFn: pl.isSchedulableAfterClaimAdded,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.VolumeAttachment, ActionType: framework.Delete},
			QueueingHintFn: pl.isSchedulableAfterAttachmentDeleted,
		},
	}, nil
}

// isSchedulableAfterPodDeleted queues the pod when the deleted pod was on
// (or nominated to) a node and had a claim or generic ephemeral volume.
func (*CSILimits) isSchedulableAfterPodDeleted(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("pod-deleted hint: %w", err)
	}
	if deleted == nil || (deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "") || !usesClaims(deleted) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("a pod with volumes was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
	return framework.Queue, nil
}

// isSchedulableAfterClaimAdded queues the pod when the new claim is one of
// its claims or the claim of one of its generic ephemeral volumes.
func (*CSILimits) isSchedulableAfterClaimAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := eventobj.Pair[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("claim-added hint: %w", err)
	}
	if pvc == nil || pvc.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		var name string
		switch {
		case v.PersistentVolumeClaim != nil:
			name = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(pod, v)
		default:
			continue
		}
		if name == pvc.Name {
			logger.V(5).Info("a claim of the pod was created", "pod", klog.KObj(pod), "pvc", klog.KObj(pvc))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterAttachmentDeleted queues the pod when it has a claim or
// generic ephemeral volume, which a freed attachment slot may help.
func (*CSILimits) isSchedulableAfterAttachmentDeleted(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	va, _, err := eventobj.Pair[*storagev1.VolumeAttachment](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("attachment-deleted hint: %w", err)
	}
	if !usesClaims(pod) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("a VolumeAttachment was deleted", "pod", klog.KObj(pod), "volumeAttachment", klog.KObj(va))
	return framework.Queue, nil
}

// isSchedulableAfterCSINodeUpdated queues the pod when some driver's attach
// limit went up (a driver without a limit counts as limit 0).
func (*CSILimits) isSchedulableAfterCSINodeUpdated(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*storagev1.CSINode](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("CSINode-updated hint: %w", err)
	}
	if after == nil {
		return framework.QueueSkip, nil
	}
	for i := range after.Spec.Drivers {
		name := after.Spec.Drivers[i].Name
		newLimit, _ := attachLimit(after, name)
		oldLimit, _ := attachLimit(before, name)
		if newLimit > oldLimit {
			logger.V(5).Info("a CSI driver's attach limit went up", "pod", klog.KObj(pod), "csiNode", klog.KObj(after),
				"driver", name, "oldLimit", oldLimit, "newLimit", newLimit)
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
