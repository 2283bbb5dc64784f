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
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/profile"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// recordingHost is a real scheduler that counts compiles and remembers what it serves.
type recordingHost struct {
	*scheduler.Scheduler
	compiles int
	removed  []string
	// foreign stands in for the scheduler's record of other schedulers' bindings.
	foreign map[string]scheduler.ForeignBindings
}

func (h *recordingHost) ForeignBindings(name string) (scheduler.ForeignBindings, bool) {
	fb, ok := h.foreign[name]
	return fb, ok
}

func (h *recordingHost) CompileProfile(ctx context.Context, name string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error) {
	h.compiles++
	return h.Scheduler.CompileProfile(ctx, name, spec, opts...)
}

func (h *recordingHost) RemoveProfile(ctx context.Context, name string) {
	h.removed = append(h.removed, name)
	h.Scheduler.RemoveProfile(ctx, name)
}

// rig is a ProfileReconciler and a PluginWeightReconciler on a fake client.
type rig struct {
	t      *testing.T
	ctx    context.Context
	client client.Client
	host   *recordingHost
	events *events.FakeRecorder
	clock  *clocktesting.FakePassiveClock
	pr     *ProfileReconciler
	wr     *PluginWeightReconciler
}

func newRig(t *testing.T, objs ...client.Object) *rig {
	t.Helper()
	ctx := log.IntoContext(context.Background(), logr.Discard())
	scheme := k8sruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fakeclient.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&v1alpha1.SchedulingProfile{}, &v1alpha1.PluginWeight{}).Build()
	s, err := scheduler.New(ctx, fake.NewClientset(), scheduler.WithSeed(1), scheduler.WithRegistry(runtime.Registry(plugins.NewInTreeRegistry())))
	if err != nil {
		t.Fatal(err)
	}
	host := &recordingHost{Scheduler: s}
	rec := events.NewFakeRecorder(100)
	clk := clocktesting.NewFakePassiveClock(t0)
	return &rig{t: t, ctx: ctx, client: c, host: host, events: rec, clock: clk,
		pr: NewProfileReconciler(c, host, rec, clk), wr: NewPluginWeightReconciler(c, clk)}
}

func (r *rig) reconcileProfile(name string) {
	r.t.Helper()
	if _, err := r.pr.Reconcile(r.ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: name}}); err != nil {
		r.t.Fatalf("reconciling profile %s: %v", name, err)
	}
}

func (r *rig) reconcileWeight(name string) {
	r.t.Helper()
	if _, err := r.wr.Reconcile(r.ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: name}}); err != nil {
		r.t.Fatalf("reconciling weight %s: %v", name, err)
	}
}

func (r *rig) profile(name string) *v1alpha1.SchedulingProfile {
	r.t.Helper()
	var p v1alpha1.SchedulingProfile
	if err := r.client.Get(r.ctx, client.ObjectKey{Name: name}, &p); err != nil {
		r.t.Fatal(err)
	}
	return &p
}

func (r *rig) weight(name string) *v1alpha1.PluginWeight {
	r.t.Helper()
	var w v1alpha1.PluginWeight
	if err := r.client.Get(r.ctx, client.ObjectKey{Name: name}, &w); err != nil {
		r.t.Fatal(err)
	}
	return &w
}

// drainEvents returns the events recorded since the last call.
func (r *rig) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-r.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// expectCondition checks one condition of a profile.
func expectCondition(t *testing.T, p *v1alpha1.SchedulingProfile, typ string, status metav1.ConditionStatus, reason, msgPart string) {
	t.Helper()
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, msgPart) {
		t.Errorf("%s of %s = %+v, want %s/%s containing %q", typ, p.Name, c, status, reason, msgPart)
	}
}

func TestProfileLifecycle(t *testing.T) {
	r := newRig(t, st.Profile("pack").Created(t0).SchedulerName("sched").Obj())
	r.reconcileProfile("pack")

	live := r.host.Profile("sched")
	if live == nil || live.Source != "pack" || live.Generation != 1 {
		t.Fatalf("live profile = %+v", live)
	}
	p := r.profile("pack")
	expectCondition(t, p, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive, "generation 1 is live")
	if p.Status.ActiveGeneration != 1 || p.Status.PluginCount == 0 || p.Status.SchedulerName != "sched" {
		t.Errorf("status = %+v", p.Status)
	}
	if ev := r.drainEvents(); !slices.Equal(ev, []string{"Normal ProfileActivated generation 1 is live for schedulerName sched"}) {
		t.Errorf("events = %q", ev)
	}

	// Nothing changed: no compile, no status write, no event.
	rv := p.ResourceVersion
	r.reconcileProfile("pack")
	if r.host.compiles != 1 || r.profile("pack").ResourceVersion != rv || len(r.drainEvents()) != 0 {
		t.Errorf("a no-op reconcile compiled %d times, resourceVersion %s → %s", r.host.compiles, rv, r.profile("pack").ResourceVersion)
	}

	// An invalid update keeps generation 1 live.
	p = r.profile("pack")
	p.Generation = 2
	p.Spec.Plugins = &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}
	if err := r.client.Update(r.ctx, p); err != nil {
		t.Fatal(err)
	}
	r.reconcileProfile("pack")
	p = r.profile("pack")
	expectCondition(t, p, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonInvalid, "generation 2 is invalid: ")
	expectCondition(t, p, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonInvalid, `"NoSuchPlugin"`)
	expectCondition(t, p, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonInvalid, "generation 1 stays live")
	if p.Status.ObservedGeneration != 2 || p.Status.ActiveGeneration != 1 {
		t.Errorf("observed %d active %d", p.Status.ObservedGeneration, p.Status.ActiveGeneration)
	}
	if live := r.host.Profile("sched"); live.Generation != 1 {
		t.Errorf("live generation = %d after an invalid update", live.Generation)
	}
	if ev := r.drainEvents(); len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning InvalidProfile generation 2 is invalid") {
		t.Errorf("events = %q", ev)
	}
	// A retry of the same invalid generation warns no more.
	r.reconcileProfile("pack")
	if ev := r.drainEvents(); len(ev) != 0 {
		t.Errorf("repeated events = %q", ev)
	}

	// Deleting the profile removes it from the scheduler.
	if err := r.client.Delete(r.ctx, p); err != nil {
		t.Fatal(err)
	}
	r.reconcileProfile("pack")
	if r.host.Profile("sched") != nil || !slices.Equal(r.host.removed, []string{"sched"}) {
		t.Errorf("after delete: live %v, removed %v", r.host.Profile("sched"), r.host.removed)
	}
}

func TestProfileConflict(t *testing.T) {
	r := newRig(t,
		st.Profile("old").Created(t0).Created(minutes(1)).SchedulerName("sched").Obj(),
		st.Profile("new").Created(t0).Created(minutes(2)).SchedulerName("sched").Obj(),
	)
	r.reconcileProfile("new")
	r.reconcileProfile("old")

	if live := r.host.Profile("sched"); live == nil || live.Source != "old" {
		t.Fatalf("live = %+v, want old", live)
	}
	newer := r.profile("new")
	expectCondition(t, newer, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonConflict,
		"schedulerName sched is already served by SchedulingProfile old")
	if newer.Status.ActiveGeneration != 0 {
		t.Errorf("a conflicting profile reports active generation %d", newer.Status.ActiveGeneration)
	}
	if ev := r.drainEvents(); !slices.Contains(ev, "Warning Conflict schedulerName sched is already served by SchedulingProfile old") {
		t.Errorf("events = %q", ev)
	}

	// The older goes away: the newer takes over.
	if err := r.client.Delete(r.ctx, r.profile("old")); err != nil {
		t.Fatal(err)
	}
	r.reconcileProfile("old")
	r.reconcileProfile("new")
	if live := r.host.Profile("sched"); live == nil || live.Source != "new" {
		t.Fatalf("live = %+v, want new", live)
	}
	expectCondition(t, r.profile("new"), v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive, "")

	// The other order: the contender reconciles first, then the deletion is
	// seen; the contender's install survives.
	r2 := newRig(t,
		st.Profile("old").Created(t0).Created(minutes(1)).SchedulerName("sched").Obj(),
		st.Profile("new").Created(t0).Created(minutes(2)).SchedulerName("sched").Obj(),
	)
	r2.reconcileProfile("old")
	r2.reconcileProfile("new")
	if err := r2.client.Delete(r2.ctx, r2.profile("old")); err != nil {
		t.Fatal(err)
	}
	r2.reconcileProfile("new")
	r2.reconcileProfile("old")
	if live := r2.host.Profile("sched"); live == nil || live.Source != "new" || len(r2.host.removed) != 0 {
		t.Errorf("live = %+v, removed %v", live, r2.host.removed)
	}
}

func TestPluginWeightsReachTheProfile(t *testing.T) {
	r := newRig(t,
		st.Profile("pack").Created(t0).Label("team", "a").Obj(),
		st.PluginWeight("old", "NodeResourcesFit", 7).Created(t0).Created(minutes(1)).ProfileSelector(st.Selector("team", "a")).Obj(),
		st.PluginWeight("new", "NodeResourcesFit", 9).Created(t0).Created(minutes(2)).Profile("pack").Obj(),
		st.PluginWeight("filter-only", "NodeName", 5).Created(t0).Created(minutes(3)).Profile("pack").Obj(),
		st.PluginWeight("orphan", "NodeResourcesFit", 5).Created(t0).Profile("missing").Obj(),
	)
	r.reconcileProfile("pack")
	p := r.profile("pack")
	var fit, nodeName *v1alpha1.EffectivePlugin
	for i := range p.Status.EffectivePlugins {
		switch ep := &p.Status.EffectivePlugins[i]; ep.Name {
		case "NodeResourcesFit":
			fit = ep
		case "NodeName":
			nodeName = ep
		}
	}
	if fit == nil || fit.Weight != 7 || fit.WeightSource != v1alpha1.WeightSourcePluginWeight || fit.PluginWeight != "old" {
		t.Errorf("NodeResourcesFit = %+v, want weight 7 from PluginWeight old", fit)
	}
	if nodeName == nil || nodeName.Weight != 0 || nodeName.WeightSource != "" {
		t.Errorf("NodeName = %+v, want no weight", nodeName)
	}

	for _, w := range []string{"old", "new", "filter-only", "orphan"} {
		r.reconcileWeight(w)
	}
	tests := []struct {
		weight, reason, msgPart string
		applied                 []string
	}{
		{"old", ReasonApplied, "NodeResourcesFit has weight 7 in SchedulingProfile pack", []string{"pack"}},
		{"new", v1alpha1.ReasonConflict, "PluginWeight old, which is older, already sets NodeResourcesFit in SchedulingProfile pack", nil},
		{"filter-only", ReasonPluginNotScoring, "plugin NodeName does not score in SchedulingProfile pack", nil},
		{"orphan", ReasonNoMatchingProfile, "SchedulingProfile missing does not exist", nil},
	}
	for _, tt := range tests {
		w := r.weight(tt.weight)
		c := meta.FindStatusCondition(w.Status.Conditions, v1alpha1.ConditionApplied)
		if c == nil || c.Reason != tt.reason || !strings.Contains(c.Message, tt.msgPart) {
			t.Errorf("Applied of %s = %+v, want %s %q", tt.weight, c, tt.reason, tt.msgPart)
		}
		if !slices.Equal(w.Status.AppliedTo, tt.applied) {
			t.Errorf("appliedTo of %s = %v, want %v", tt.weight, w.Status.AppliedTo, tt.applied)
		}
	}

	// The winner leaves: the next one takes effect after a recompile.
	if err := r.client.Delete(r.ctx, r.weight("old")); err != nil {
		t.Fatal(err)
	}
	compiles := r.host.compiles
	r.reconcileProfile("pack")
	if r.host.compiles != compiles+1 {
		t.Errorf("a weight change did not recompile")
	}
	r.reconcileWeight("new")
	if w := r.weight("new"); !slices.Equal(w.Status.AppliedTo, []string{"pack"}) {
		t.Errorf("after the older weight left, new is applied to %v", w.Status.AppliedTo)
	}
	if live := r.host.Profile("pack"); live == nil {
		t.Fatal("pack is not live")
	} else if got := weightOf(live, "NodeResourcesFit"); got != 9 {
		t.Errorf("live NodeResourcesFit weight = %d, want 9", got)
	}
}

func weightOf(p *profile.Profile, plugin string) int32 {
	for _, pi := range p.Framework.ListPlugins() {
		if pi.Name == plugin {
			return pi.Weight
		}
	}
	return -1
}

func TestProfileRecreated(t *testing.T) {
	tests := []struct {
		name        string
		spec        func(*v1alpha1.SchedulingProfile)
		wantLive    bool
		wantRemoved []string
	}{
		{name: "a valid new object replaces the old one without a gap", spec: func(*v1alpha1.SchedulingProfile) {}, wantLive: true},
		{
			name: "an invalid new object takes the old one down",
			spec: func(p *v1alpha1.SchedulingProfile) {
				p.Spec.Plugins = &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}
			},
			wantRemoved: []string{"sched"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, st.Profile("p").Created(t0).SchedulerName("sched").Obj())
			r.reconcileProfile("p")
			if err := r.client.Delete(r.ctx, r.profile("p")); err != nil {
				t.Fatal(err)
			}
			again := st.Profile("p").Created(t0).SchedulerName("sched").Obj()
			again.UID = "uid-p-2"
			tt.spec(again)
			if err := r.client.Create(r.ctx, again); err != nil {
				t.Fatal(err)
			}
			r.reconcileProfile("p")
			if live := r.host.Profile("sched"); (live != nil) != tt.wantLive {
				t.Errorf("live = %v, want live %v", live, tt.wantLive)
			}
			if !slices.Equal(r.host.removed, tt.wantRemoved) {
				t.Errorf("removed = %v, want %v", r.host.removed, tt.wantRemoved)
			}
			if r.host.compiles != 2 {
				t.Errorf("compiles = %d, want 2", r.host.compiles)
			}
		})
	}
}

func TestResyncWaitsForElection(t *testing.T) {
	r := newRig(t, st.Profile("p").Created(t0).SchedulerName("sched").Obj())
	elected := make(chan struct{})
	r.pr.elected = elected
	r.pr.resync = make(chan event.GenericEvent, 1)
	done := make(chan error, 1)
	go func() { done <- r.pr.resyncAll(r.ctx, r.client) }()

	select {
	case ev := <-r.pr.resync:
		t.Fatalf("profile %s resynced before this replica read as the leader", ev.Object.GetName())
	case <-time.After(50 * time.Millisecond):
	}
	close(elected)
	ev := <-r.pr.resync
	if ev.Object.GetName() != "p" {
		t.Errorf("resynced %s, want p", ev.Object.GetName())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestStandbyCompilesButWritesNothing(t *testing.T) {
	r := newRig(t, st.Profile("p").Created(t0).SchedulerName("sched").Obj())
	elected := make(chan struct{})
	r.pr.elected = elected

	r.reconcileProfile("p")
	if live := r.host.Profile("sched"); live == nil {
		t.Fatal("a standby did not compile and install the profile")
	}
	if p := r.profile("p"); len(p.Status.Conditions) != 0 || len(r.drainEvents()) != 0 {
		t.Errorf("a standby wrote status %+v or events", p.Status)
	}

	close(elected)
	r.reconcileProfile("p")
	expectCondition(t, r.profile("p"), v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive, "")
	if r.host.compiles != 1 {
		t.Errorf("the new leader compiled again: %d compiles", r.host.compiles)
	}
}
