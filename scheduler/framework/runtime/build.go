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

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/apiwrite"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
)

// extensionPoint ties one extension point's upstream name to its place in
// v1alpha1.Plugins and in the Framework.
type extensionPoint struct {
	name       string
	set        func(*v1alpha1.Plugins) *v1alpha1.PluginSet
	implements func(framework.Plugin) bool
	add        func(*Framework, framework.Plugin)
}

func implements[T framework.Plugin](p framework.Plugin) bool { _, ok := p.(T); return ok }

// extensionPoints lists the extension points in the order a pod meets them.
func extensionPoints() []extensionPoint {
	return []extensionPoint{
		{"PreEnqueue", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PreEnqueue }, implements[framework.PreEnqueuePlugin],
			func(f *Framework, p framework.Plugin) {
				f.preEnqueue = append(f.preEnqueue, p.(framework.PreEnqueuePlugin))
			}},
		{"QueueSort", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.QueueSort }, implements[framework.QueueSortPlugin],
			func(f *Framework, p framework.Plugin) {
				f.queueSort = append(f.queueSort, p.(framework.QueueSortPlugin))
			}},
		{"PreFilter", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PreFilter }, implements[framework.PreFilterPlugin],
			func(f *Framework, p framework.Plugin) {
				f.preFilter = append(f.preFilter, p.(framework.PreFilterPlugin))
			}},
		{"Filter", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.Filter }, implements[framework.FilterPlugin],
			func(f *Framework, p framework.Plugin) { f.filter = append(f.filter, p.(framework.FilterPlugin)) }},
		{"PostFilter", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PostFilter }, implements[framework.PostFilterPlugin],
			func(f *Framework, p framework.Plugin) {
				f.postFilter = append(f.postFilter, p.(framework.PostFilterPlugin))
			}},
		{"PreScore", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PreScore }, implements[framework.PreScorePlugin],
			func(f *Framework, p framework.Plugin) { f.preScore = append(f.preScore, p.(framework.PreScorePlugin)) }},
		{"Score", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.Score }, implements[framework.ScorePlugin],
			func(f *Framework, p framework.Plugin) { f.score = append(f.score, p.(framework.ScorePlugin)) }},
		{"Reserve", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.Reserve }, implements[framework.ReservePlugin],
			func(f *Framework, p framework.Plugin) { f.reserve = append(f.reserve, p.(framework.ReservePlugin)) }},
		{"Permit", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.Permit }, implements[framework.PermitPlugin],
			func(f *Framework, p framework.Plugin) { f.permit = append(f.permit, p.(framework.PermitPlugin)) }},
		{"PreBind", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PreBind }, implements[framework.PreBindPlugin],
			func(f *Framework, p framework.Plugin) { f.preBind = append(f.preBind, p.(framework.PreBindPlugin)) }},
		{"Bind", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.Bind }, implements[framework.BindPlugin],
			func(f *Framework, p framework.Plugin) { f.bind = append(f.bind, p.(framework.BindPlugin)) }},
		{"PostBind", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PostBind }, implements[framework.PostBindPlugin],
			func(f *Framework, p framework.Plugin) { f.postBind = append(f.postBind, p.(framework.PostBindPlugin)) }},
		{"PlacementGenerate", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PlacementGenerate }, implements[framework.PlacementGeneratePlugin],
			func(f *Framework, p framework.Plugin) {
				f.placementGenerate = append(f.placementGenerate, p.(framework.PlacementGeneratePlugin))
			}},
		{"PlacementScore", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PlacementScore }, implements[framework.PlacementScorePlugin],
			func(f *Framework, p framework.Plugin) {
				f.placementScore = append(f.placementScore, p.(framework.PlacementScorePlugin))
			}},
		{"PodGroupPostFilter", func(p *v1alpha1.Plugins) *v1alpha1.PluginSet { return p.PodGroupPostFilter }, implements[framework.PodGroupPostFilterPlugin],
			func(f *Framework, p framework.Plugin) {
				f.podGroupPostFilter = append(f.podGroupPostFilter, p.(framework.PodGroupPostFilterPlugin))
			}},
	}
}

// entry is one enabled plugin after merging a profile into the defaults.
type entry struct {
	v1alpha1.Plugin
	fromDefault bool
}

// mergedSet is one extension point's plugins after merging.
type mergedSet struct {
	enabled  []entry
	disabled sets.Set[string]
}

// mergeSet applies a profile's set to the default set of one point: the
// profile's disabled names (or "*") drop defaults, a default enabled again by
// the profile takes the profile's settings in the default's place, and the
// profile's other plugins follow in their order.
func mergeSet(def, user *v1alpha1.PluginSet) mergedSet {
	m := mergedSet{disabled: sets.New[string]()}
	if user != nil {
		for _, p := range user.Disabled {
			m.disabled.Insert(p.Name)
		}
	}
	if def != nil {
		for _, p := range def.Disabled {
			m.disabled.Insert(p.Name)
		}
	}
	var userEnabled []v1alpha1.Plugin
	if user != nil {
		userEnabled = user.Enabled
	}
	replaced := make([]bool, len(userEnabled))
	if def != nil && !m.disabled.Has("*") {
		for _, d := range def.Enabled {
			if m.disabled.Has(d.Name) {
				continue
			}
			e := entry{Plugin: d, fromDefault: true}
			for i, u := range userEnabled {
				if u.Name == d.Name && !replaced[i] {
					e, replaced[i] = entry{Plugin: u}, true
					break
				}
			}
			m.enabled = append(m.enabled, e)
		}
	}
	for i, u := range userEnabled {
		if !replaced[i] {
			m.enabled = append(m.enabled, entry{Plugin: u})
		}
	}
	return m
}

// NewFramework builds the framework of one profile: it merges spec into the
// default plugin set, builds each plugin once with its args, and places it at
// its extension points. All configuration errors are returned together, each
// naming its plugin and extension point.
func NewFramework(ctx context.Context, r Registry, profileName string, spec *v1alpha1.SchedulingProfileSpec, opts ...Option) (*Framework, error) {
	o := options{parallelism: DefaultParallelism, rnd: defaultRand}
	for _, opt := range opts {
		opt(&o)
	}
	if o.clock == nil {
		o.clock = clock.RealClock{}
	}
	if o.waitingPods == nil {
		o.waitingPods = NewWaitingPods(WithWaitingPodsClock(o.clock))
	}
	if o.preemptions == nil {
		o.preemptions = framework.NewPreemptionsInFlight()
	}
	if o.pluginState == nil {
		o.pluginState = framework.NewSharedPluginState()
	}
	if o.defaultPlugins == nil {
		o.defaultPlugins = DefaultPlugins()
	}
	if o.bindingPoster == nil && o.clientSet != nil {
		o.bindingPoster = apiwrite.NewBindingPoster(o.clientSet)
	}
	if spec == nil {
		spec = &v1alpha1.SchedulingProfileSpec{}
	}
	f := &Framework{
		profileName:              profileName,
		percentageOfNodesToScore: spec.PercentageOfNodesToScore,
		podInitialBackoff:        secondsOr(spec.PodInitialBackoffSeconds, defaultPodInitialBackoff),
		podMaxBackoff:            secondsOr(spec.PodMaxBackoffSeconds, defaultPodMaxBackoff),
		clientSet:                o.clientSet,
		informerFactory:          o.informerFactory,
		eventRecorder:            o.eventRecorder,
		nominator:                o.nominator,
		snapshot:                 o.snapshot,
		parallelizer:             NewParallelizer(o.parallelism),
		metrics:                  o.metrics,
		clock:                    o.clock,
		waitingPods:              o.waitingPods,
		preemptions:              o.preemptions,
		pluginState:              o.pluginState,
		rnd:                      o.rnd,
		workloads:                o.workloads,
		activator:                o.activator,
		extenderOptions:          o.extenderOptions,
		bindingPoster:            o.bindingPoster,
		allocated:                o.allocated,
		slices:                   o.slices,
		nodeUsage:                o.nodeUsage,
		spec:                     spec,
		weightOverrides:          maps.Clone(o.weightOverrides),
	}
	if f.workloads == nil {
		f.workloads = unservedWorkloads{}
	}
	if err := f.build(ctx, r, spec, o.defaultPlugins, o.weightOverrides); err != nil {
		return nil, fmt.Errorf("profile %q: %w", profileName, err)
	}
	f.computeSigners()
	if batches(spec.OpportunisticBatching, o.batching) {
		if f.batch = newBatch(f); f.batch == nil {
			klog.FromContext(ctx).V(2).Info("Profile batches no pod: some of its plugins cannot sign pods",
				"profile", profileName, "plugins", f.unsigned)
		}
	}
	return f, nil
}

// batches says whether a profile batches: its own mode, else the
// process default.
func batches(mode *v1alpha1.BatchingMode, def bool) bool {
	if mode == nil {
		return def
	}
	return *mode == v1alpha1.BatchingEnabled
}

func secondsOr(s *int64, def time.Duration) time.Duration {
	if s == nil {
		return def
	}
	return time.Duration(*s) * time.Second
}

// build turns a profile's spec into the framework's plugins, in phases
// that each stop the build when they find errors, all of them at once:
// the spec's own fields, the plan of which plugins the profile needs
// (planPlugins), the plugins built with their args (instantiate), placed
// at their extension points (place), weighted (weigh), and described;
// then the queueing hints, the search's fingerprint and the extenders.
func (f *Framework) build(ctx context.Context, r Registry, spec *v1alpha1.SchedulingProfileSpec, defaults *v1alpha1.Plugins, overrides map[string]WeightOverride) error {
	plan, planErrs := planPlugins(r, spec, defaults)
	if errs := append(f.validateSpec(spec), planErrs...); len(errs) > 0 {
		return errors.Join(errs...)
	}
	f.skippedDefaults = plan.skippedInOrder()
	plugins, errs := f.instantiate(ctx, r, spec, plan)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	placed, errs := f.place(plan, plugins)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	errs = f.checkPoints()
	weights, err := f.weigh(plan, overrides)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	f.describe(plan, plugins, placed, weights)
	if err := f.collectQueueingHints(ctx, plan.order, plugins); err != nil {
		return err
	}
	f.filtering = filtering(spec.PercentageOfNodesToScore, f.preFilter, f.filter, plan.rawArgs)
	return f.buildExtenders(spec.Extenders)
}

// validateSpec checks the spec's fields that name no plugin.
func (f *Framework) validateSpec(spec *v1alpha1.SchedulingProfileSpec) []error {
	var errs []error
	if p := spec.PercentageOfNodesToScore; p != nil && (*p < 0 || *p > 100) {
		errs = append(errs, specErrorf(fieldPath{"percentageOfNodesToScore"}, "", "percentageOfNodesToScore %d is not in [0, 100]", *p))
	}
	if f.podInitialBackoff <= 0 || f.podMaxBackoff < f.podInitialBackoff {
		errs = append(errs, specErrorf(fieldPath{"podInitialBackoffSeconds"}, "", "pod backoff must satisfy 0 < initial (%v) <= max (%v)", f.podInitialBackoff, f.podMaxBackoff))
	}
	return errs
}

// pluginPlan is what a profile asks of its plugins, merged with the
// defaults, before any plugin is built.
type pluginPlan struct {
	// user is the profile's own plugin sets.
	user   *v1alpha1.Plugins
	points []extensionPoint
	// multi and perPoint are the merged MultiPoint and per-point sets.
	multi    mergedSet
	perPoint []mergedSet
	// order lists the plugins needed, first named first.
	order []string
	// requested says, for each plugin needed, whether the profile itself
	// (not only the defaults) asks for it.
	requested map[string]bool
	// where is the first extension point naming each plugin, for errors.
	where map[string]string
	// skipped are default plugins the registry does not have.
	skipped sets.Set[string]
	// rawArgs are each plugin's args from pluginConfig.
	rawArgs map[string][]byte
}

// skippedInOrder lists the skipped default plugins in the plan's order.
func (p *pluginPlan) skippedInOrder() []string {
	var out []string
	for _, name := range p.order {
		if p.skipped.Has(name) {
			out = append(out, name)
		}
	}
	return out
}

// planPlugins merges the profile's plugin sets into the defaults and finds
// which plugins are needed, which may be left out because only the
// defaults ask for them and the registry lacks them, and their args.
func planPlugins(r Registry, spec *v1alpha1.SchedulingProfileSpec, defaults *v1alpha1.Plugins) (*pluginPlan, []error) {
	var errs []error
	p := &pluginPlan{user: spec.Plugins, points: extensionPoints(), requested: map[string]bool{}, where: map[string]string{}, skipped: sets.New[string]()}
	if p.user == nil {
		p.user = &v1alpha1.Plugins{}
	}
	p.multi = mergeSet(defaults.MultiPoint, p.user.MultiPoint)
	p.perPoint = make([]mergedSet, len(p.points))
	for i, ep := range p.points {
		p.perPoint[i] = mergeSet(ep.set(defaults), ep.set(p.user))
	}
	note := func(e entry, point string) {
		if _, seen := p.requested[e.Name]; !seen {
			p.order = append(p.order, e.Name)
			p.where[e.Name] = point
		}
		p.requested[e.Name] = p.requested[e.Name] || !e.fromDefault
	}
	for _, e := range p.multi.enabled {
		note(e, "MultiPoint")
	}
	for i, ep := range p.points {
		for _, e := range p.perPoint[i].enabled {
			note(e, ep.name)
		}
	}
	for _, name := range p.order {
		if _, ok := r[name]; ok {
			continue
		}
		if p.requested[name] {
			e := specErrorf(enabledField(p.user, p.where[name], name), p.where[name], "unknown plugin %q", name)
			e.Kind, e.Point, e.Plugin = args.SpecUnknownPlugin, p.where[name], name
			errs = append(errs, e)
			continue
		}
		p.skipped.Insert(name)
	}

	p.rawArgs = make(map[string][]byte, len(spec.PluginConfig))
	for i, pc := range spec.PluginConfig {
		at := fieldPath{"pluginConfig", i, "name"}
		if _, dup := p.rawArgs[pc.Name]; dup {
			errs = append(errs, specErrorf(at, "pluginConfig", "plugin %q is configured more than once", pc.Name))
			continue
		}
		p.rawArgs[pc.Name] = pc.Args.Raw
		if _, needed := p.requested[pc.Name]; !needed {
			errs = append(errs, specErrorf(at, "pluginConfig", "plugin %q is not enabled", pc.Name))
		}
	}
	return p, errs
}

// instantiate builds each plugin the plan needs, once, with its args.
func (f *Framework) instantiate(ctx context.Context, r Registry, spec *v1alpha1.SchedulingProfileSpec, plan *pluginPlan) (map[string]framework.Plugin, []error) {
	var errs []error
	plugins := make(map[string]framework.Plugin, len(plan.order))
	for _, name := range plan.order {
		if plan.skipped.Has(name) {
			continue
		}
		p, err := r[name](ctx, plan.rawArgs[name], f)
		if err != nil {
			se := args.NewSpecError(args.SpecInvalidArgs, fmt.Sprintf("initializing plugin %q", name), err, pluginConfigField(spec, name)...)
			se.Plugin = name
			errs = append(errs, se)
			continue
		}
		if p == nil || p.Name() != name {
			errs = append(errs, specErrorf(fieldPath{"plugins"}, fmt.Sprintf("initializing plugin %q", name), "the factory built a plugin named %q", pluginName(p)))
			continue
		}
		plugins[name] = p
	}
	return plugins, errs
}

// place puts each plugin at the extension points the plan gives it, and
// returns the points of each.
func (f *Framework) place(plan *pluginPlan, plugins map[string]framework.Plugin) (map[string][]string, []error) {
	var errs []error
	placed := make(map[string][]string, len(plugins))
	for i, ep := range plan.points {
		names, err := pointPlugins(ep, plan.perPoint[i], plan.multi, plugins, plan.skipped, plan.user)
		if err != nil {
			errs = append(errs, err...)
			continue
		}
		for _, n := range names {
			ep.add(f, plugins[n])
			placed[n] = append(placed[n], ep.name)
		}
	}
	return placed, errs
}

// checkPoints checks that the profile has exactly one QueueSort plugin and
// a Bind plugin.
func (f *Framework) checkPoints() []error {
	var errs []error
	if len(f.queueSort) != 1 {
		errs = append(errs, specErrorf(pointField("QueueSort"), "QueueSort", "exactly one plugin must be enabled, got %d", len(f.queueSort)))
	}
	if len(f.bind) == 0 {
		errs = append(errs, specErrorf(pointField("Bind"), "Bind", "at least one plugin must be enabled"))
	}
	return errs
}

// weigh sets the weights of the Score and PlacementScore plugins and
// returns each weighted plugin's; a plugin at both (NodeResourcesFit)
// reports its Score weight, the one its profile and PluginWeights set.
func (f *Framework) weigh(plan *pluginPlan, overrides map[string]WeightOverride) (map[string]weight, error) {
	var errs []error
	weights, err := scoreWeights("Score", pluginNames(f.score), plan.perPoint[pointIndex(plan.points, "Score")], plan.multi, overrides)
	if err != nil {
		errs = append(errs, err)
	}
	placementWeights, err := scoreWeights("PlacementScore", pluginNames(f.placementScore), plan.perPoint[pointIndex(plan.points, "PlacementScore")], plan.multi, overrides)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, pl := range f.score {
		f.scoreWeights = append(f.scoreWeights, int64(weights[pl.Name()].weight))
	}
	for _, pl := range f.placementScore {
		f.placementScoreWeights = append(f.placementScoreWeights, int64(placementWeights[pl.Name()].weight))
	}
	for name, w := range placementWeights {
		if _, ok := weights[name]; !ok {
			weights[name] = w
		}
	}
	return weights, nil
}

// describe lists the PlacementFeasible plugins and what each placed
// plugin is, in the plan's order. PlacementFeasible is no configurable
// extension point: every enabled plugin that judges a group's progress
// does.
func (f *Framework) describe(plan *pluginPlan, plugins map[string]framework.Plugin, placed map[string][]string, weights map[string]weight) {
	for _, name := range plan.order {
		if pl, ok := plugins[name].(framework.PlacementFeasiblePlugin); ok && len(placed[name]) > 0 {
			f.placementFeasible = append(f.placementFeasible, pl)
		}
	}
	for _, name := range plan.order {
		if eps, ok := placed[name]; ok {
			info := PluginInfo{Name: name, ExtensionPoints: eps}
			if w, ok := weights[name]; ok {
				info.Weight, info.WeightFromDefault, info.WeightOverride = w.weight, w.fromDefault, w.override
			}
			f.pluginInfos = append(f.pluginInfos, info)
			if r, ok := plugins[name].(framework.UsageReader); ok {
				f.usageSources = append(f.usageSources, PluginUsage{Plugin: name, Source: r.UsageSource(), Reader: r})
			}
		}
	}
}

// filtering describes what a profile's search for feasible nodes does: its
// share of nodes to find, its PreFilter and Filter plugins in order, and
// the args they filter with (a plugin's FilterFingerprint, or its whole
// args, compacted).
func filtering(percentage *int32, preFilter []framework.PreFilterPlugin, filter []framework.FilterPlugin, args map[string][]byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "percentage=%d", ptr.Deref(percentage, 0))
	configured := func(p framework.Plugin) {
		b.WriteString(p.Name())
		if fp, ok := p.(framework.FilterFingerprinter); ok {
			fmt.Fprintf(&b, "{%q}", fp.FilterFingerprint())
			return
		}
		var raw bytes.Buffer
		if len(args[p.Name()]) > 0 && json.Compact(&raw, args[p.Name()]) != nil {
			raw.Reset()
			raw.Write(args[p.Name()])
		}
		fmt.Fprintf(&b, "{%q}", raw.String())
	}
	b.WriteString(";preFilter=")
	for _, p := range preFilter {
		configured(p)
	}
	b.WriteString(";filter=")
	for _, p := range filter {
		configured(p)
	}
	return b.String()
}

// FiltersLike reports whether f and other find the same feasible nodes for
// any pod on the same snapshot: the same share of nodes to find, the same
// PreFilter and Filter plugins in the same order with the same filtering
// args, and no extender on either side.
func (f *Framework) FiltersLike(other *Framework) bool {
	return f.filtering == other.filtering && len(f.extenders) == 0 && len(other.extenders) == 0
}

func pluginName(p framework.Plugin) string {
	if p == nil {
		return ""
	}
	return p.Name()
}

// ExtensionPointsOf lists the extension points p implements, in upstream's
// names ("Filter", "Score", ...) and in the order a pod meets them; it is
// what decides where a profile may enable p.
func ExtensionPointsOf(p framework.Plugin) []string {
	var out []string
	for _, ep := range extensionPoints() {
		if ep.implements(p) {
			out = append(out, ep.name)
		}
	}
	return out
}

// pointPlugins returns the names of the plugins that run at one extension
// point, in upstream's order: plugins enabled both there and through
// MultiPoint (in the point's order), then MultiPoint plugins, then the rest
// of the point's own plugins.
func pointPlugins(ep extensionPoint, own, multi mergedSet, plugins map[string]framework.Plugin, skipped sets.Set[string], user *v1alpha1.Plugins) ([]string, []error) {
	var errs []error
	ownNames := make([]string, 0, len(own.enabled))
	ownSet := sets.New[string]()
	for _, e := range own.enabled {
		if skipped.Has(e.Name) {
			continue
		}
		if !ep.implements(plugins[e.Name]) {
			se := specErrorf(enabledField(user, ep.name, e.Name), ep.name, "plugin %q does not implement the %s extension point", e.Name, ep.name)
			se.Kind, se.Point, se.Plugin = args.SpecNotImplemented, ep.name, e.Name
			errs = append(errs, se)
			continue
		}
		if ownSet.Has(e.Name) {
			errs = append(errs, specErrorf(enabledField(user, ep.name, e.Name), ep.name, "plugin %q is enabled more than once", e.Name))
			continue
		}
		ownSet.Insert(e.Name)
		ownNames = append(ownNames, e.Name)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if own.disabled.Has("*") {
		return ownNames, nil
	}
	overridden := sets.New[string]()
	var fromMulti []string
	multiSet := sets.New[string]()
	for _, e := range multi.enabled {
		if skipped.Has(e.Name) || !ep.implements(plugins[e.Name]) || own.disabled.Has(e.Name) {
			continue
		}
		if ownSet.Has(e.Name) {
			overridden.Insert(e.Name)
			continue
		}
		if multiSet.Has(e.Name) {
			errs = append(errs, specErrorf(enabledField(user, "MultiPoint", e.Name), "MultiPoint", "plugin %q is enabled more than once", e.Name))
			continue
		}
		multiSet.Insert(e.Name)
		fromMulti = append(fromMulti, e.Name)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	out := make([]string, 0, len(ownNames)+len(fromMulti))
	for _, n := range ownNames {
		if overridden.Has(n) {
			out = append(out, n)
		}
	}
	out = append(out, fromMulti...)
	for _, n := range ownNames {
		if !overridden.Has(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// pointIndex returns the index of the named extension point in points.
func pointIndex(points []extensionPoint, name string) int {
	for i, ep := range points {
		if ep.name == name {
			return i
		}
	}
	return -1
}

type weight struct {
	weight      int32
	fromDefault bool
	// override names who replaced the configured weight, if anyone did.
	override string
}

// scoreWeights gives each score plugin its weight: an override wins, then
// the Score point's setting, then MultiPoint's; an unset weight is 1. The
// weighted maximum scores must not overflow an int64.
func scoreWeights(point string, names []string, own, multi mergedSet, overrides map[string]WeightOverride) (map[string]weight, error) {
	active := make(map[string]bool, len(names))
	for _, n := range names {
		active[n] = true
	}
	out := make(map[string]weight, len(names))
	var total int64
	for _, e := range append(append([]entry(nil), own.enabled...), multi.enabled...) {
		if !active[e.Name] {
			continue
		}
		if _, done := out[e.Name]; done {
			continue
		}
		w := weight{weight: 1, fromDefault: e.fromDefault}
		if e.Weight != nil && *e.Weight > 0 {
			w.weight = *e.Weight
		}
		if o, ok := overrides[e.Name]; ok && o.Weight > 0 {
			w = weight{weight: o.Weight, override: o.Source}
		}
		if int64(w.weight)*framework.MaxNodeScore > framework.MaxTotalScore-total {
			return nil, specErrorf(pointField(point), point, "the weights of the %s plugins could overflow the total score", strings.ToLower(point))
		}
		total += int64(w.weight) * framework.MaxNodeScore
		out[e.Name] = w
	}
	return out, nil
}

// pluginNames returns the names of plugins, in order.
func pluginNames[P framework.Plugin](plugins []P) []string {
	out := make([]string, len(plugins))
	for i, p := range plugins {
		out[i] = p.Name()
	}
	return out
}

// collectQueueingHints asks each plugin that can reject a pod which events
// may make the pod schedulable; a plugin that does not say gets every event.
func (f *Framework) collectQueueingHints(ctx context.Context, order []string, plugins map[string]framework.Plugin) error {
	f.queueingHints = make(map[string][]framework.ClusterEventWithHint)
	var errs []error
	for _, name := range order {
		p, ok := plugins[name]
		if !ok || !canReject(p) {
			continue
		}
		ext, ok := p.(framework.EnqueueExtensions)
		if !ok {
			f.queueingHints[name] = allEvents()
			continue
		}
		events, err := ext.EventsToRegister(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %q: listing its queueing events: %w", name, err))
			continue
		}
		f.queueingHints[name] = events
	}
	return errors.Join(errs...)
}

// canReject reports whether a plugin runs at a point where it can reject a
// pod and so needs queueing hints.
func canReject(p framework.Plugin) bool {
	switch p.(type) {
	case framework.PreEnqueuePlugin, framework.PreFilterPlugin, framework.FilterPlugin,
		framework.ReservePlugin, framework.PermitPlugin:
		return true
	}
	return false
}

// allEvents is every event on every resource the scheduler watches, for
// plugins that do not say which events they care about.
func allEvents() []framework.ClusterEventWithHint {
	resources := []framework.EventResource{
		framework.Pod, framework.UnscheduledPod, framework.Node, framework.PersistentVolume,
		framework.PersistentVolumeClaim, framework.CSINode, framework.StorageClass, framework.PodGroup,
	}
	out := make([]framework.ClusterEventWithHint, len(resources))
	for i, r := range resources {
		out[i] = framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: r, ActionType: framework.All}}
	}
	return out
}
