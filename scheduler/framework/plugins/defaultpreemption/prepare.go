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

package defaultpreemption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// preemptor is who takes the victims' room, as the victims' condition and
// event name it: a pod, or a PodGroup for its members.
type preemptor struct {
	// kind is "pod", "podgroup" or "compositepodgroup".
	kind string
	uid  types.UID
	// schedulerName is the preemptor's (its members') scheduler.
	schedulerName string
	// obj is the object the victims' Preempted events relate to.
	obj runtime.Object
}

// podPreemptor is a pod preempting for itself.
func podPreemptor(pod *v1.Pod) preemptor {
	return preemptor{kind: "pod", uid: pod.UID, schedulerName: pod.Spec.SchedulerName, obj: pod}
}

// groupPreemptor is a PodGroup, or the CompositePodGroup at the root of a
// hierarchy, preempting for its members.
func groupPreemptor(group *framework.GroupNode, members []*v1.Pod) preemptor {
	var p preemptor
	if group.Composite != nil {
		p = preemptor{kind: "compositepodgroup", uid: group.Composite.UID, obj: group.Composite}
	} else {
		p = preemptor{kind: "podgroup", uid: group.PodGroup.UID, obj: group.PodGroup}
	}
	if len(members) > 0 {
		p.schedulerName = members[0].Spec.SchedulerName
	}
	return p
}

// prepare carries out the chosen preemption within the cycle: each victim gets the
// DisruptionTarget condition and is deleted through the API (a victim held
// at Permit is rejected in memory instead), and pods of lower priority than
// the preemptor lose their nomination to the node. It returns once the
// victims' deletions are accepted; the nominations are cleared best-effort.
func (p *DefaultPreemption) prepare(ctx context.Context, c *candidate, pod *v1.Pod) error {
	if err := p.evict(ctx, c.node, c.victims, podPreemptor(pod)); err != nil {
		return err
	}
	if err := p.clearLowerNominations(ctx, c.node, corev1helpers.PodPriority(pod)); err != nil {
		klog.FromContext(ctx).Error(err, "Clearing the nominations of lower-priority pods", "node", klog.KRef("", c.node))
	}
	return nil
}

// evict preempts the victims in parallel and returns once their deletions
// are accepted; node is where the preemptor makes room, as the victims'
// events name it.
func (p *DefaultPreemption) evict(ctx context.Context, node string, victims []*v1.Pod, who preemptor) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu   sync.Mutex
		errs []error
	)
	p.parallelizer.Until(ctx, len(victims), func(i int) {
		if err := p.preemptVictim(ctx, node, who, victims[i]); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			cancel()
		}
	}, Name)
	return errors.Join(errs...)
}

// preemptVictim evicts one victim. A victim already being deleted, or gone,
// needs nothing more.
func (p *DefaultPreemption) preemptVictim(ctx context.Context, node string, who preemptor, victim *v1.Pod) error {
	logger := klog.FromContext(ctx)
	if victim.DeletionTimestamp != nil {
		logger.V(2).Info("Victim is already being deleted", "victim", klog.KObj(victim), "node", klog.KRef("", node))
		return nil
	}
	msg := fmt.Sprintf("Preempted by %s %v on node %v", who.kind, who.uid, node)
	if wp := p.handle.GetWaitingPod(victim.UID); wp != nil {
		wp.Reject(Name, "preempted")
		msg += " (in kube-scheduler memory)."
		logger.V(2).Info("Preempted a pod waiting at Permit", "victim", klog.KObj(victim), "node", klog.KRef("", node))
	} else {
		gone, err := p.deleteVictim(ctx, who, victim)
		if err != nil {
			return err
		}
		if gone {
			logger.V(2).Info("Victim is already deleted", "victim", klog.KObj(victim), "node", klog.KRef("", node))
			return nil
		}
		logger.V(2).Info("Preempted a victim", "victim", klog.KObj(victim), "node", klog.KRef("", node))
	}
	if r := p.handle.EventRecorder(); r != nil {
		r.Eventf(victim, who.obj, v1.EventTypeNormal, "Preempted", "Preempting", msg)
	}
	return nil
}

// deleteVictim marks the victim with the DisruptionTarget condition and
// deletes it, with its UID as a precondition. It reports whether the victim
// was already gone.
func (p *DefaultPreemption) deleteVictim(ctx context.Context, who preemptor, victim *v1.Pod) (bool, error) {
	pods := p.handle.ClientSet().CoreV1().Pods(victim.Namespace)
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": victim.UID},
		"status": map[string]any{"conditions": []v1.PodCondition{{
			Type:               v1.DisruptionTarget,
			Status:             v1.ConditionTrue,
			ObservedGeneration: victim.Generation,
			Reason:             v1.PodReasonPreemptionByScheduler,
			Message:            fmt.Sprintf("%s: preempting to accommodate a higher priority %s", who.schedulerName, who.kind),
			LastTransitionTime: metav1.NewTime(p.clock.Now()),
		}}},
	})
	if err != nil {
		return false, fmt.Errorf("building the DisruptionTarget patch of %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	if _, err := pods.Patch(ctx, victim.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return true, nil
		}
		return false, fmt.Errorf("adding the DisruptionTarget condition to %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	err = pods.Delete(ctx, victim.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &victim.UID}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("deleting the victim %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	return false, nil
}

// clearLowerNominations removes nominatedNodeName from the pods nominated
// to the node with a priority below the preemptor's: the room they were
// promised there now goes to the preemptor.
func (p *DefaultPreemption) clearLowerNominations(ctx context.Context, node string, priority int32) error {
	var errs []error
	for _, pi := range p.handle.NominatedPodsForNode(node) {
		pod := pi.Pod
		if corev1helpers.PodPriority(pod) >= priority || pod.Status.NominatedNodeName == "" {
			continue
		}
		patch := []byte(fmt.Sprintf(`{"metadata":{"uid":%q},"status":{"nominatedNodeName":null}}`, pod.UID))
		_, err := p.handle.ClientSet().CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("clearing the nomination of %s/%s: %w", pod.Namespace, pod.Name, err))
		}
	}
	return errors.Join(errs...)
}
