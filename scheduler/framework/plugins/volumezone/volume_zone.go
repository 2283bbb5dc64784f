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

// Package volumezone implements VolumeZone, which keeps a pod off nodes
// outside the zones and regions its bound PersistentVolumes are labelled with.
package volumezone

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.VolumeZone

// ErrReasonConflict is the Filter reason for a node outside a volume's
// topology, worded as upstream v1.37 words it.
const ErrReasonConflict = "node(s) had no available volume zone"

// Messages for claims the plugin cannot resolve, as upstream words them.
const (
	msgClaimNoName        = "PersistentVolumeClaim had no name"
	msgClaimNoPVNorClass  = "PersistentVolumeClaim had no pv name and storageClass name"
	msgVolumeNoName       = "PersistentVolume had no name"
	msgBindingModeMissing = "VolumeBindingMode not set for StorageClass %q"
)

// multiZoneSeparator separates zones in a multi-zone PV label value.
const multiZoneSeparator = "__"

const stateKey framework.StateKey = "PreFilter" + Name

// topologyKeys are the PV labels the plugin enforces, beta keys first.
var topologyKeys = [...]string{
	v1.LabelFailureDomainBetaZone,
	v1.LabelFailureDomainBetaRegion,
	v1.LabelTopologyZone,
	v1.LabelTopologyRegion,
}

// gaKey maps a beta topology key to its GA successor; other keys map to themselves.
func gaKey(key string) string {
	switch key {
	case v1.LabelFailureDomainBetaZone:
		return v1.LabelTopologyZone
	case v1.LabelFailureDomainBetaRegion:
		return v1.LabelTopologyRegion
	}
	return key
}

// VolumeZone checks the topology labels of a pod's bound volumes against nodes.
type VolumeZone struct {
	pvLister  corelisters.PersistentVolumeLister
	pvcLister corelisters.PersistentVolumeClaimLister
	scLister  storagelisters.StorageClassLister
}

var (
	_ framework.PreFilterPlugin   = &VolumeZone{}
	_ framework.FilterPlugin      = &VolumeZone{}
	_ framework.EnqueueExtensions = &VolumeZone{}
	_ framework.SignPlugin        = &VolumeZone{}
	_ framework.StateData         = &preFilterState{}
)

// New is the plugin's factory; VolumeZone takes no args. It reads volumes,
// claims and storage classes through the handle's shared informer factory.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	if h == nil || h.SharedInformerFactory() == nil {
		return nil, fmt.Errorf("plugin %s needs a handle with a shared informer factory", Name)
	}
	f := h.SharedInformerFactory()
	return &VolumeZone{
		pvLister:  f.Core().V1().PersistentVolumes().Lister(),
		pvcLister: f.Core().V1().PersistentVolumeClaims().Lister(),
		scLister:  f.Storage().V1().StorageClasses().Lister(),
	}, nil
}

// Name returns the plugin's name.
func (*VolumeZone) Name() string { return Name }

// SignPod signs the pod by its volumes, whose persistent volumes' zones
// the plugin matches; ConfigMaps and Secrets are left out.
func (*VolumeZone) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	volumes, err := framework.VolumesSignature(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{{Key: framework.VolumesSignKey, Value: volumes}}, nil
}

// volumeTopology is one topology label of a volume: its key and the zones
// (or regions) it allows.
type volumeTopology struct {
	pv     string
	key    string
	values []string
}

// allows reports whether the node label value is one of the allowed values.
func (t *volumeTopology) allows(value string) bool {
	for _, v := range t.values {
		if v == value {
			return true
		}
	}
	return false
}

// preFilterState holds the topology labels of the pod's bound volumes.
type preFilterState struct {
	topologies []volumeTopology
}

// Clone returns the state itself: it is never changed after PreFilter.
func (s *preFilterState) Clone() framework.StateData { return s }

// PreFilter collects the topology labels of the volumes bound to the pod's
// claims. It skips the pod when none has any; a claim, volume or class that
// cannot be found, or a claim that can never bind, is unresolvable.
func (pl *VolumeZone) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	topologies, st := pl.podTopologies(klog.FromContext(ctx), pod)
	if !st.IsSuccess() {
		return nil, st
	}
	if len(topologies) == 0 {
		return nil, framework.Skipped()
	}
	state.Write(stateKey, &preFilterState{topologies: topologies})
	return nil, nil
}

// podTopologies resolves the pod's claims to their volumes' topology labels.
// Claims not yet bound whose class waits for the first consumer are skipped:
// the volume will be provisioned where the pod lands.
func (pl *VolumeZone) podTopologies(logger logr.Logger, pod *v1.Pod) ([]volumeTopology, *framework.Status) {
	var out []volumeTopology
	for i := range pod.Spec.Volumes {
		ref := pod.Spec.Volumes[i].PersistentVolumeClaim
		if ref == nil {
			continue
		}
		if ref.ClaimName == "" {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgClaimNoName)
		}
		pvc, err := pl.pvcLister.PersistentVolumeClaims(pod.Namespace).Get(ref.ClaimName)
		if err != nil {
			return nil, lookupStatus(err)
		}
		if pvc.Spec.VolumeName == "" {
			class := storagehelpers.GetPersistentVolumeClaimClass(pvc)
			if class == "" {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgClaimNoPVNorClass)
			}
			sc, err := pl.scLister.Get(class)
			if err != nil {
				return nil, lookupStatus(err)
			}
			if sc.VolumeBindingMode == nil {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(msgBindingModeMissing, class))
			}
			if *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
				continue
			}
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgVolumeNoName)
		}
		pv, err := pl.pvLister.Get(pvc.Spec.VolumeName)
		if err != nil {
			return nil, lookupStatus(err)
		}
		out = appendTopologies(logger, out, pv)
	}
	return out, nil
}

// lookupStatus turns a lister error into a status: a missing object is
// unresolvable, anything else an internal error.
func lookupStatus(err error) *framework.Status {
	if apierrors.IsNotFound(err) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	return framework.AsStatus(err)
}

// appendTopologies appends the volume's topology labels to out, in the
// order of topologyKeys. A label whose value has an empty zone is ignored.
func appendTopologies(logger logr.Logger, out []volumeTopology, pv *v1.PersistentVolume) []volumeTopology {
	for _, key := range topologyKeys {
		value, ok := pv.Labels[key]
		if !ok {
			continue
		}
		zones, err := splitZones(value)
		if err != nil {
			logger.V(5).Info("ignoring an unparsable volume topology label", "pv", klog.KObj(pv), "key", key, "value", value, "err", err)
			continue
		}
		out = append(out, volumeTopology{pv: pv.Name, key: key, values: zones})
	}
	return out
}

// splitZones splits a multi-zone label value on "__" into distinct trimmed
// zones; an empty zone makes the whole value invalid.
func splitZones(value string) ([]string, error) {
	parts := strings.Split(value, multiZoneSeparator)
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		z := strings.TrimSpace(p)
		if z == "" {
			return nil, fmt.Errorf("label value %q has an empty zone", value)
		}
		dup := false
		for _, seen := range out {
			dup = dup || seen == z
		}
		if !dup {
			out = append(out, z)
		}
	}
	return out, nil
}

// PreFilterExtensions returns nil: other pods do not change the result.
func (*VolumeZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects, unresolvably, a node whose topology labels miss a value
// one of the pod's volumes allows. A beta-keyed volume label also matches
// the node's GA label. A node with no topology labels at all passes, so
// single-zone clusters without labels work.
func (pl *VolumeZone) Filter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if len(pod.Spec.Volumes) == 0 {
		return nil
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("filtering pod %s: node not found", framework.PodKey(pod)))
	}
	logger := klog.FromContext(ctx)
	var topologies []volumeTopology
	if s, err := framework.ReadState[*preFilterState](state, stateKey); err == nil {
		topologies = s.topologies
	} else {
		var st *framework.Status
		if topologies, st = pl.podTopologies(logger, pod); !st.IsSuccess() {
			return st
		}
	}
	if !hasTopologyLabel(node) {
		return nil
	}
	for i := range topologies {
		t := &topologies[i]
		value, ok := node.Labels[t.key]
		if !ok {
			value, ok = node.Labels[gaKey(t.key)]
		}
		if !ok || !t.allows(value) {
			if v := logger.V(10); v.Enabled() {
				v.Info("node misses a volume's topology", "pod", klog.KObj(pod), "node", klog.KObj(node), "pv", t.pv, "key", t.key)
			}
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
		}
	}
	return nil
}

// hasTopologyLabel reports whether the node carries any enforced topology key.
func hasTopologyLabel(node *v1.Node) bool {
	for _, key := range topologyKeys {
		if _, ok := node.Labels[key]; ok {
			return true
		}
	}
	return false
}

// EventsToRegister retries a rejected pod when a WaitForFirstConsumer class
// appears, a node appears or its labels change, one of its claims appears or
// changes, or a volume appears or its topology labels change.
func (pl *VolumeZone) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.StorageClass, ActionType: framework.Add},
			QueueingHintFn: pl.isSchedulableAfterStorageClassAdded,
		},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}},
		{
			Event:          framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update},
			QueueingHintFn: pl.isSchedulableAfterClaimChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update},
			QueueingHintFn: pl.isSchedulableAfterVolumeChange,
		},
	}, nil
}

// isSchedulableAfterClaimChange queues the pod when the claim is one of its own.
func (*VolumeZone) isSchedulableAfterClaimChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := eventobj.Pair[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("claim-change hint: %w", err)
	}
	if pvc == nil || pvc.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for i := range pod.Spec.Volumes {
		if ref := pod.Spec.Volumes[i].PersistentVolumeClaim; ref != nil && ref.ClaimName == pvc.Name {
			logger.V(5).Info("a claim of the pod was created or updated", "pod", klog.KObj(pod), "pvc", klog.KObj(pvc))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterStorageClassAdded queues the pod when the new class
// binds on first consumer; the binding mode is immutable, so updates do not matter.
func (*VolumeZone) isSchedulableAfterStorageClassAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, sc, err := eventobj.Pair[*storagev1.StorageClass](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("storage-class hint: %w", err)
	}
	if sc == nil || sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("a WaitForFirstConsumer storage class was created", "pod", klog.KObj(pod), "storageClass", klog.KObj(sc))
	return framework.Queue, nil
}

// isSchedulableAfterVolumeChange queues the pod for a new volume, or for a
// volume whose topology labels changed. Node affinity of a volume is
// immutable and belongs to other plugins.
func (*VolumeZone) isSchedulableAfterVolumeChange(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	before, after, err := eventobj.Pair[*v1.PersistentVolume](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("volume-change hint: %w", err)
	}
	if before == nil || after == nil {
		return framework.Queue, nil
	}
	if !sameTopologies(appendTopologies(logger, nil, before), appendTopologies(logger, nil, after)) {
		logger.V(5).Info("a volume's topology changed", "pod", klog.KObj(pod), "pv", klog.KObj(after))
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// sameTopologies compares two volumes' topologies key by key, zones as sets.
func sameTopologies(a, b []volumeTopology) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].key != b[i].key || len(a[i].values) != len(b[i].values) {
			return false
		}
		for _, v := range a[i].values {
			if !b[i].allows(v) {
				return false
			}
		}
	}
	return true
}
