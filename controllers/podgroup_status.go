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

package controllers

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Condition reasons of the PodGroup controller, one per phase.
const (
	// ReasonAwaitingMembers means fewer than minCount members exist.
	ReasonAwaitingMembers = "AwaitingMembers"
	// ReasonGangScheduling means enough members exist but fewer than minCount are bound.
	ReasonGangScheduling = "Scheduling"
	// ReasonGangScheduled means at least minCount members are bound.
	ReasonGangScheduled = "Scheduled"
	// ReasonGangRunning means at least minCount members run or have succeeded.
	ReasonGangRunning = "Running"
	// ReasonMemberFailed means members failed and too few of the others remain.
	ReasonMemberFailed = "MemberFailed"
)

// memberCounts tallies a gang's member pods.
type memberCounts struct {
	// members are the group's pods that are not being deleted.
	members int32
	// failed are the members in phase Failed.
	failed int32
	// scheduled are the members bound to a node that have not failed.
	scheduled int32
	// running are the members in phase Running.
	running int32
	// succeeded are the members in phase Succeeded.
	succeeded int32
}

// healthy is the number of members that have not failed.
func (c memberCounts) healthy() int32 { return c.members - c.failed }

// countMembers tallies pods, all of which carry the group's label. A pod
// being deleted is leaving the gang and counts for nothing.
func countMembers(pods []corev1.Pod) memberCounts {
	var c memberCounts
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		c.members++
		switch p.Status.Phase {
		case corev1.PodFailed:
			c.failed++
			continue
		case corev1.PodRunning:
			c.running++
		case corev1.PodSucceeded:
			c.succeeded++
		}
		if p.Spec.NodeName != "" {
			c.scheduled++
		}
	}
	return c
}

// podGroupPhase decides a gang's phase from its counts; the first rule that
// holds wins:
//   - Failed: a member failed and the members that have not failed are
//     fewer than minCount (a replacement pod brings the gang back);
//   - Pending: fewer than minCount members that have not failed exist;
//   - Running: at least minCount members run or have succeeded;
//   - Scheduled: at least minCount members are bound;
//   - Scheduling: otherwise.
//
// minCount is the gang's, the deprecated minMember, or 1 for a basic group.
func podGroupPhase(minCount int32, c memberCounts) v1alpha1.PodGroupPhase {
	switch {
	case c.failed > 0 && c.healthy() < minCount:
		return v1alpha1.PodGroupFailed
	case c.healthy() < minCount:
		return v1alpha1.PodGroupPending
	case c.running+c.succeeded >= minCount:
		return v1alpha1.PodGroupRunning
	case c.scheduled >= minCount:
		return v1alpha1.PodGroupScheduled
	default:
		return v1alpha1.PodGroupScheduling
	}
}

// podGroupStatus computes a PodGroup's status from its member pods.
// Conditions keep their transition time while their status stays, so the
// same pods give the same status.
func podGroupStatus(pg *v1alpha1.PodGroup, pods []corev1.Pod, now metav1.Time) v1alpha1.PodGroupStatus {
	c := countMembers(pods)
	minCount := pg.Spec.MinCount()
	phase := podGroupPhase(minCount, c)
	st := v1alpha1.PodGroupStatus{
		ObservedGeneration: pg.Generation,
		Phase:              phase,
		Scheduled:          c.scheduled,
		Running:            c.running,
		Conditions:         slices.Clone(pg.Status.Conditions),
	}

	ready, reconciling, stalled := metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionFalse
	var reason, msg string
	switch phase {
	case v1alpha1.PodGroupFailed:
		stalled, reason = metav1.ConditionTrue, ReasonMemberFailed
		msg = fmt.Sprintf("%d members failed; the %d others are fewer than minCount %d", c.failed, c.healthy(), minCount)
	case v1alpha1.PodGroupPending:
		reconciling, reason = metav1.ConditionTrue, ReasonAwaitingMembers
		msg = fmt.Sprintf("%d of minCount %d members exist", c.healthy(), minCount)
	case v1alpha1.PodGroupScheduling:
		reconciling, reason = metav1.ConditionTrue, ReasonGangScheduling
		msg = fmt.Sprintf("%d of minCount %d members are bound", c.scheduled, minCount)
	case v1alpha1.PodGroupScheduled:
		ready, reason = metav1.ConditionTrue, ReasonGangScheduled
		msg = fmt.Sprintf("%d members are bound (minCount %d), %d running", c.scheduled, minCount, c.running)
	case v1alpha1.PodGroupRunning:
		ready, reason = metav1.ConditionTrue, ReasonGangRunning
		msg = fmt.Sprintf("%d members are running and %d have succeeded (minCount %d)", c.running, c.succeeded, minCount)
	}
	for _, cond := range []struct {
		typ    string
		status metav1.ConditionStatus
	}{
		{v1alpha1.ConditionReady, ready},
		{v1alpha1.ConditionReconciling, reconciling},
		{v1alpha1.ConditionStalled, stalled},
	} {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: cond.typ, Status: cond.status, Reason: reason, Message: msg,
			ObservedGeneration: pg.Generation, LastTransitionTime: now,
		})
	}
	return st
}
