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

package volumebinding

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/component-helpers/storage/volume"
)

// boundClaim is a claim bound to a PV, with the PV's node affinity parsed.
// affinity is nil when the PV does not exist.
type boundClaim struct {
	pvc      *v1.PersistentVolumeClaim
	affinity *pvAffinity
}

// podClaims are a pod's claims sorted by what the scheduler must do with them.
type podClaims struct {
	bound []boundClaim
	// delayed are unbound claims of WaitForFirstConsumer classes, sorted by
	// requested size so the smallest claims pick their PVs first.
	delayed []*v1.PersistentVolumeClaim
	// immediate are unbound claims the PV controller should have bound
	// already: claims of Immediate classes and claims pre-bound to a PV.
	immediate []*v1.PersistentVolumeClaim
	// candidates are the PVs each delayed claim could bind, aligned with
	// delayed; nil for claims whose provisioning has started.
	candidates []*claimCandidates
}

// claimName returns the name of the claim a volume uses and whether it is a
// generic ephemeral volume; ok is false for volumes without a claim.
func claimName(pod *v1.Pod, vol *v1.Volume) (name string, isEphemeral, ok bool) {
	switch {
	case vol.PersistentVolumeClaim != nil:
		return vol.PersistentVolumeClaim.ClaimName, false, true
	case vol.Ephemeral != nil:
		return ephemeral.VolumeClaimName(pod, vol), true, true
	}
	return "", false, false
}

// hasClaims reports whether any of the pod's volumes uses a claim.
func hasClaims(pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if _, _, ok := claimName(pod, &pod.Spec.Volumes[i]); ok {
			return true
		}
	}
	return false
}

// unusableClaimError explains why a claim keeps the pod off every node; the
// caller reports it as UnschedulableAndUnresolvable.
type unusableClaimError struct{ msg string }

func (e *unusableClaimError) Error() string { return e.msg }

// fullyBound reports whether the PV controller finished binding the claim.
func fullyBound(pvc *v1.PersistentVolumeClaim) bool {
	return pvc.Spec.VolumeName != "" && metav1.HasAnnotation(pvc.ObjectMeta, volume.AnnBindCompleted)
}

// classify reads the pod's claims and sorts them. Claims that cannot be
// used at all give an *unusableClaimError; other failures are plain errors.
func (pl *VolumeBinding) classify(pod *v1.Pod) (*podClaims, error) {
	pc := &podClaims{}
	for i := range pod.Spec.Volumes {
		name, isEphemeral, ok := claimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		pvc, err := pl.pvcs.get(pod.Namespace + "/" + name)
		if err != nil {
			if !apierrors.IsNotFound(err) {
				return nil, err
			}
			if isEphemeral {
				// Normal right after the pod is created: the ephemeral
				// volume controller has not made the claim yet.
				return nil, &unusableClaimError{fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name)}
			}
			return nil, &unusableClaimError{fmt.Sprintf("persistentvolumeclaim %q not found", name)}
		}
		switch {
		case pvc.Status.Phase == v1.ClaimLost:
			return nil, &unusableClaimError{fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName)}
		case pvc.DeletionTimestamp != nil:
			return nil, &unusableClaimError{fmt.Sprintf("persistentvolumeclaim %q is being deleted", pvc.Name)}
		}
		if isEphemeral {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return nil, &unusableClaimError{err.Error()}
			}
		}
		if fullyBound(pvc) {
			pc.bound = append(pc.bound, boundClaim{pvc: pvc, affinity: pl.boundPVAffinity(pvc.Spec.VolumeName)})
			continue
		}
		delayed, err := pl.isDelayed(pvc)
		if err != nil {
			return nil, err
		}
		if delayed && pvc.Spec.VolumeName == "" {
			pc.delayed = append(pc.delayed, pvc)
		} else {
			pc.immediate = append(pc.immediate, pvc)
		}
	}
	if len(pc.delayed) == 0 {
		return pc, nil
	}
	sort.SliceStable(pc.delayed, func(i, j int) bool {
		a := pc.delayed[i].Spec.Resources.Requests[v1.ResourceStorage]
		b := pc.delayed[j].Spec.Resources.Requests[v1.ResourceStorage]
		return a.Cmp(b) < 0
	})
	pvsByClass := make(map[string][]*v1.PersistentVolume, 1)
	affinities := map[string]*pvAffinity{}
	pc.candidates = make([]*claimCandidates, len(pc.delayed))
	for i, pvc := range pc.delayed {
		if _, provisioning := pvc.Annotations[volume.AnnSelectedNode]; provisioning {
			continue
		}
		class := volume.GetPersistentVolumeClaimClass(pvc)
		pvs, listed := pvsByClass[class]
		if !listed {
			var err error
			if pvs, err = pl.pvs.byIndex(classIndex, class); err != nil {
				return nil, err
			}
			pvsByClass[class] = pvs
		}
		c, err := newClaimCandidates(pvc, pvs, affinities)
		if err != nil {
			return nil, err
		}
		pc.candidates[i] = c
	}
	return pc, nil
}

// boundPVAffinity parses the node affinity of the named PV, or returns nil
// when the PV does not exist.
func (pl *VolumeBinding) boundPVAffinity(pvName string) *pvAffinity {
	pv, err := pl.pvs.get(pvName)
	if err != nil {
		return nil
	}
	return newPVAffinity(pv)
}

// isDelayed reports whether the claim's class binds on first consumer. A
// claim without a class, or whose class does not exist, binds immediately.
func (pl *VolumeBinding) isDelayed(pvc *v1.PersistentVolumeClaim) (bool, error) {
	className := volume.GetPersistentVolumeClaimClass(pvc)
	if className == "" {
		return false, nil
	}
	class, err := pl.classes.Get(className)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading StorageClass %q: %w", className, err)
	}
	if class.VolumeBindingMode == nil {
		return false, fmt.Errorf("VolumeBindingMode not set for StorageClass %q", className)
	}
	return *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer, nil
}

// pvStorageClass indexes PVs by storage class.
func pvStorageClass(obj any) ([]string, error) {
	pv, ok := obj.(*v1.PersistentVolume)
	if !ok {
		return nil, fmt.Errorf("indexing PVs by class: got a %T", obj)
	}
	return []string{volume.GetPersistentVolumeClass(pv)}, nil
}
