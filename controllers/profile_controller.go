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
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/message"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/profile"
)

// Event reasons of the SchedulingProfile controller.
const (
	// EventProfileActivated is a Normal event: a generation went live.
	EventProfileActivated = "ProfileActivated"
	// EventInvalidProfile is a Warning event: a generation did not compile.
	EventInvalidProfile = "InvalidProfile"
	// EventConflict is a Warning event: an older profile serves the schedulerName.
	EventConflict = "Conflict"
	// EventPodsBoundByAnotherScheduler is a Warning event: another scheduler
	// bound pods of the schedulerName the profile serves.
	EventPodsBoundByAnotherScheduler = v1alpha1.ReasonPodsBoundByAnotherScheduler
)

// ProfileReconciler compiles each SchedulingProfile, with the PluginWeights
// that target it, into a live profile of the scheduler and reports the
// outcome in the profile's status. Of two profiles claiming one
// schedulerName the older serves it.
type ProfileReconciler struct {
	client   client.Client
	host     ProfileHost
	recorder events.EventRecorder
	clock    clock.PassiveClock

	// mu guards live and servedBy, the reconciler's memory of what it
	// installed: deleted profiles leave no object to read it from.
	mu sync.Mutex
	// live holds, by profile name, what runs for each profile.
	live map[string]*liveProfile
	// servedBy names, by schedulerName, the profile installed for it.
	servedBy map[string]string

	// ticker and shadowInterval time the flush of the shadows' figures, the
	// recorded decisions and other schedulers' bindings into status.
	ticker         clock.WithTicker
	shadowInterval time.Duration
	// foreignQuiet is how long after another scheduler last bound a pod of
	// a profile's schedulerName its SchedulerConflict condition stays True.
	foreignQuiet time.Duration
	// reportedForeign is, by profile name, how many pods bound by another
	// scheduler the profile's events have reported (guarded by mu).
	reportedForeign map[string]int64

	// elected is closed once this replica leads; nil means it always leads.
	elected <-chan struct{}
	// resync carries every profile to the reconciler when this replica
	// starts leading, so that it writes the status it held back.
	resync chan event.GenericEvent

	// metrics records each profile's readiness, live generation and
	// compile failures; nil records nothing.
	metrics *metrics.Metrics
	// failedGeneration holds, by profile name, the generation that last
	// failed to compile, so that a failure counts once per generation.
	failedGeneration map[string]int64
}

// NewProfileReconciler returns a ProfileReconciler that installs into host.
func NewProfileReconciler(c client.Client, host ProfileHost, recorder events.EventRecorder, clk clock.PassiveClock) *ProfileReconciler {
	return &ProfileReconciler{
		client: c, host: host, recorder: recorder, clock: clk,
		live: make(map[string]*liveProfile), servedBy: make(map[string]string), failedGeneration: make(map[string]int64),
		ticker: clock.RealClock{}, shadowInterval: DefaultShadowStatusInterval,
		foreignQuiet: DefaultForeignBindingQuietPeriod, reportedForeign: make(map[string]int64),
	}
}

// setupWithManager registers the reconciler. It runs on every replica, so
// that a new leader's scheduler starts with its profiles compiled, but only
// the leader writes status and events.
func (r *ProfileReconciler) setupWithManager(mgr ctrl.Manager, skipNameValidation bool) error {
	r.elected = mgr.Elected()
	r.resync = make(chan event.GenericEvent)
	// A runnable without NeedLeaderElection starts only on the leader.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		return r.resyncAll(ctx, mgr.GetAPIReader())
	})); err != nil {
		return fmt.Errorf("adding the status resync on election: %w", err)
	}
	// So is the periodic flush of the shadows' figures and the recorded
	// decisions into their status.
	if err := mgr.Add(manager.RunnableFunc(r.flushFigures)); err != nil {
		return fmt.Errorf("adding the status flush: %w", err)
	}
	specOrLabels := predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{})
	return ctrl.NewControllerManagedBy(mgr).
		Named("schedulingprofile").
		For(&v1alpha1.SchedulingProfile{}, builder.WithPredicates(specOrLabels)).
		// Profiles claiming the same schedulerName contend: a change to one
		// may hand the name to another.
		Watches(&v1alpha1.SchedulingProfile{}, oldAndNew(r.contenders), builder.WithPredicates(specOrLabels)).
		Watches(&v1alpha1.PluginWeight{}, oldAndNew(r.targetsOf), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Channel(r.resync, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(skipNameValidation), NeedLeaderElection: ptr.To(false)}).
		Complete(r)
}

// resyncAll enqueues every profile once, after this replica reads as the
// leader: controller-runtime starts the leader's runnables before it
// closes Elected, so a profile resynced at once could be reconciled while
// leading still reports false, its status left unwritten until it next
// changed.
func (r *ProfileReconciler) resyncAll(ctx context.Context, reader client.Reader) error {
	if r.elected != nil {
		select {
		case <-r.elected:
		case <-ctx.Done():
			return nil
		}
	}
	var profiles v1alpha1.SchedulingProfileList
	if err := reader.List(ctx, &profiles); err != nil {
		return fmt.Errorf("listing SchedulingProfiles to resync their status: %w", err)
	}
	for i := range profiles.Items {
		select {
		case r.resync <- event.GenericEvent{Object: &profiles.Items[i]}:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// DefaultShadowStatusInterval is how often the shadow profiles' figures
// are written to their status (when they changed).
const DefaultShadowStatusInterval = 10 * time.Second

// figures is what flushFigures compares between two ticks for one profile.
type figures struct {
	// version is the shadow's figures' or the recorded decisions' version.
	version uint64
	// foreign counts the pods another scheduler bound, and conflict says
	// whether the latest is within the quiet period.
	foreign  int64
	conflict bool
	// usage sums up how reading the profile's usage sources goes.
	usage string
}

// flushFigures enqueues, every shadowInterval, each shadow profile whose
// figures changed since, each profile that recorded a decision since, and
// each profile whose pods another scheduler bound since (or whose quiet
// period after that ended), so that its status is written once per period
// rather than once per pod.
func (r *ProfileReconciler) flushFigures(ctx context.Context) error {
	ticker := r.ticker.NewTicker(r.shadowInterval)
	defer ticker.Stop()
	flushed := map[string]figures{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
		}
		r.mu.Lock()
		var names []string
		for name, lp := range r.live {
			var now figures
			if lp.shadowOf != "" {
				stats, ok := r.host.ShadowStats(name)
				if !ok {
					continue
				}
				now.version = stats.Version
			} else {
				if lp.decisions != nil {
					now.version = lp.decisions.Version()
				}
				if fb, ok := r.host.ForeignBindings(lp.schedulerName); ok {
					now.foreign, now.conflict = fb.Count, r.clock.Since(fb.Last) < r.foreignQuiet
				}
			}
			now.usage = usageFigure(r.usageStates(lp))
			if now != flushed[name] {
				flushed[name] = now
				names = append(names, name)
			}
		}
		for name := range flushed {
			if _, ok := r.live[name]; !ok {
				delete(flushed, name)
			}
		}
		r.mu.Unlock()
		for _, name := range names {
			select {
			case r.resync <- event.GenericEvent{Object: &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}}:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// leading reports whether this replica writes status and events.
func (r *ProfileReconciler) leading() bool {
	if r.elected == nil {
		return true
	}
	select {
	case <-r.elected:
		return true
	default:
		return false
	}
}

// eventf records an event on the profile, on the leader only.
func (r *ProfileReconciler) eventf(p *v1alpha1.SchedulingProfile, eventType, reason, action, note string, args ...any) {
	if r.leading() {
		r.recorder.Eventf(p, nil, eventType, reason, action, note, args...)
	}
}

// Reconcile brings one profile's live framework and status up to date.
func (r *ProfileReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("schedulingProfile", klog.KRef("", req.Name))
	ctx = log.IntoContext(ctx, logger)

	var p v1alpha1.SchedulingProfile
	if err := r.client.Get(ctx, req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(ctx, req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting SchedulingProfile %s: %w", req.Name, err)
	}
	if p.DeletionTimestamp != nil {
		// Someone else's finalizer holds the object; it serves no more.
		r.forget(ctx, req.Name)
		return ctrl.Result{}, nil
	}
	var profiles v1alpha1.SchedulingProfileList
	if err := r.client.List(ctx, &profiles); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing SchedulingProfiles: %w", err)
	}
	var weights v1alpha1.PluginWeightList
	if err := r.client.List(ctx, &weights); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing PluginWeights: %w", err)
	}

	out := r.apply(ctx, &p, profiles.Items, PlanWeights(profiles.Items, weights.Items).ForProfile(p.Name))
	var liveGeneration int64
	if out.live != nil {
		liveGeneration = out.live.generation
	}
	r.metrics.ObserveProfile(p.Name, out.servedBy == "" && out.compileErr == nil, liveGeneration, r.newCompileFailure(&p, out.compileErr))
	return ctrl.Result{}, r.writeStatus(ctx, &p, out)
}

// apply installs the profile when it owns its schedulerName and compiles,
// and returns what happened.
func (r *ProfileReconciler) apply(ctx context.Context, p *v1alpha1.SchedulingProfile, all []v1alpha1.SchedulingProfile, weights map[string]WeightAssignment) profileOutcome {
	logger := log.FromContext(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()

	if isShadow(p) {
		return r.applyShadowLocked(ctx, p, weights)
	}
	name := schedulerNameOf(p)
	out := profileOutcome{schedulerName: name}
	prev := r.live[p.Name]
	if prev != nil && prev.shadowOf != "" {
		// The profile was a shadow and now serves its schedulerName.
		r.dropLocked(ctx, p.Name)
		prev = nil
	}
	if prev != nil && prev.schedulerName != name {
		// The profile moved to another schedulerName.
		r.dropLocked(ctx, p.Name)
		prev = nil
	}
	// A profile deleted and created again under the same name keeps serving
	// until the new object compiles, so that its pods are not parked.
	recreated := prev != nil && prev.uid != string(p.UID)

	if owner := ownerOf(name, all); owner != p.Name {
		out.servedBy = owner
		if prev != nil {
			// An older profile took the name over; it installs its own framework.
			r.dropLocked(ctx, p.Name)
		}
		if !hasCondition(p, v1alpha1.ConditionStalled, v1alpha1.ReasonConflict) {
			r.eventf(p, corev1.EventTypeWarning, EventConflict, "Install",
				"schedulerName %s is already served by SchedulingProfile %s", name, owner)
		}
		return out
	}

	if prev != nil && !recreated && prev.generation == p.Generation && maps.Equal(prev.weights, weights) {
		out.live = prev
		return out
	}
	fwk, err := compileWithWeights(ctx, r.host.CompileProfile, p, weights)
	if err != nil {
		if recreated {
			r.dropLocked(ctx, p.Name)
			prev = nil
		}
		out.compileErr, out.live = err, prev
		logger.Info("SchedulingProfile is invalid", "generation", p.Generation, "err", err)
		if p.Status.ObservedGeneration != p.Generation || !hasCondition(p, v1alpha1.ConditionStalled, v1alpha1.ReasonInvalid) {
			r.eventf(p, corev1.EventTypeWarning, EventInvalidProfile, "Compile",
				"%s", message.Truncate(fmt.Sprintf("generation %d is invalid: %v", p.Generation, err)))
		}
		return out
	}
	recorder := decisionRecorder(p, prev)
	r.host.InstallProfile(ctx, name, &profile.Profile{Framework: fwk, Source: p.Name, Generation: p.Generation, Decisions: recorder})
	live := &liveProfile{
		schedulerName: name, generation: p.Generation, uid: string(p.UID),
		weights: maps.Clone(weights), plugins: fwk.ListPlugins(), usage: fwk.UsageSources(), decisions: recorder,
	}
	r.live[p.Name], r.servedBy[name] = live, p.Name
	out.live = live
	r.eventf(p, corev1.EventTypeNormal, EventProfileActivated, "Install",
		"generation %d is live for schedulerName %s", p.Generation, name)
	return out
}

// decisionRecorder returns the recorder of p's placements, nil when it
// records none: the previous generation's when it kept as many, so that a
// new generation's status goes on listing the placements of the last.
func decisionRecorder(p *v1alpha1.SchedulingProfile, prev *liveProfile) *decisions.Recorder {
	n := int(ptr.Deref(p.Spec.RecordDecisions, 0))
	if n <= 0 {
		return nil
	}
	if prev != nil && prev.uid == string(p.UID) && prev.decisions != nil && prev.decisions.Size() == n {
		return prev.decisions
	}
	return decisions.NewRecorder(n)
}

// applyShadowLocked installs a shadow profile's current generation beside
// the live profile it shadows, unless it is installed already, and
// returns what happened. A shadow claims no schedulerName and contends
// with no profile.
func (r *ProfileReconciler) applyShadowLocked(ctx context.Context, p *v1alpha1.SchedulingProfile, weights map[string]WeightAssignment) profileOutcome {
	out := profileOutcome{shadowOf: p.Spec.ShadowOf}
	rate := sampleRatePercent(p)
	prev := r.live[p.Name]
	if prev != nil && prev.shadowOf == "" {
		// The profile served its schedulerName and is now a shadow.
		r.dropLocked(ctx, p.Name)
		prev = nil
	}
	if prev != nil && prev.uid == string(p.UID) && prev.generation == p.Generation && maps.Equal(prev.weights, weights) {
		out.live = prev
		return out
	}
	fwk, err := compileWithWeights(ctx, r.host.CompileShadow, p, weights)
	if err != nil {
		out.compileErr, out.live = err, prev
		log.FromContext(ctx).Info("Shadow SchedulingProfile is invalid", "generation", p.Generation, "err", err)
		if p.Status.ObservedGeneration != p.Generation || !hasCondition(p, v1alpha1.ConditionStalled, v1alpha1.ReasonInvalid) {
			r.eventf(p, corev1.EventTypeWarning, EventInvalidProfile, "Compile",
				"%s", message.Truncate(fmt.Sprintf("generation %d is invalid: %v", p.Generation, err)))
		}
		return out
	}
	r.host.InstallShadow(ctx, &scheduler.ShadowProfile{
		Framework: fwk, Source: p.Name, Generation: p.Generation, Of: p.Spec.ShadowOf, SampleRatePercent: rate,
	})
	live := &liveProfile{
		shadowOf: p.Spec.ShadowOf, generation: p.Generation, uid: string(p.UID),
		weights: maps.Clone(weights), plugins: fwk.ListPlugins(), usage: fwk.UsageSources(),
	}
	r.live[p.Name] = live
	out.live = live
	r.eventf(p, corev1.EventTypeNormal, EventProfileActivated, "Install",
		"generation %d is live as a shadow of schedulerName %s", p.Generation, p.Spec.ShadowOf)
	return out
}

// forget removes a deleted profile from the scheduler when it served its
// schedulerName; the contenders for the name are reconciled by the watch.
func (r *ProfileReconciler) forget(ctx context.Context, profileName string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(ctx, profileName)
	delete(r.failedGeneration, profileName)
	r.metrics.DeleteProfile(profileName)
}

// newCompileFailure reports whether err is the first failure to compile
// p's generation, and remembers it.
func (r *ProfileReconciler) newCompileFailure(p *v1alpha1.SchedulingProfile, err error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		delete(r.failedGeneration, p.Name)
		return false
	}
	if r.failedGeneration[p.Name] == p.Generation {
		return false
	}
	r.failedGeneration[p.Name] = p.Generation
	return true
}

// dropLocked forgets what runs for the profile and removes it from the
// scheduler unless another profile has taken its schedulerName since.
func (r *ProfileReconciler) dropLocked(ctx context.Context, profileName string) {
	prev := r.live[profileName]
	if prev == nil {
		return
	}
	delete(r.live, profileName)
	delete(r.reportedForeign, profileName)
	if prev.shadowOf != "" {
		r.host.RemoveShadow(ctx, profileName)
		return
	}
	if r.servedBy[prev.schedulerName] != profileName {
		return
	}
	delete(r.servedBy, prev.schedulerName)
	r.host.RemoveProfile(ctx, prev.schedulerName)
	log.FromContext(ctx).Info("SchedulingProfile no longer served", "schedulerName", prev.schedulerName)
}

// writeStatus patches the profile's status when it changed.
func (r *ProfileReconciler) writeStatus(ctx context.Context, p *v1alpha1.SchedulingProfile, out profileOutcome) error {
	if !r.leading() {
		return nil
	}
	if out.shadowOf != "" {
		if stats, ok := r.host.ShadowStats(p.Name); ok && out.live != nil && stats.Generation == out.live.generation {
			out.shadowStats = &stats
		}
	}
	if out.live != nil && out.shadowOf == "" && out.servedBy == "" {
		if fb, ok := r.host.ForeignBindings(out.schedulerName); ok {
			out.foreign = &fb
			out.foreignRecent = r.clock.Since(fb.Last) < r.foreignQuiet
			r.reportForeign(p, out.schedulerName, fb)
		}
	}
	if out.live != nil {
		out.usage = r.usageStates(out.live)
	}
	st := profileStatus(p, out, metav1.NewTime(r.clock.Now()))
	if equality.Semantic.DeepEqual(p.Status, st) {
		return nil
	}
	patched := p.DeepCopy()
	patched.Status = st
	return patchStatus(ctx, r.client, "SchedulingProfile", p, patched)
}

// usageStates reads from the host how reading each usage source of a
// live profile goes.
func (r *ProfileReconciler) usageStates(lp *liveProfile) []usageState {
	out := make([]usageState, 0, len(lp.usage))
	for _, u := range lp.usage {
		last, err := r.host.UsageState(u.Source)
		out = append(out, usageState{PluginUsage: u, read: !last.IsZero(), err: err})
	}
	return out
}

// usageFigure sums up usageStates for flushFigures: it changes when a
// source starts or stops failing, or is first read.
func usageFigure(states []usageState) string {
	var b strings.Builder
	for _, u := range states {
		fmt.Fprintf(&b, "%t/%v;", u.read, u.err)
	}
	return b.String()
}

// reportForeign records a Warning event on the profile when another
// scheduler bound pods of its schedulerName since the last one.
func (r *ProfileReconciler) reportForeign(p *v1alpha1.SchedulingProfile, schedulerName string, fb scheduler.ForeignBindings) {
	r.mu.Lock()
	reported := r.reportedForeign[p.Name]
	if fb.Count > reported {
		r.reportedForeign[p.Name] = fb.Count
	}
	r.mu.Unlock()
	if fb.Count <= reported {
		return
	}
	r.eventf(p, corev1.EventTypeWarning, EventPodsBoundByAnotherScheduler, "Bind",
		"%s", message.Truncate(fmt.Sprintf("another scheduler bound %d more pod(s) of schedulerName %s, the latest %s by %s: two schedulers serve this name",
			fb.Count-reported, schedulerName, fb.Pod, fb.Scheduler)))
}

// contenders maps a profile to every profile claiming the same schedulerName.
func (r *ProfileReconciler) contenders(ctx context.Context, obj client.Object) []ctrl.Request {
	p, ok := obj.(*v1alpha1.SchedulingProfile)
	if !ok {
		return nil
	}
	var profiles v1alpha1.SchedulingProfileList
	if err := r.client.List(ctx, &profiles); err != nil {
		log.FromContext(ctx).Error(err, "Listing SchedulingProfiles")
		return nil
	}
	name := schedulerNameOf(p)
	var reqs []ctrl.Request
	for i := range profiles.Items {
		if other := &profiles.Items[i]; other.Name != p.Name && schedulerNameOf(other) == name {
			reqs = append(reqs, requestFor(other.Name))
		}
	}
	return reqs
}

// targetsOf maps a PluginWeight to the profiles it selects or is live in.
func (r *ProfileReconciler) targetsOf(ctx context.Context, obj client.Object) []ctrl.Request {
	pw, ok := obj.(*v1alpha1.PluginWeight)
	if !ok {
		return nil
	}
	var profiles v1alpha1.SchedulingProfileList
	if err := r.client.List(ctx, &profiles); err != nil {
		log.FromContext(ctx).Error(err, "Listing SchedulingProfiles")
		return nil
	}
	var reqs []ctrl.Request
	for i := range profiles.Items {
		if p := &profiles.Items[i]; selects(pw, p) || slices.Contains(pw.Status.AppliedTo, p.Name) {
			reqs = append(reqs, requestFor(p.Name))
		}
	}
	return reqs
}

// schedulerNameOf is the schedulerName a profile claims; a shadow claims none.
func schedulerNameOf(p *v1alpha1.SchedulingProfile) string {
	if isShadow(p) {
		return ""
	}
	if p.Spec.SchedulerName != "" {
		return p.Spec.SchedulerName
	}
	return p.Name
}

// isShadow reports whether the profile is a shadow (spec.shadowOf).
func isShadow(p *v1alpha1.SchedulingProfile) bool { return p.Spec.ShadowOf != "" }

// ownerOf names the oldest profile claiming schedulerName; shadows claim none.
func ownerOf(schedulerName string, profiles []v1alpha1.SchedulingProfile) string {
	var owner *v1alpha1.SchedulingProfile
	for i := range profiles {
		p := &profiles[i]
		if isShadow(p) || schedulerNameOf(p) != schedulerName || p.DeletionTimestamp != nil {
			continue
		}
		if owner == nil || olderFirst(&p.ObjectMeta, &owner.ObjectMeta) < 0 {
			owner = p
		}
	}
	if owner == nil {
		return ""
	}
	return owner.Name
}

// hasCondition reports whether the profile's condition is True with reason.
func hasCondition(p *v1alpha1.SchedulingProfile, typ, reason string) bool {
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason == reason
}

func requestFor(name string) ctrl.Request {
	return ctrl.Request{NamespacedName: types.NamespacedName{Name: name}}
}
