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
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/message"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/shadow"
)

// liveProfile is what the scheduler runs for one SchedulingProfile.
type liveProfile struct {
	schedulerName string
	// shadowOf is set for a shadow profile, which serves no schedulerName.
	shadowOf   string
	generation int64
	uid        string
	weights    map[string]WeightAssignment
	plugins    []runtime.PluginInfo
	// usage are the plugins that read what nodes use, and their sources.
	usage []runtime.PluginUsage
	// decisions keeps the profile's last placements when it records them.
	decisions *decisions.Recorder
}

// profileOutcome is what one reconcile found for a profile.
type profileOutcome struct {
	// schedulerName is the name the profile claims.
	schedulerName string
	// servedBy names the older profile that owns schedulerName, on a conflict.
	servedBy string
	// compileErr is why the current generation did not compile.
	compileErr error
	// live is what runs for this profile now, nil when nothing does.
	live *liveProfile
	// shadowOf is the schedulerName a shadow profile shadows.
	shadowOf string
	// shadowStats are the shadow's figures, when the scheduler has them.
	shadowStats *scheduler.ShadowStats
	// foreign is what the scheduler saw of pods of schedulerName bound by
	// another scheduler, nil when it saw none; foreignRecent says the
	// latest is within the quiet period.
	foreign       *scheduler.ForeignBindings
	foreignRecent bool
	// usage is the state of each usage source the live generation's
	// plugins read, in their order; empty when none reads one.
	usage []usageState
}

// usageState is one plugin's usage source and how reading it goes.
type usageState struct {
	runtime.PluginUsage
	// read says a read of the source succeeded once.
	read bool
	// err is why the last read failed, nil once one succeeded after.
	err error
}

// profileStatus computes a profile's status from the outcome of a reconcile.
// Conditions keep their transition time while their status stays.
func profileStatus(p *v1alpha1.SchedulingProfile, out profileOutcome, now metav1.Time) v1alpha1.SchedulingProfileStatus {
	st := v1alpha1.SchedulingProfileStatus{
		ObservedGeneration: p.Generation,
		SchedulerName:      out.schedulerName,
		Conditions:         slices.Clone(p.Status.Conditions),
	}
	if out.shadowOf != "" {
		st.SchedulerName = ""
		st.Shadow = shadowStatus(out.shadowOf, out.shadowStats)
	}
	if out.live != nil {
		st.ActiveGeneration = out.live.generation
		st.PluginCount = int32(len(out.live.plugins))
		st.EffectivePlugins = effectivePlugins(out.live.plugins)
		if r := out.live.decisions; r != nil {
			st.RecentDecisions = recentDecisions(r.Recent(), p.Status.RecentDecisions, r.Size())
		}
	}

	var ready metav1.ConditionStatus
	var reason, msg string
	switch {
	case out.servedBy != "":
		ready, reason = metav1.ConditionFalse, v1alpha1.ReasonConflict
		msg = fmt.Sprintf("schedulerName %s is already served by SchedulingProfile %s", out.schedulerName, out.servedBy)
	case out.compileErr != nil:
		ready, reason = metav1.ConditionFalse, v1alpha1.ReasonInvalid
		outcome := "no generation is live"
		if out.live != nil {
			outcome = fmt.Sprintf("generation %d stays live", out.live.generation)
		}
		// The error is cut, not what stays live.
		head := fmt.Sprintf("generation %d is invalid: ", p.Generation)
		msg = head + message.TruncateTo(out.compileErr.Error(), message.MaxBytes-len(head)-len(outcome)-2) + "; " + outcome
	case out.shadowOf != "":
		ready, reason = metav1.ConditionTrue, v1alpha1.ReasonShadowing
		msg = fmt.Sprintf("generation %d is live as a shadow of schedulerName %s, evaluating %d%% of its scheduling attempts; it binds no pod",
			p.Generation, out.shadowOf, sampleRatePercent(p))
	default:
		ready, reason = metav1.ConditionTrue, v1alpha1.ReasonActive
		msg = fmt.Sprintf("generation %d is live for schedulerName %s", p.Generation, out.schedulerName)
	}
	msg = message.Truncate(msg)
	stalled := metav1.ConditionFalse
	if ready == metav1.ConditionFalse {
		stalled = metav1.ConditionTrue
	}
	set := func(typ string, status metav1.ConditionStatus) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: typ, Status: status, Reason: reason, Message: msg,
			ObservedGeneration: p.Generation, LastTransitionTime: now,
		})
	}
	set(v1alpha1.ConditionReady, ready)
	set(v1alpha1.ConditionStalled, stalled)
	// Every reconcile ends in a final state: compiling is quick and the
	// outcome is known before the status is written.
	set(v1alpha1.ConditionReconciling, metav1.ConditionFalse)
	setSchedulerConflict(&st.Conditions, p.Generation, out, now)
	setUsageAvailable(&st.Conditions, p.Generation, out, now)
	return st
}

// setUsageAvailable sets the UsageAvailable condition of a profile whose
// live generation has plugins reading what nodes use: True once every
// source was read and its last read succeeded, False naming the first
// that failed or was never read. A profile without such plugins has none.
func setUsageAvailable(conds *[]metav1.Condition, generation int64, out profileOutcome, now metav1.Time) {
	if len(out.usage) == 0 {
		meta.RemoveStatusCondition(conds, v1alpha1.ConditionUsageAvailable)
		return
	}
	c := metav1.Condition{
		Type: v1alpha1.ConditionUsageAvailable, ObservedGeneration: generation, LastTransitionTime: now,
		Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonUsageRead,
	}
	var read []string
	for _, u := range out.usage {
		switch {
		case u.err != nil:
			c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ReasonUsageSourceFailing
			c.Message = fmt.Sprintf("%s cannot read %s: %v; until it can, nodes are judged on their pods' requests", u.Plugin, u.Source, u.err)
		case !u.read:
			c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ReasonUsageNotReadYet
			c.Message = fmt.Sprintf("%s has not read %s yet; until it has, nodes are judged on their pods' requests", u.Plugin, u.Source)
		default:
			read = append(read, fmt.Sprintf("%s reads %s", u.Plugin, u.Source))
			continue
		}
		break
	}
	if c.Status == metav1.ConditionTrue {
		c.Message = strings.Join(read, "; ")
	}
	c.Message = message.Truncate(c.Message)
	meta.SetStatusCondition(conds, c)
}

// setSchedulerConflict sets the SchedulerConflict condition: True while
// another scheduler bound a pod of the profile's schedulerName within the
// quiet period, False once it was True and the period passed. A profile
// whose pods no other scheduler bound has no such condition.
func setSchedulerConflict(conds *[]metav1.Condition, generation int64, out profileOutcome, now metav1.Time) {
	c := metav1.Condition{
		Type: v1alpha1.ConditionSchedulerConflict, ObservedGeneration: generation, LastTransitionTime: now,
		Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonNoRecentForeignBindings,
	}
	fb := out.foreign
	switch {
	case fb != nil && out.foreignRecent:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.ReasonPodsBoundByAnotherScheduler
		c.Message = fmt.Sprintf("another scheduler binds pods of schedulerName %s: %d since %s, the latest %s by %s at %s; "+
			"stop the other scheduler serving %s or give this profile another schedulerName (see Berth's docs/coexistence.md)",
			out.schedulerName, fb.Count, stamp(fb.First), fb.Pod, fb.Scheduler, stamp(fb.Last), out.schedulerName)
	case meta.FindStatusCondition(*conds, v1alpha1.ConditionSchedulerConflict) == nil:
		return
	case fb != nil:
		c.Message = fmt.Sprintf("no pod of schedulerName %s bound by another scheduler since %s (%d before, the latest %s by %s)",
			out.schedulerName, stamp(fb.Last), fb.Count, fb.Pod, fb.Scheduler)
	default:
		c.Message = fmt.Sprintf("no pod of schedulerName %s bound by another scheduler since the current leader started", out.schedulerName)
	}
	c.Message = message.Truncate(c.Message)
	meta.SetStatusCondition(conds, c)
}

// stamp formats a time for a condition's message.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// sampleRatePercent is a shadow's sample rate, 100 when unset.
func sampleRatePercent(p *v1alpha1.SchedulingProfile) int32 {
	if r := p.Spec.ShadowSampleRatePercent; r != nil {
		return *r
	}
	return 100
}

// shadowStatus turns a shadow's figures into its status; without figures
// (on a replica that does not schedule, or before the first) all counts are 0.
func shadowStatus(of string, stats *scheduler.ShadowStats) *v1alpha1.ShadowStatus {
	st := &v1alpha1.ShadowStatus{Of: of}
	if stats == nil {
		return st
	}
	since := metav1.NewTime(stats.Since)
	st.Since, st.LiveProfile = &since, stats.LiveProfile
	o := stats.Outcomes
	st.Agreed, st.Disagreed = o[shadow.OutcomeAgreed], o[shadow.OutcomeDisagreed]
	st.ShadowUnschedulable, st.LiveUnschedulable = o[shadow.OutcomeShadowUnschedulable], o[shadow.OutcomeLiveUnschedulable]
	st.Dropped, st.Errors = o[shadow.OutcomeDropped], o[shadow.OutcomeError]
	st.Evaluated = stats.Evaluated()
	if st.Evaluated > 0 {
		st.AgreementPercent = strconv.FormatFloat(float64(st.Agreed)*100/float64(st.Evaluated), 'f', 1, 64)
	}
	for _, pc := range stats.Deciding {
		if len(st.DecidingPlugins) == maxShadowPlugins {
			break
		}
		st.DecidingPlugins = append(st.DecidingPlugins, v1alpha1.ShadowPluginCount{Plugin: pc.Plugin, Disagreements: pc.Count})
	}
	for _, d := range stats.Recent {
		st.RecentDisagreements = append(st.RecentDisagreements, v1alpha1.ShadowDisagreement{
			Pod: d.Pod, LiveNode: d.Decision.LiveNode, ShadowNode: d.Decision.ShadowNode,
			DecidingPlugins: slices.Clone(d.Decision.Deciding), Time: metav1.NewTime(d.Time),
			PodGroup: d.Decision.PodGroup, LivePlacement: d.Decision.LivePlacement, ShadowPlacement: d.Decision.ShadowPlacement,
		})
	}
	return st
}

// recentDecisions merges the decisions this replica recorded, newest
// first, with those the status holds (a previous leader's, or this
// replica's before a restart), and keeps the newest size.
func recentDecisions(recorded []decisions.Decision, written []v1alpha1.SchedulingDecision, size int) []v1alpha1.SchedulingDecision {
	out := make([]v1alpha1.SchedulingDecision, 0, min(size, len(recorded)+len(written)))
	seen := make(map[types.UID]bool, len(recorded))
	for _, d := range recorded {
		if len(out) == size {
			break
		}
		seen[d.UID] = true
		out = append(out, decisionStatus(d))
	}
	older := make([]v1alpha1.SchedulingDecision, 0, len(written))
	for _, d := range written {
		if !seen[d.PodUID] {
			older = append(older, d)
		}
	}
	out = append(out, older...)
	// Newest first; this replica's decisions before the written ones of the same second.
	slices.SortStableFunc(out, func(a, b v1alpha1.SchedulingDecision) int { return b.Time.Compare(a.Time.Time) })
	if len(out) > size {
		out = out[:size]
	}
	return out
}

// decisionStatus turns a recorded decision into its status entry. The time
// is cut to the second, as the API stores it, so that a status read back
// compares equal to the one written.
func decisionStatus(d decisions.Decision) v1alpha1.SchedulingDecision {
	sd := v1alpha1.SchedulingDecision{
		Pod: d.Pod, PodUID: d.UID, Node: d.Node, Generation: d.Generation,
		Time:          metav1.NewTime(d.Time.Truncate(time.Second)),
		FeasibleNodes: int32(d.Feasible), EvaluatedNodes: int32(d.Evaluated),
	}
	for _, n := range d.Nodes {
		sd.Nodes = append(sd.Nodes, v1alpha1.DecisionNode{Node: n.Name, Total: n.TotalScore, Scores: decisionScores(n.Scores)})
	}
	if g := d.Group; g != nil {
		pg := &v1alpha1.DecisionPodGroup{
			Name: g.PodGroup, TopologyKey: g.TopologyKey, Placement: g.Placement,
			PlacementsTried: int32(g.Tried), PlacementsFeasible: int32(g.Feasible),
		}
		for _, p := range g.Placements {
			pg.Placements = append(pg.Placements, v1alpha1.DecisionPlacement{Placement: p.Name, Total: p.TotalScore, Scores: decisionScores(p.Scores)})
		}
		sd.PodGroup = pg
	}
	return sd
}

// decisionScores turns recorded plugin scores into their status entries,
// at most maxDecisionScores.
func decisionScores(scores []framework.PluginScore) []v1alpha1.DecisionScore {
	var out []v1alpha1.DecisionScore
	for _, ps := range scores {
		if len(out) == maxDecisionScores {
			break
		}
		out = append(out, v1alpha1.DecisionScore{Plugin: ps.Name, Score: ps.Score})
	}
	return out
}

// maxDecisionScores bounds a decision node's scores, as the CRD does.
const maxDecisionScores = 32

// maxShadowPlugins bounds status.shadow.decidingPlugins, as the CRD does.
const maxShadowPlugins = 32

// effectivePlugins describes the live plugins and where each weight came from.
func effectivePlugins(plugins []runtime.PluginInfo) []v1alpha1.EffectivePlugin {
	out := make([]v1alpha1.EffectivePlugin, 0, len(plugins))
	for _, pi := range plugins {
		ep := v1alpha1.EffectivePlugin{
			Name:            pi.Name,
			ExtensionPoints: slices.Clone(pi.ExtensionPoints),
			Weight:          pi.Weight,
		}
		switch {
		case pi.Weight == 0:
		case pi.WeightOverride != "":
			ep.WeightSource, ep.PluginWeight = v1alpha1.WeightSourcePluginWeight, pi.WeightOverride
		case pi.WeightFromDefault:
			ep.WeightSource = v1alpha1.WeightSourceDefault
		default:
			ep.WeightSource = v1alpha1.WeightSourceProfile
		}
		out = append(out, ep)
	}
	return out
}
