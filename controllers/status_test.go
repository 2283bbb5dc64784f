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
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/message"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/shadow"
)

func TestProfileStatus(t *testing.T) {
	now := metav1.NewTime(t0.Add(time.Hour))
	live3 := &liveProfile{schedulerName: "sched", generation: 3, plugins: []runtime.PluginInfo{
		{Name: "NodeResourcesFit", ExtensionPoints: []string{"PreFilter", "Filter", "Score"}, Weight: 5, WeightOverride: "pw"},
		{Name: "TaintToleration", ExtensionPoints: []string{"Filter", "Score"}, Weight: 3, WeightFromDefault: true},
		{Name: "ImageLocality", ExtensionPoints: []string{"Score"}, Weight: 2},
		{Name: "NodeName", ExtensionPoints: []string{"Filter"}},
	}}
	tests := []struct {
		name           string
		gen            int64
		out            profileOutcome
		wantReady      metav1.ConditionStatus
		wantReason     string
		wantMessage    string
		wantActive     int64
		wantPluginsLen int32
	}{
		{
			name: "live", gen: 3, out: profileOutcome{schedulerName: "sched", live: live3},
			wantReady: metav1.ConditionTrue, wantReason: v1alpha1.ReasonActive,
			wantMessage: "generation 3 is live for schedulerName sched", wantActive: 3, wantPluginsLen: 4,
		},
		{
			name: "invalid update keeps the last good generation", gen: 4,
			out:       profileOutcome{schedulerName: "sched", live: live3, compileErr: errors.New(`unknown plugin "Nope"`)},
			wantReady: metav1.ConditionFalse, wantReason: v1alpha1.ReasonInvalid,
			wantMessage: `generation 4 is invalid: unknown plugin "Nope"; generation 3 stays live`, wantActive: 3, wantPluginsLen: 4,
		},
		{
			name: "invalid from the start", gen: 1,
			out:       profileOutcome{schedulerName: "sched", compileErr: errors.New("bad args")},
			wantReady: metav1.ConditionFalse, wantReason: v1alpha1.ReasonInvalid,
			wantMessage: "generation 1 is invalid: bad args; no generation is live",
		},
		{
			name: "conflict", gen: 2,
			out:       profileOutcome{schedulerName: "sched", servedBy: "older"},
			wantReady: metav1.ConditionFalse, wantReason: v1alpha1.ReasonConflict,
			wantMessage: "schedulerName sched is already served by SchedulingProfile older",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := st.Profile("p").Created(t0).Generation(tt.gen).Obj()
			status := profileStatus(p, tt.out, now)
			if status.ObservedGeneration != tt.gen || status.ActiveGeneration != tt.wantActive || status.PluginCount != tt.wantPluginsLen || status.SchedulerName != "sched" {
				t.Errorf("observed %d active %d plugins %d scheduler %q", status.ObservedGeneration, status.ActiveGeneration, status.PluginCount, status.SchedulerName)
			}
			ready := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionReady)
			stalled := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionStalled)
			reconciling := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionReconciling)
			if ready == nil || stalled == nil || reconciling == nil {
				t.Fatalf("conditions = %+v", status.Conditions)
			}
			if ready.Status != tt.wantReady || ready.Reason != tt.wantReason || ready.Message != tt.wantMessage || ready.ObservedGeneration != tt.gen {
				t.Errorf("Ready = %s/%s %q (gen %d)", ready.Status, ready.Reason, ready.Message, ready.ObservedGeneration)
			}
			if wantStalled := tt.wantReady == metav1.ConditionFalse; (stalled.Status == metav1.ConditionTrue) != wantStalled || stalled.Reason != tt.wantReason {
				t.Errorf("Stalled = %s/%s", stalled.Status, stalled.Reason)
			}
			if reconciling.Status != metav1.ConditionFalse {
				t.Errorf("Reconciling = %s", reconciling.Status)
			}
		})
	}

	t.Run("effective plugins name each weight's source", func(t *testing.T) {
		status := profileStatus(st.Profile("p").Created(t0).Generation(3).Obj(), profileOutcome{schedulerName: "sched", live: live3}, now)
		want := []v1alpha1.EffectivePlugin{
			{Name: "NodeResourcesFit", ExtensionPoints: []string{"PreFilter", "Filter", "Score"}, Weight: 5, WeightSource: v1alpha1.WeightSourcePluginWeight, PluginWeight: "pw"},
			{Name: "TaintToleration", ExtensionPoints: []string{"Filter", "Score"}, Weight: 3, WeightSource: v1alpha1.WeightSourceDefault},
			{Name: "ImageLocality", ExtensionPoints: []string{"Score"}, Weight: 2, WeightSource: v1alpha1.WeightSourceProfile},
			{Name: "NodeName", ExtensionPoints: []string{"Filter"}},
		}
		if !slices.EqualFunc(status.EffectivePlugins, want, func(a, b v1alpha1.EffectivePlugin) bool {
			return a.Name == b.Name && slices.Equal(a.ExtensionPoints, b.ExtensionPoints) && a.Weight == b.Weight && a.WeightSource == b.WeightSource && a.PluginWeight == b.PluginWeight
		}) {
			t.Errorf("effectivePlugins = %+v", status.EffectivePlugins)
		}
	})

	t.Run("a condition keeps its transition time while its status stays", func(t *testing.T) {
		p := st.Profile("p").Created(t0).Generation(3).Obj()
		first := profileStatus(p, profileOutcome{schedulerName: "sched", live: live3}, now)
		p.Status = first
		later := metav1.NewTime(now.Add(time.Hour))
		p.Generation = 4
		again := profileStatus(p, profileOutcome{schedulerName: "sched", live: &liveProfile{generation: 4}}, later)
		if c := meta.FindStatusCondition(again.Conditions, v1alpha1.ConditionReady); !c.LastTransitionTime.Equal(&now) {
			t.Errorf("Ready moved to %v on a stay", c.LastTransitionTime)
		}
		broken := profileStatus(p, profileOutcome{schedulerName: "sched", live: live3, compileErr: errors.New("x")}, later)
		if c := meta.FindStatusCondition(broken.Conditions, v1alpha1.ConditionReady); !c.LastTransitionTime.Equal(&later) {
			t.Errorf("Ready transition = %v, want %v", c.LastTransitionTime, later)
		}
	})

	t.Run("long compile errors are cut", func(t *testing.T) {
		status := profileStatus(st.Profile("p").Created(t0).Obj(), profileOutcome{schedulerName: "s", compileErr: errors.New(strings.Repeat("x", 10000))}, now)
		c := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionReady)
		if len(c.Message) != message.MaxBytes || !strings.HasSuffix(c.Message, "x ...; no generation is live") {
			t.Errorf("message of %d bytes ending %q, want %d ending with what stays live", len(c.Message), c.Message[max(0, len(c.Message)-40):], message.MaxBytes)
		}
	})
}

func TestPluginWeightStatus(t *testing.T) {
	now := metav1.NewTime(t0)
	profiles := map[string]*v1alpha1.SchedulingProfile{
		"pack":    st.Profile("pack").Created(t0).Effective(scoring("Fit", 5, "w"), filtering("NodeName")).Obj(),
		"spread":  st.Profile("spread").Created(t0).Effective(scoring("Fit", 1, "")).Obj(),
		"stale":   st.Profile("stale").Created(t0).Effective(scoring("Fit", 1, "w")).Obj(),
		"dormant": st.Profile("dormant").Created(t0).Obj(),
	}
	w := st.PluginWeight("w", "Fit", 5).Created(t0)
	tests := []struct {
		name        string
		pw          *v1alpha1.PluginWeight
		targets     []WeightTarget
		selectorErr error
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
		wantApplied []string
		// wantReadyReason is Ready's reason when it differs from Applied's.
		wantReadyReason string
		// wantKstatus is what kstatus makes of the status.
		wantKstatus kstatus.Status
	}{
		{
			name: "applied", pw: w.Obj().DeepCopy(), targets: []WeightTarget{{Profile: "pack", Winner: "w"}},
			wantStatus: metav1.ConditionTrue, wantReason: ReasonApplied,
			wantMessage: "Fit has weight 5 in SchedulingProfile pack", wantApplied: []string{"pack"},
			wantKstatus: kstatus.CurrentStatus,
		},
		{
			name: "conflict names the winner and outranks pending", pw: w.Obj().DeepCopy(),
			targets:    []WeightTarget{{Profile: "pack", Winner: "w"}, {Profile: "spread", Winner: "w"}, {Profile: "stale", Winner: "older"}},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ReasonConflict,
			wantMessage: "SchedulingProfile spread has not applied weight 5 yet; PluginWeight older, which is older, already sets Fit in SchedulingProfile stale",
			wantApplied: []string{"pack"},
			wantKstatus: kstatus.FailedStatus,
		},
		{
			name: "a plugin that does not score is reported", pw: st.PluginWeight("w", "NodeName", 5).Created(t0).Obj(),
			targets:    []WeightTarget{{Profile: "pack", Winner: "w"}},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonPluginNotScoring,
			wantMessage: "plugin NodeName does not score in SchedulingProfile pack",
			wantKstatus: kstatus.FailedStatus,
		},
		{
			name: "a plugin absent from the profile is reported", pw: st.PluginWeight("w", "Absent", 5).Created(t0).Obj(),
			targets:    []WeightTarget{{Profile: "pack", Winner: "w"}},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonPluginNotScoring,
			wantMessage: "plugin Absent does not score in SchedulingProfile pack",
			wantKstatus: kstatus.FailedStatus,
		},
		{
			name: "a profile not live is pending", pw: w.Obj().DeepCopy(), targets: []WeightTarget{{Profile: "dormant", Winner: "w"}},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonPending,
			wantMessage: "SchedulingProfile dormant is not live",
			wantKstatus: kstatus.InProgressStatus,
		},
		{
			name: "an old weight value is pending", pw: w.Obj().DeepCopy(), targets: []WeightTarget{{Profile: "stale", Winner: "w"}},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonPending,
			wantMessage: "SchedulingProfile stale has not applied weight 5 yet",
			wantKstatus: kstatus.InProgressStatus,
		},
		{
			name: "no matching profile by reference", pw: st.PluginWeight("w", "Fit", 5).Created(t0).Profile("missing").Obj(),
			wantStatus: metav1.ConditionFalse, wantReason: ReasonNoMatchingProfile,
			wantMessage: "SchedulingProfile missing does not exist",
			wantKstatus: kstatus.FailedStatus, wantReadyReason: ReasonProfileNotFound,
		},
		{
			name: "no matching profile by selector", pw: st.PluginWeight("w", "Fit", 5).Created(t0).ProfileSelector(st.Selector("team", "z")).Obj(),
			wantStatus: metav1.ConditionFalse, wantReason: ReasonNoMatchingProfile,
			wantMessage: "no SchedulingProfile matches profileSelector team=z",
			wantKstatus: kstatus.FailedStatus,
		},
		{
			name: "invalid selector", pw: w.Obj().DeepCopy(), selectorErr: errors.New("profileSelector is invalid: x"),
			wantStatus: metav1.ConditionFalse, wantReason: ReasonNoMatchingProfile,
			wantMessage: "profileSelector is invalid: x",
			wantKstatus: kstatus.FailedStatus,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := pluginWeightStatus(tt.pw, tt.targets, tt.selectorErr, profiles, now)
			c := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionApplied)
			if c == nil {
				t.Fatal("no Applied condition")
			}
			if c.Status != tt.wantStatus || c.Reason != tt.wantReason || c.Message != tt.wantMessage {
				t.Errorf("Applied = %s/%s %q\nwant %s/%s %q", c.Status, c.Reason, c.Message, tt.wantStatus, tt.wantReason, tt.wantMessage)
			}
			readyReason := tt.wantReadyReason
			if readyReason == "" {
				readyReason = tt.wantReason
			}
			ready := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionReady)
			if ready == nil || ready.Status != tt.wantStatus || ready.Reason != readyReason || ready.Message != tt.wantMessage {
				t.Errorf("Ready = %+v\nwant %s/%s %q", ready, tt.wantStatus, readyReason, tt.wantMessage)
			}
			pw := tt.pw.DeepCopy()
			pw.Status = status
			obj, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(pw)
			if err != nil {
				t.Fatal(err)
			}
			res, err := kstatus.Compute(&unstructured.Unstructured{Object: obj})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.wantKstatus {
				t.Errorf("kstatus = %s (%s), want %s", res.Status, res.Message, tt.wantKstatus)
			}
			if !slices.Equal(status.AppliedTo, tt.wantApplied) {
				t.Errorf("appliedTo = %v, want %v", status.AppliedTo, tt.wantApplied)
			}
			if status.ObservedGeneration != tt.pw.Generation {
				t.Errorf("observedGeneration = %d", status.ObservedGeneration)
			}
		})
	}
}

func TestShadowProfileStatus(t *testing.T) {
	now := metav1.NewTime(t0.Add(time.Hour))
	since := metav1.NewTime(t0)
	live := &liveProfile{shadowOf: "sched", generation: 2}
	p := st.Profile("candidate").Created(t0).Generation(2).Obj()
	p.Spec.ShadowOf = "sched"
	tests := []struct {
		name  string
		stats *scheduler.ShadowStats
		want  v1alpha1.ShadowStatus
	}{{
		name: "no figures yet",
		want: v1alpha1.ShadowStatus{Of: "sched"},
	}, {
		name: "figures",
		stats: &scheduler.ShadowStats{Generation: 2, LiveProfile: "default", Stats: shadow.Stats{
			Since: t0,
			Outcomes: map[string]int64{
				shadow.OutcomeAgreed: 5, shadow.OutcomeDisagreed: 2, shadow.OutcomeShadowUnschedulable: 1,
				shadow.OutcomeDropped: 4, shadow.OutcomeError: 0,
			},
			Deciding: []shadow.PluginCount{{Plugin: "NodeResourcesFit", Count: 2}, {Plugin: "NodeAffinity", Count: 1}},
			Recent: []shadow.Disagreement{{Pod: "ns/m0", Time: t0, Decision: shadow.Decision{
				Outcome: shadow.OutcomeDisagreed, PodGroup: "ns/crew", LivePlacement: "r1", ShadowPlacement: "r2", Deciding: []string{"TaintToleration"},
			}}, {Pod: "ns/a", Time: t0, Decision: shadow.Decision{
				Outcome: shadow.OutcomeDisagreed, LiveNode: "n1", ShadowNode: "n2", Deciding: []string{"NodeResourcesFit"},
			}}},
		}},
		want: v1alpha1.ShadowStatus{
			Of: "sched", LiveProfile: "default", Since: &since, Evaluated: 8, Agreed: 5, Disagreed: 2, ShadowUnschedulable: 1,
			Dropped: 4, AgreementPercent: "62.5",
			DecidingPlugins: []v1alpha1.ShadowPluginCount{{Plugin: "NodeResourcesFit", Disagreements: 2}, {Plugin: "NodeAffinity", Disagreements: 1}},
			RecentDisagreements: []v1alpha1.ShadowDisagreement{
				{Pod: "ns/m0", PodGroup: "ns/crew", LivePlacement: "r1", ShadowPlacement: "r2", DecidingPlugins: []string{"TaintToleration"}, Time: since},
				{Pod: "ns/a", LiveNode: "n1", ShadowNode: "n2", DecidingPlugins: []string{"NodeResourcesFit"}, Time: since},
			},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := profileStatus(p, profileOutcome{shadowOf: "sched", live: live, shadowStats: tt.stats}, now)
			if status.SchedulerName != "" || status.ActiveGeneration != 2 {
				t.Errorf("schedulerName %q, active %d; want none, 2", status.SchedulerName, status.ActiveGeneration)
			}
			if diff := cmp.Diff(&tt.want, status.Shadow); diff != "" {
				t.Errorf("shadow (-want +got):\n%s", diff)
			}
			ready := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionReady)
			if ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != v1alpha1.ReasonShadowing ||
				ready.Message != "generation 2 is live as a shadow of schedulerName sched, evaluating 100% of its scheduling attempts; it binds no pod" {
				t.Errorf("Ready = %+v", ready)
			}
		})
	}
}

func TestRecentDecisionsStatus(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s)*time.Second + 300*time.Millisecond) }
	recorded := func(pod string, s int) decisions.Decision {
		return decisions.Decision{Pod: "ns/" + pod, UID: types.UID(pod), Node: "n-" + pod, Generation: 3, Time: at(s), Feasible: 2, Evaluated: 4,
			Nodes: []framework.NodePluginScores{
				{Name: "n-" + pod, TotalScore: 150, Scores: []framework.PluginScore{{Name: "NodeResourcesFit", Score: 100}, {Name: "NodeResourcesBalancedAllocation", Score: 50}}},
				{Name: "other", TotalScore: 90, Scores: []framework.PluginScore{{Name: "NodeResourcesFit", Score: 60}, {Name: "NodeResourcesBalancedAllocation", Score: 30}}},
			}}
	}
	// written is a decision as the API stored it: to the second.
	written := func(pod string, s int) v1alpha1.SchedulingDecision {
		return v1alpha1.SchedulingDecision{Pod: "ns/" + pod, PodUID: types.UID(pod), Node: "n-" + pod, Generation: 2,
			Time: metav1.NewTime(at(s).Truncate(time.Second)), FeasibleNodes: 1, EvaluatedNodes: 4}
	}
	pods := func(ds []v1alpha1.SchedulingDecision) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Pod)
		}
		return out
	}
	tests := []struct {
		name     string
		recorded []decisions.Decision
		written  []v1alpha1.SchedulingDecision
		size     int
		want     []string
	}{
		{name: "none", size: 3},
		{name: "recorded, newest first", size: 3, recorded: []decisions.Decision{recorded("b", 2), recorded("a", 1)}, want: []string{"ns/b", "ns/a"}},
		{name: "a new leader keeps its predecessor's, after its own",
			size: 4, recorded: []decisions.Decision{recorded("d", 9), recorded("c", 8)},
			written: []v1alpha1.SchedulingDecision{written("b", 5), written("a", 4)},
			want:    []string{"ns/d", "ns/c", "ns/b", "ns/a"}},
		{name: "the newest size of both",
			size: 3, recorded: []decisions.Decision{recorded("d", 9), recorded("c", 8)},
			written: []v1alpha1.SchedulingDecision{written("b", 5), written("a", 4)},
			want:    []string{"ns/d", "ns/c", "ns/b"}},
		{name: "a pod both recorded and written appears once",
			size: 5, recorded: []decisions.Decision{recorded("b", 5)},
			written: []v1alpha1.SchedulingDecision{written("b", 5), written("a", 4)},
			want:    []string{"ns/b", "ns/a"}},
		{name: "a smaller size cuts the written ones",
			size: 1, written: []v1alpha1.SchedulingDecision{written("b", 5), written("a", 4)},
			want: []string{"ns/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := recentDecisions(tt.recorded, tt.written, tt.size)
			if diff := cmp.Diff(tt.want, pods(got)); diff != "" {
				t.Errorf("recentDecisions (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a recorded decision as status, to the second", func(t *testing.T) {
		want := v1alpha1.SchedulingDecision{
			Pod: "ns/a", PodUID: "a", Node: "n-a", Generation: 3, Time: metav1.NewTime(t0.Add(time.Second)), FeasibleNodes: 2, EvaluatedNodes: 4,
			Nodes: []v1alpha1.DecisionNode{
				{Node: "n-a", Total: 150, Scores: []v1alpha1.DecisionScore{{Plugin: "NodeResourcesFit", Score: 100}, {Plugin: "NodeResourcesBalancedAllocation", Score: 50}}},
				{Node: "other", Total: 90, Scores: []v1alpha1.DecisionScore{{Plugin: "NodeResourcesFit", Score: 60}, {Plugin: "NodeResourcesBalancedAllocation", Score: 30}}},
			},
		}
		if diff := cmp.Diff(want, decisionStatus(recorded("a", 1))); diff != "" {
			t.Errorf("decisionStatus (-want +got):\n%s", diff)
		}
	})

	t.Run("a group member's decision carries its PodGroup's placement and ranking", func(t *testing.T) {
		d := recorded("a", 1)
		d.Group = &decisions.Group{PodGroup: "ns/crew", TopologyKey: "rack", Placement: "r2", Tried: 3, Feasible: 2,
			Placements: []framework.NodePluginScores{
				{Name: "r2", TotalScore: 100, Scores: []framework.PluginScore{{Name: "PodGroupPodsCount", Score: 100}}},
				{Name: "r1", TotalScore: 50, Scores: []framework.PluginScore{{Name: "PodGroupPodsCount", Score: 50}}},
			}}
		want := &v1alpha1.DecisionPodGroup{Name: "ns/crew", TopologyKey: "rack", Placement: "r2", PlacementsTried: 3, PlacementsFeasible: 2,
			Placements: []v1alpha1.DecisionPlacement{
				{Placement: "r2", Total: 100, Scores: []v1alpha1.DecisionScore{{Plugin: "PodGroupPodsCount", Score: 100}}},
				{Placement: "r1", Total: 50, Scores: []v1alpha1.DecisionScore{{Plugin: "PodGroupPodsCount", Score: 50}}},
			}}
		got := decisionStatus(d)
		if diff := cmp.Diff(want, got.PodGroup); diff != "" {
			t.Errorf("podGroup (-want +got):\n%s", diff)
		}
		if got.Node != "n-a" || len(got.Nodes) != 2 {
			t.Errorf("the member's own node and scores are lost: %+v", got)
		}
	})

	t.Run("profileStatus lists a recording profile's decisions, and none once it stops", func(t *testing.T) {
		p := st.Profile("rec").Created(t0).Generation(3).Obj()
		p.Status.RecentDecisions = []v1alpha1.SchedulingDecision{written("a", 1)}
		r := decisions.NewRecorder(2)
		r.Add(recorded("b", 2))
		status := profileStatus(p, profileOutcome{schedulerName: "rec", live: &liveProfile{schedulerName: "rec", generation: 3, decisions: r}}, metav1.NewTime(t0))
		if diff := cmp.Diff([]string{"ns/b", "ns/a"}, pods(status.RecentDecisions)); diff != "" {
			t.Errorf("recording (-want +got):\n%s", diff)
		}
		status = profileStatus(p, profileOutcome{schedulerName: "rec", live: &liveProfile{schedulerName: "rec", generation: 3}}, metav1.NewTime(t0))
		if status.RecentDecisions != nil {
			t.Errorf("a profile that records nothing lists %v", pods(status.RecentDecisions))
		}
	})
}
