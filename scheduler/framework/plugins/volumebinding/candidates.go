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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/storage/volume"
	"k8s.io/utils/ptr"
)

// candidate is a PV a claim could bind, with its node affinity parsed.
type candidate struct {
	pv       *v1.PersistentVolume
	affinity *pvAffinity
}

// claimCandidates are the PVs a delayed claim could bind on some node,
// found once per cycle so that Filter only checks node affinity. The
// choice is volume.FindMatchingVolume's: a PV pre-bound to the claim wins
// outright (or, if it does not admit the node, nothing matches); otherwise
// the smallest available PV of the claim's class that is big enough, has
// the claim's volume mode, attributes class and access modes, and matches
// its selector.
type claimCandidates struct {
	// prebound is the first usable PV whose claimRef names the claim.
	prebound *candidate
	// available are the other usable PVs, smallest first; among equal
	// sizes the informer's order is kept.
	available []candidate
}

func newClaimCandidates(pvc *v1.PersistentVolumeClaim, pvs []*v1.PersistentVolume, affinities map[string]*pvAffinity) (*claimCandidates, error) {
	var selector labels.Selector
	if pvc.Spec.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(pvc.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("error creating internal label selector for claim: %s/%s: %w", pvc.Namespace, pvc.Name, err)
		}
		selector = sel
	}
	requested := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	class := volume.GetPersistentVolumeClaimClass(pvc)
	vac := ptr.Deref(pvc.Spec.VolumeAttributesClassName, "")
	affinityOf := func(pv *v1.PersistentVolume) *pvAffinity {
		a, ok := affinities[pv.Name]
		if !ok {
			a = newPVAffinity(pv)
			affinities[pv.Name] = a
		}
		return a
	}
	c := &claimCandidates{}
	for _, pv := range pvs {
		boundHere := volume.IsVolumeBoundToClaim(pv, pvc)
		if pv.Spec.ClaimRef != nil && !boundHere {
			continue
		}
		size := pv.Spec.Capacity[v1.ResourceStorage]
		if size.Cmp(requested) < 0 || volume.CheckVolumeModeMismatches(&pvc.Spec, &pv.Spec) ||
			ptr.Deref(pv.Spec.VolumeAttributesClassName, "") != vac || pv.DeletionTimestamp != nil {
			continue
		}
		if boundHere {
			if c.prebound == nil {
				c.prebound = &candidate{pv: pv, affinity: affinityOf(pv)}
			}
			continue
		}
		if pv.Status.Phase != v1.VolumeAvailable || (selector != nil && !selector.Matches(labels.Set(pv.Labels))) ||
			volume.GetPersistentVolumeClass(pv) != class || !volume.CheckAccessModes(pvc, pv) {
			continue
		}
		c.available = append(c.available, candidate{pv: pv, affinity: affinityOf(pv)})
	}
	sort.SliceStable(c.available, func(i, j int) bool {
		a, b := capacityOf(c.available[i].pv), capacityOf(c.available[j].pv)
		return a.Cmp(b) < 0
	})
	return c, nil
}

func capacityOf(pv *v1.PersistentVolume) resource.Quantity {
	return pv.Spec.Capacity[v1.ResourceStorage]
}

// match returns the PV the claim binds on a node with the labels, skipping
// PVs already taken by the pod's other claims, or nil.
func (c *claimCandidates) match(nodeLabels map[string]string, taken []staticBinding) *v1.PersistentVolume {
	if p := c.prebound; p != nil && !isTaken(p.pv, taken) {
		if p.affinity.matches(nodeLabels) {
			return p.pv
		}
		return nil
	}
	for i := range c.available {
		a := &c.available[i]
		if !isTaken(a.pv, taken) && a.affinity.matches(nodeLabels) {
			return a.pv
		}
	}
	return nil
}

// isTaken reports whether another claim of the pod already chose the PV;
// with few claims per pod a linear scan beats a map.
func isTaken(pv *v1.PersistentVolume, taken []staticBinding) bool {
	for i := range taken {
		if taken[i].pv.Name == pv.Name {
			return true
		}
	}
	return false
}
