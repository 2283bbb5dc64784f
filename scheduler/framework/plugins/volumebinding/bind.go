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
	"context"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/volume"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// bindVolumeToClaim returns a copy of pv pointing at the claim and whether
// that changed anything.
func bindVolumeToClaim(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolume, bool, error) {
	out, changed, err := volume.GetBindVolumeToClaim(pv, pvc)
	if err != nil {
		return nil, false, fmt.Errorf("binding PV %q to claim %s/%s: %w", pv.Name, pvc.Namespace, pvc.Name, err)
	}
	return out, changed, nil
}

// withSelectedNode returns a copy of the claim annotated for provisioning on the node.
func withSelectedNode(pvc *v1.PersistentVolumeClaim, nodeName string) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	metav1.SetMetaDataAnnotation(&out.ObjectMeta, volume.AnnSelectedNode, nodeName)
	return out
}

// PreBindPreFlight reports Success when PreBind has claims to bind (and
// will wait for them), Skip when all the pod's claims are bound already.
func (pl *VolumeBinding) PreBindPreFlight(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) *framework.Status {
	if s, err := readState(cs); err != nil || !s.preBindHasWork() {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// PreBind writes the reserved decision to the API server — each chosen PV's
// claimRef, each claim to provision's selected-node annotation — and waits
// until the PV controller has bound every such claim, up to the args'
// BindTimeoutSeconds. The PV controller does the binding; the plugin only
// proposes it and watches the informer caches for the outcome. A write
// that fails, a binding the controller undoes, a provisioning that fails
// (the provisioner drops the annotation), a deleted pod and the timeout are
// errors, so the pod is scheduled again.
func (pl *VolumeBinding) PreBind(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	s, err := readState(cs)
	if err != nil || !s.preBindHasWork() {
		return nil
	}
	if s.reserved == nil {
		return framework.AsStatus(fmt.Errorf("binding volumes of pod %s: nothing reserved on node %q", framework.PodKey(pod), nodeName))
	}
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod), "node", nodeName)
	if err := pl.writeBindings(ctx, logger, s.reserved); err != nil {
		return framework.AsStatus(fmt.Errorf("binding volumes of pod %s: %w", framework.PodKey(pod), err))
	}
	if err := pl.waitBound(ctx, logger, pod, nodeName, s.reserved); err != nil {
		return framework.AsStatus(fmt.Errorf("binding volumes: %w", err))
	}
	logger.V(2).Info("all claims of the pod are bound")
	return nil
}

// writeBindings makes the API updates in place of the assumed objects,
// keeping the server's replies for the wait. Assumed objects not written
// are reverted on failure.
func (pl *VolumeBinding) writeBindings(ctx context.Context, logger logr.Logger, nv *nodeVolumes) error {
	written := 0
	for i := range nv.static {
		b := &nv.static[i]
		pv, err := pl.client.CoreV1().PersistentVolumes().Update(ctx, b.pv, metav1.UpdateOptions{})
		if err != nil {
			pl.revert(&nodeVolumes{static: nv.static[i:], provision: nv.provision})
			return fmt.Errorf("updating PV %q with claim %s/%s: %w", b.pv.Name, b.pvc.Namespace, b.pvc.Name, err)
		}
		logger.V(2).Info("set the PV's claimRef; waiting for the PV controller", "pv", klog.KObj(pv), "pvc", klog.KObj(b.pvc))
		b.pv = pv
		written++
	}
	for i := range nv.provision {
		p := &nv.provision[i]
		pvc, err := pl.client.CoreV1().PersistentVolumeClaims(p.pvc.Namespace).Update(ctx, p.pvc, metav1.UpdateOptions{})
		if err != nil {
			pl.revert(&nodeVolumes{provision: nv.provision[i:]})
			return fmt.Errorf("selecting node for claim %s/%s: %w", p.pvc.Namespace, p.pvc.Name, err)
		}
		logger.V(2).Info("set the claim's selected node; waiting for provisioning", "pvc", klog.KObj(pvc))
		p.pvc = pvc
	}
	return nil
}

// waitBound checks the informer caches now and then every poll interval
// until every claim is bound, a check fails, the timeout passes or ctx ends.
func (pl *VolumeBinding) waitBound(ctx context.Context, logger logr.Logger, pod *v1.Pod, nodeName string, nv *nodeVolumes) error {
	deadline := pl.clock.Now().Add(pl.bindTimeout)
	ticker := pl.clock.NewTicker(pl.pollInterval)
	defer ticker.Stop()
	for {
		done, err := pl.bindingsDone(logger, pod, nodeName, nv)
		if err != nil || done {
			return err
		}
		if !pl.clock.Now().Before(deadline) {
			return context.DeadlineExceeded
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C():
		}
	}
}

// bindingsDone reports whether the PV controller has bound every claim the
// pod's PreBind touched. It reads the informers' versions, never assumed
// ones, and waits for the informers to catch up with PreBind's own writes.
func (pl *VolumeBinding) bindingsDone(logger logr.Logger, pod *v1.Pod, nodeName string, nv *nodeVolumes) (bool, error) {
	node, err := pl.nodes.Get(nodeName)
	if err != nil {
		return false, fmt.Errorf("failed to get node %q: %w", nodeName, err)
	}
	if _, err := pl.pods.Pods(pod.Namespace).Get(pod.Name); err != nil {
		if apierrors.IsNotFound(err) {
			return false, fmt.Errorf("pod does not exist any more: %w", err)
		}
		logger.Error(err, "reading the pod from the informer")
	}
	for _, b := range nv.static {
		pv, err := pl.pvs.apiObject(b.pv.Name)
		if err != nil {
			return false, fmt.Errorf("failed to check binding: %w", err)
		}
		pvc, err := pl.pvcs.apiObject(objectKey(b.pvc))
		if err != nil {
			return false, fmt.Errorf("failed to check binding: %w", err)
		}
		if newerThan(b.pv.ResourceVersion, pv.ResourceVersion) {
			return false, nil // the informer has not seen our write yet
		}
		if !newPVAffinity(pv).matches(node.Labels) {
			return false, fmt.Errorf("pv %q node affinity doesn't match node %q", pv.Name, nodeName)
		}
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == "" {
			return false, fmt.Errorf("ClaimRef got reset for pv %q", pv.Name)
		}
		if !fullyBound(pvc) {
			return false, nil
		}
	}
	for _, p := range nv.provision {
		pvc, err := pl.pvcs.apiObject(objectKey(p.pvc))
		if err != nil {
			return false, fmt.Errorf("failed to check provisioning pvc: %w", err)
		}
		if newerThan(p.pvc.ResourceVersion, pvc.ResourceVersion) {
			return false, nil
		}
		if pvc.Annotations[volume.AnnSelectedNode] != nodeName {
			// The provisioner removes the annotation when it fails.
			return false, fmt.Errorf("provisioning failed for PVC %q", pvc.Name)
		}
		if pvc.Spec.VolumeName != "" {
			pv, err := pl.pvs.apiObject(pvc.Spec.VolumeName)
			if err != nil {
				if apierrors.IsNotFound(err) {
					return false, nil // the new PV may not have reached the informer
				}
				return false, fmt.Errorf("failed to get pv %q: %w", pvc.Spec.VolumeName, err)
			}
			if !newPVAffinity(pv).matches(node.Labels) {
				return false, fmt.Errorf("pv %q node affinity doesn't match node %q", pv.Name, nodeName)
			}
		}
		if !fullyBound(pvc) {
			return false, nil
		}
	}
	return true, nil
}
