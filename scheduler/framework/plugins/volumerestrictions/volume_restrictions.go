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

// Package volumerestrictions implements VolumeRestrictions, which keeps a pod
// off nodes where one of its inline disks (GCE PD, AWS EBS, RBD, iSCSI) is
// already mounted in a conflicting way, and rejects a pod whose
// ReadWriteOncePod claim is already in use by another pod.
package volumerestrictions

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.VolumeRestrictions

// Filter reasons, worded as upstream v1.37 words them.
const (
	// ErrReasonDiskConflict rejects a node where an inline disk of the pod is
	// already mounted by another pod in a conflicting mode.
	ErrReasonDiskConflict = "node(s) had no available disk"
	// ErrReasonReadWriteOncePodConflict rejects a pod whose ReadWriteOncePod
	// claim another pod already uses.
	ErrReasonReadWriteOncePodConflict = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

const stateKey framework.StateKey = "PreFilter" + Name

// VolumeRestrictions checks inline-disk conflicts and ReadWriteOncePod claims.
type VolumeRestrictions struct {
	handle    framework.Handle
	pvcLister corelisters.PersistentVolumeClaimLister
}

var (
	_ framework.PreFilterPlugin     = &VolumeRestrictions{}
	_ framework.PreFilterExtensions = &VolumeRestrictions{}
	_ framework.FilterPlugin        = &VolumeRestrictions{}
	_ framework.EnqueueExtensions   = &VolumeRestrictions{}
	_ framework.SignPlugin          = &VolumeRestrictions{}
	_ framework.StateData           = &preFilterState{}
)

// New is the plugin's factory; VolumeRestrictions takes no args. It reads
// claims through the handle's shared informer factory.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	if h == nil || h.SharedInformerFactory() == nil {
		return nil, fmt.Errorf("plugin %s needs a handle with a shared informer factory", Name)
	}
	return &VolumeRestrictions{
		handle:    h,
		pvcLister: h.SharedInformerFactory().Core().V1().PersistentVolumeClaims().Lister(),
	}, nil
}

// Name returns the plugin's name.
func (*VolumeRestrictions) Name() string { return Name }

// SignPod signs the pod by its volumes, the disks and claims whose
// conflicts the plugin checks; ConfigMaps and Secrets are left out.
func (*VolumeRestrictions) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	volumes, err := framework.VolumesSignature(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{{Key: framework.VolumesSignKey, Value: volumes}}, nil
}

// preFilterState is what PreFilter learns about the pod: which of its claims
// are ReadWriteOncePod and how many pods already hold one of them.
type preFilterState struct {
	// rwopClaims are the names of the pod's ReadWriteOncePod claims; shared
	// between clones because it never changes after PreFilter.
	rwopClaims sets.Set[string]
	// holders counts references to those claims by pods already placed.
	holders int
}

// Clone copies the counter; the claim set is read-only and shared.
func (s *preFilterState) Clone() framework.StateData {
	c := *s
	return &c
}

// refsOf counts the volumes of p that reference one of the pod's
// ReadWriteOncePod claims in namespace ns.
func (s *preFilterState) refsOf(ns string, p *v1.Pod) int {
	if p.Namespace != ns || len(s.rwopClaims) == 0 {
		return 0
	}
	n := 0
	for i := range p.Spec.Volumes {
		if c := p.Spec.Volumes[i].PersistentVolumeClaim; c != nil && s.rwopClaims.Has(c.ClaimName) {
			n++
		}
	}
	return n
}

// hasInlineDisk reports whether the volume is of a kind whose concurrent
// mounts the plugin polices.
func hasInlineDisk(v *v1.Volume) bool {
	return v.GCEPersistentDisk != nil || v.AWSElasticBlockStore != nil || v.RBD != nil || v.ISCSI != nil
}

// PreFilter finds the pod's ReadWriteOncePod claims and counts the pods
// already using them. It skips the pod when it has neither an inline disk
// nor a ReadWriteOncePod claim in use; a missing claim is unresolvable.
func (pl *VolumeRestrictions) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	inline := false
	for i := range pod.Spec.Volumes {
		if hasInlineDisk(&pod.Spec.Volumes[i]) {
			inline = true
			break
		}
	}
	claims, err := pl.readWriteOncePodClaims(pod)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
		}
		return nil, framework.AsStatus(fmt.Errorf("reading claims of pod %s: %w", framework.PodKey(pod), err))
	}
	s := &preFilterState{rwopClaims: claims}
	if len(claims) > 0 {
		storage := pl.handle.SnapshotSharedLister().StorageInfos()
		for name := range claims {
			if storage.IsPVCUsedByPods(pod.Namespace + "/" + name) {
				s.holders++
			}
		}
	}
	if !inline && s.holders == 0 {
		return nil, framework.Skipped()
	}
	if s.holders > 0 {
		klog.FromContext(ctx).V(5).Info("ReadWriteOncePod claim already in use", "pod", klog.KObj(pod), "holders", s.holders)
	}
	state.Write(stateKey, s)
	return nil, nil
}

// readWriteOncePodClaims returns the names of the pod's claims that allow
// ReadWriteOncePod access; any claim that cannot be read is an error.
func (pl *VolumeRestrictions) readWriteOncePodClaims(pod *v1.Pod) (sets.Set[string], error) {
	var out sets.Set[string]
	for i := range pod.Spec.Volumes {
		ref := pod.Spec.Volumes[i].PersistentVolumeClaim
		if ref == nil {
			continue
		}
		pvc, err := pl.pvcLister.PersistentVolumeClaims(pod.Namespace).Get(ref.ClaimName)
		if err != nil {
			return nil, err
		}
		for _, m := range pvc.Spec.AccessModes {
			if m == v1.ReadWriteOncePod {
				if out == nil {
					out = sets.New[string]()
				}
				out.Insert(pvc.Name)
				break
			}
		}
	}
	return out, nil
}

// PreFilterExtensions returns the plugin itself, which keeps the holder
// count right when preemption adds or removes pods.
func (pl *VolumeRestrictions) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts the added pod's references to the pod's ReadWriteOncePod claims.
func (pl *VolumeRestrictions) AddPod(_ context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podToAdd *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, stateKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	s.holders += s.refsOf(podToSchedule.Namespace, podToAdd.Pod)
	return nil
}

// RemovePod uncounts the removed pod's references to the pod's ReadWriteOncePod claims.
func (pl *VolumeRestrictions) RemovePod(_ context.Context, state *framework.CycleState, podToSchedule *v1.Pod, podToRemove *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, stateKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	s.holders -= s.refsOf(podToSchedule.Namespace, podToRemove.Pod)
	return nil
}

// Filter rejects a node where one of the pod's inline disks conflicts with
// a disk of a pod already there, and rejects every node while a
// ReadWriteOncePod claim of the pod is held by another pod (preemption of
// that pod may help, so both are Unschedulable).
func (pl *VolumeRestrictions) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if diskConflictOnNode(pod, nodeInfo) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)
	}
	s, err := framework.ReadState[*preFilterState](state, stateKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	if s.holders > 0 {
		return framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	}
	return nil
}

// diskConflictOnNode reports whether an inline disk of pod conflicts with a
// disk of any pod on the node. It does not allocate.
func diskConflictOnNode(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if !hasInlineDisk(v) {
			continue
		}
		for _, other := range nodeInfo.Pods {
			if conflictsWithPod(v, other.Pod) {
				return true
			}
		}
	}
	return false
}

// conflictsWithPod reports whether mounting v would clash with a volume of
// other. A disk may be shared only when every mount of it is read-only; an
// EBS volume may never be shared.
func conflictsWithPod(v *v1.Volume, other *v1.Pod) bool {
	for j := range other.Spec.Volumes {
		o := &other.Spec.Volumes[j]
		switch {
		case v.GCEPersistentDisk != nil && o.GCEPersistentDisk != nil:
			if v.GCEPersistentDisk.PDName == o.GCEPersistentDisk.PDName &&
				!(v.GCEPersistentDisk.ReadOnly && o.GCEPersistentDisk.ReadOnly) {
				return true
			}
		case v.AWSElasticBlockStore != nil && o.AWSElasticBlockStore != nil:
			if v.AWSElasticBlockStore.VolumeID == o.AWSElasticBlockStore.VolumeID {
				return true
			}
		case v.ISCSI != nil && o.ISCSI != nil:
			if v.ISCSI.IQN == o.ISCSI.IQN && !(v.ISCSI.ReadOnly && o.ISCSI.ReadOnly) {
				return true
			}
		case v.RBD != nil && o.RBD != nil:
			a, b := v.RBD, o.RBD
			if a.RBDPool == b.RBDPool && a.RBDImage == b.RBDImage && shareMonitor(a.CephMonitors, b.CephMonitors) &&
				!(a.ReadOnly && b.ReadOnly) {
				return true
			}
		}
	}
	return false
}

// shareMonitor reports whether the two monitor lists have an address in
// common. The lists are short, so a nested scan beats building a set.
func shareMonitor(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// EventsToRegister retries a rejected pod when an assigned pod that may hold
// its disk or claim goes away, when a node is added, or when a claim it
// waits for is created. Pod volume updates are not watched: spec.volumes is
// immutable.
func (pl *VolumeRestrictions) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete},
			QueueingHintFn: pl.isSchedulableAfterPodDeleted,
		},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
		{
			Event:          framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add},
			QueueingHintFn: pl.isSchedulableAfterClaimAdded,
		},
	}, nil
}

// isSchedulableAfterClaimAdded queues the pod when the new claim is one it references.
func (*VolumeRestrictions) isSchedulableAfterClaimAdded(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := eventobj.Pair[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("claim-added hint: %w", err)
	}
	if pvc == nil || pvc.Namespace != pod.Namespace || !referencesClaim(pod, pvc.Name) {
		return framework.QueueSkip, nil
	}
	logger.V(5).Info("a claim the pod references was created", "pod", klog.KObj(pod), "pvc", klog.KObj(pvc))
	return framework.Queue, nil
}

// isSchedulableAfterPodDeleted queues the pod when the deleted pod, in the
// same namespace, had an inline disk conflicting with the pod's or used one
// of the pod's claims (whose access mode is not looked up, to keep the hint
// cheap).
func (*VolumeRestrictions) isSchedulableAfterPodDeleted(logger logr.Logger, pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := eventobj.Pair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("pod-deleted hint: %w", err)
	}
	if deleted == nil || deleted.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; hasInlineDisk(v) && conflictsWithPod(v, deleted) {
			logger.V(5).Info("a pod holding a conflicting disk was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
			return framework.Queue, nil
		}
	}
	for i := range deleted.Spec.Volumes {
		if c := deleted.Spec.Volumes[i].PersistentVolumeClaim; c != nil && referencesClaim(pod, c.ClaimName) {
			logger.V(5).Info("a pod using one of the pod's claims was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// referencesClaim reports whether the pod mounts the named claim.
func referencesClaim(pod *v1.Pod, name string) bool {
	for i := range pod.Spec.Volumes {
		if c := pod.Spec.Volumes[i].PersistentVolumeClaim; c != nil && c.ClaimName == name {
			return true
		}
	}
	return false
}
