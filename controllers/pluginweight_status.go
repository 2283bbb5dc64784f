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
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/message"
)

// Reasons of a PluginWeight's Applied condition.
const (
	// ReasonApplied means the weight is live in every profile it selects.
	ReasonApplied = "Applied"
	// ReasonPluginNotScoring means the plugin does not score in a selected profile.
	ReasonPluginNotScoring = "PluginNotScoring"
	// ReasonNoMatchingProfile means the weight selects no profile.
	ReasonNoMatchingProfile = "NoMatchingProfile"
	// ReasonPending means a selected profile has not applied the weight yet,
	// for example because it is not live.
	ReasonPending = "Pending"
)

// stalledWeightReasons are the reasons of a weight that cannot take effect
// without a change to it or to another object: its Ready condition is False
// with Stalled True, which kstatus reads as Failed. The other reason of a
// weight not applied, Pending, waits for a profile to go live: Reconciling
// is True and kstatus reads InProgress.
var stalledWeightReasons = map[string]bool{
	v1alpha1.ReasonConflict: true,
	ReasonPluginNotScoring:  true,
	ReasonNoMatchingProfile: true,
	ReasonProfileNotFound:   true,
}

// reasonRank orders the reasons of a weight that is not applied: the one a
// user must act on first comes first.
var reasonRank = map[string]int{
	v1alpha1.ReasonConflict: 0,
	ReasonPluginNotScoring:  1,
	ReasonPending:           2,
}

// pluginWeightStatus computes a PluginWeight's status from where it is
// selected, who wins there, and what each selected profile runs (its status).
func pluginWeightStatus(pw *v1alpha1.PluginWeight, targets []WeightTarget, selectorErr error, profiles map[string]*v1alpha1.SchedulingProfile, now metav1.Time) v1alpha1.PluginWeightStatus {
	st := v1alpha1.PluginWeightStatus{
		ObservedGeneration: pw.Generation,
		Conditions:         slices.Clone(pw.Status.Conditions),
	}
	cond := metav1.Condition{
		Type: v1alpha1.ConditionApplied, Status: metav1.ConditionFalse,
		ObservedGeneration: pw.Generation, LastTransitionTime: now,
	}
	var problems []string
	worst := ""
	for _, t := range targets {
		reason, msg := weightInProfile(pw, t, profiles[t.Profile])
		if reason == ReasonApplied {
			st.AppliedTo = append(st.AppliedTo, t.Profile)
			continue
		}
		problems = append(problems, msg)
		if worst == "" || reasonRank[reason] < reasonRank[worst] {
			worst = reason
		}
	}
	switch {
	case selectorErr != nil:
		cond.Reason, cond.Message = ReasonNoMatchingProfile, selectorErr.Error()
	case len(targets) == 0:
		cond.Reason, cond.Message = ReasonNoMatchingProfile, noMatchMessage(pw)
	case len(problems) == 0:
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonApplied
		cond.Message = fmt.Sprintf("%s has weight %d in SchedulingProfile %s", pw.Spec.Plugin, pw.Spec.Weight, strings.Join(st.AppliedTo, ", "))
	default:
		cond.Reason, cond.Message = worst, strings.Join(problems, "; ")
	}
	cond.Message = message.Truncate(cond.Message)
	meta.SetStatusCondition(&st.Conditions, cond)
	setWeightReadiness(&st, pw, cond)
	return st
}

// setWeightReadiness sets the kstatus conditions Ready, Reconciling and
// Stalled from the Applied condition: Ready is Applied, with reason
// ProfileNotFound rather than NoMatchingProfile when a profileRef names a
// profile that does not exist.
func setWeightReadiness(st *v1alpha1.PluginWeightStatus, pw *v1alpha1.PluginWeight, applied metav1.Condition) {
	reason := applied.Reason
	if reason == ReasonNoMatchingProfile && pw.Spec.ProfileRef != nil {
		reason = ReasonProfileNotFound
	}
	reconciling, stalled := metav1.ConditionFalse, metav1.ConditionFalse
	switch {
	case applied.Status == metav1.ConditionTrue:
	case stalledWeightReasons[reason]:
		stalled = metav1.ConditionTrue
	default:
		reconciling = metav1.ConditionTrue
	}
	for _, c := range []struct {
		typ    string
		status metav1.ConditionStatus
	}{
		{v1alpha1.ConditionReady, applied.Status},
		{v1alpha1.ConditionReconciling, reconciling},
		{v1alpha1.ConditionStalled, stalled},
	} {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: c.typ, Status: c.status, Reason: reason, Message: applied.Message,
			ObservedGeneration: applied.ObservedGeneration, LastTransitionTime: applied.LastTransitionTime,
		})
	}
}

// weightInProfile says whether the weight is live in one selected profile and, if not, why.
func weightInProfile(pw *v1alpha1.PluginWeight, t WeightTarget, p *v1alpha1.SchedulingProfile) (reason, msg string) {
	if t.Winner != pw.Name {
		return v1alpha1.ReasonConflict, fmt.Sprintf("PluginWeight %s, which is older, already sets %s in SchedulingProfile %s", t.Winner, pw.Spec.Plugin, t.Profile)
	}
	if p == nil || p.Status.ActiveGeneration == 0 {
		return ReasonPending, fmt.Sprintf("SchedulingProfile %s is not live", t.Profile)
	}
	for _, ep := range p.Status.EffectivePlugins {
		if ep.Name != pw.Spec.Plugin {
			continue
		}
		if !slices.Contains(ep.ExtensionPoints, "Score") {
			break
		}
		if ep.WeightSource == v1alpha1.WeightSourcePluginWeight && ep.PluginWeight == pw.Name && ep.Weight == pw.Spec.Weight {
			return ReasonApplied, ""
		}
		return ReasonPending, fmt.Sprintf("SchedulingProfile %s has not applied weight %d yet", t.Profile, pw.Spec.Weight)
	}
	return ReasonPluginNotScoring, fmt.Sprintf("plugin %s does not score in SchedulingProfile %s", pw.Spec.Plugin, t.Profile)
}

func noMatchMessage(pw *v1alpha1.PluginWeight) string {
	if pw.Spec.ProfileRef != nil {
		return fmt.Sprintf("SchedulingProfile %s does not exist", pw.Spec.ProfileRef.Name)
	}
	if pw.Spec.ProfileSelector != nil {
		return fmt.Sprintf("no SchedulingProfile matches profileSelector %s", metav1.FormatLabelSelector(pw.Spec.ProfileSelector))
	}
	return "neither profileRef nor profileSelector is set"
}
