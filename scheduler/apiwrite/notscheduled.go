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

package apiwrite

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// NotScheduled is what a failed scheduling attempt writes on its pod: the
// PodScheduled=False condition and, with Nominate, the nominated node.
type NotScheduled struct {
	// Reason and Message are the condition's.
	Reason, Message string
	// NominatedNode becomes status.nominatedNodeName when Nominate is set
	// ("" clears it).
	NominatedNode string
	Nominate      bool
	// Published is a nomination this scheduler wrote that the pod's copy
	// may not show yet.
	Published string
}

// SendNotScheduled sends the patch that makes the pod say ns, unless it
// already says exactly that; now stamps a condition that changes status.
// Like Send, it does not wait for the apiserver.
func (sp *StatusPatcher) SendNotScheduled(ctx context.Context, pod *v1.Pod, ns NotScheduled, now time.Time) {
	current := pod.Status.NominatedNodeName
	if ns.Published != "" {
		current = ns.Published
	}
	if !notScheduledNeedsUpdate(pod, ns.Reason, ns.Message) && (!ns.Nominate || current == ns.NominatedNode) {
		return
	}
	patch, err := notScheduledPatch(pod, ns.Reason, ns.Message, ns.NominatedNode, ns.Nominate, metav1.NewTime(now))
	if err != nil {
		klog.FromContext(ctx).Error(err, "Building the PodScheduled patch")
		return
	}
	sp.Send(ctx, pod, patch)
}

// notScheduledNeedsUpdate reports whether the pod's PodScheduled condition
// differs from False/reason/msg.
func notScheduledNeedsUpdate(pod *v1.Pod, reason, msg string) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Status != v1.ConditionFalse || c.Reason != reason || c.Message != msg
		}
	}
	return true
}

// notScheduledPatch builds a strategic-merge patch of the pod's status that
// sets the PodScheduled condition (merged by type) and, if asked, the
// nominated node. The pod's UID is a precondition, so a pod recreated under
// the same name is left alone.
func notScheduledPatch(pod *v1.Pod, reason, msg, nominatedNode string, nominate bool, now metav1.Time) ([]byte, error) {
	transition := now
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
			transition = c.LastTransitionTime
		}
	}
	status := map[string]any{
		"conditions": []v1.PodCondition{{
			Type:               v1.PodScheduled,
			Status:             v1.ConditionFalse,
			Reason:             reason,
			Message:            msg,
			LastTransitionTime: transition,
			LastProbeTime:      metav1.Time{},
		}},
	}
	if nominate {
		status["nominatedNodeName"] = nominatedNode
	}
	patch := map[string]any{
		"metadata": map[string]any{"uid": pod.UID},
		"status":   status,
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("marshalling the status patch of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return b, nil
}

// PublishNomination writes node as the pod's status.nominatedNodeName
// before its binding waits (at Permit, or in a PreBind with work), as
// kube-scheduler does since v1.35: the cluster autoscaler, Kueue or a
// second scheduler then see where the pod is going instead of a pending
// pod with no node. The write is best effort and synchronous.
func PublishNomination(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, node string) {
	if pod.Status.NominatedNodeName == node {
		return
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": pod.UID},
		"status":   map[string]any{"nominatedNodeName": node},
	})
	if err == nil {
		_, err = client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	}
	if err != nil {
		klog.FromContext(ctx).Error(err, "Publishing the pod's nominated node before its binding waits", "node", klog.KRef("", node))
	}
}
