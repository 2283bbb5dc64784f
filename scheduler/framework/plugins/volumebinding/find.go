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

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/storage/volume"
	"k8s.io/klog/v2"
)

// Filter reasons, as upstream.
const (
	// ErrReasonBindConflict is given when some delayed claim can neither bind a PV nor be provisioned on the node.
	ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind"
	// ErrReasonNodeConflict is given when a bound PV's node affinity excludes the node.
	ErrReasonNodeConflict = "node(s) didn't match PersistentVolume's node affinity"
	// ErrReasonNotEnoughSpace is given when no CSIStorageCapacity reachable from the node has room for a new volume.
	ErrReasonNotEnoughSpace = "node(s) did not have enough free storage"
	// ErrReasonPVNotExist is given when a claim is bound to a PV that does not exist.
	ErrReasonPVNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

// staticBinding pairs a delayed claim with the existing PV chosen for it.
type staticBinding struct {
	pvc *v1.PersistentVolumeClaim
	pv  *v1.PersistentVolume
}

// provisioning is a delayed claim to be provisioned on the node, with the
// CSIStorageCapacity that had room for it (nil when capacity is not tracked).
type provisioning struct {
	pvc      *v1.PersistentVolumeClaim
	capacity *storagev1.CSIStorageCapacity
}

// nodeVolumes is what binding the pod's delayed claims on one node takes.
type nodeVolumes struct {
	static    []staticBinding
	provision []provisioning
}

// scorable reports whether Score has anything to weigh on the node.
func (nv *nodeVolumes) scorable() bool {
	if len(nv.static) > 0 {
		return true
	}
	for _, p := range nv.provision {
		if p.capacity != nil {
			return true
		}
	}
	return false
}

// verdict collects why a node does not suit the pod's claims.
type verdict struct {
	nodeConflict, bindConflict, noSpace, pvMissing bool
}

func (v verdict) ok() bool { return !v.nodeConflict && !v.bindConflict && !v.noSpace && !v.pvMissing }

// reasons lists the failures in upstream's order.
func (v verdict) reasons() []string {
	var out []string
	if v.nodeConflict {
		out = append(out, ErrReasonNodeConflict)
	}
	if v.bindConflict {
		out = append(out, ErrReasonBindConflict)
	}
	if v.noSpace {
		out = append(out, ErrReasonNotEnoughSpace)
	}
	if v.pvMissing {
		out = append(out, ErrReasonPVNotExist)
	}
	return out
}

// checkBound checks the bound claims' PVs against the node. A missing PV
// ends the check; a conflict does not stop the delayed claims being checked.
func checkBound(bound []boundClaim, node *v1.Node) verdict {
	for i := range bound {
		if bound[i].affinity == nil {
			return verdict{pvMissing: true}
		}
		if !bound[i].affinity.matches(node.Labels) {
			return verdict{nodeConflict: true}
		}
	}
	return verdict{}
}

// findVolumes decides how the delayed claims would bind on the node: each
// takes the smallest fitting available PV not taken by an earlier claim of
// the pod, else is provisioned if its class and the node's storage allow.
func (pl *VolumeBinding) findVolumes(logger logr.Logger, pc *podClaims, node *v1.Node, v *verdict) (*nodeVolumes, error) {
	nv := &nodeVolumes{}
	var toProvision []*v1.PersistentVolumeClaim
	for _, pvc := range pc.delayed {
		selected, ok := pvc.Annotations[volume.AnnSelectedNode]
		if ok && selected != node.Name {
			// Provisioning already started for another node.
			v.bindConflict = true
			return nil, nil
		}
	}
	for i, pvc := range pc.delayed {
		c := pc.candidates[i]
		if c == nil {
			toProvision = append(toProvision, pvc)
			continue
		}
		pv := c.match(node.Labels, nv.static)
		if pv == nil {
			v.bindConflict = true
			toProvision = append(toProvision, pvc)
			continue
		}
		nv.static = append(nv.static, staticBinding{pvc: pvc, pv: pv})
	}
	if len(toProvision) == 0 {
		return nv, nil
	}
	// Provisioning decides alone whether the unmatched claims are satisfied.
	v.bindConflict = false
	for _, pvc := range toProvision {
		className := volume.GetPersistentVolumeClaimClass(pvc)
		if className == "" {
			return nil, fmt.Errorf("no class for claim %s/%s", pvc.Namespace, pvc.Name)
		}
		class, err := pl.classes.Get(className)
		if err != nil {
			return nil, fmt.Errorf("failed to find storage class %q: %w", className, err)
		}
		if class.Provisioner == "" || class.Provisioner == volume.NotSupportedProvisioner {
			logger.V(5).Info("storage class cannot provision", "storageClass", className, "pvc", klog.KObj(pvc))
			v.bindConflict = true
			return nil, nil
		}
		if !topologyAllows(class.AllowedTopologies, node.Labels) {
			logger.V(5).Info("node outside the class's allowed topologies", "node", klog.KObj(node), "pvc", klog.KObj(pvc))
			v.bindConflict = true
			return nil, nil
		}
		room, capacity, err := pl.hasCapacity(class, pvc, node)
		if err != nil {
			return nil, err
		}
		if !room {
			logger.V(5).Info("no reachable storage capacity for claim", "node", klog.KObj(node), "pvc", klog.KObj(pvc), "storageClass", className)
			v.noSpace = true
			return nil, nil
		}
		nv.provision = append(nv.provision, provisioning{pvc: pvc, capacity: capacity})
	}
	return nv, nil
}

// hasCapacity reports whether a new volume for the claim fits in some
// CSIStorageCapacity of the class that the node can reach. Capacity is only
// checked for CSI drivers that opt in with storageCapacity: true.
func (pl *VolumeBinding) hasCapacity(class *storagev1.StorageClass, pvc *v1.PersistentVolumeClaim, node *v1.Node) (bool, *storagev1.CSIStorageCapacity, error) {
	size, ok := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	if !ok {
		return true, nil, nil
	}
	driver, err := pl.drivers.Get(class.Provisioner)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil, nil
		}
		return false, nil, fmt.Errorf("reading CSIDriver %q: %w", class.Provisioner, err)
	}
	if driver.Spec.StorageCapacity == nil || !*driver.Spec.StorageCapacity {
		return true, nil, nil
	}
	capacities, err := pl.capacities.List(labels.Everything())
	if err != nil {
		return false, nil, fmt.Errorf("listing CSIStorageCapacities: %w", err)
	}
	bytes := size.Value()
	for _, c := range capacities {
		if c.StorageClassName != class.Name {
			continue
		}
		if limit := volumeLimit(c); limit == nil || limit.Value() < bytes {
			continue
		}
		if reachable(c, node) {
			return true, c, nil
		}
	}
	return false, nil, nil
}

// volumeLimit is the largest volume a capacity admits: maximumVolumeSize
// when reported, else the capacity.
func volumeLimit(c *storagev1.CSIStorageCapacity) *resource.Quantity {
	if c.MaximumVolumeSize != nil {
		return c.MaximumVolumeSize
	}
	return c.Capacity
}

// reachable reports whether the node is in the capacity's node topology.
func reachable(c *storagev1.CSIStorageCapacity, node *v1.Node) bool {
	if c.NodeTopology == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(c.NodeTopology)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(node.Labels))
}
