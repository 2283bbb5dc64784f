// Package webhook validates SchedulingProfiles and PluginWeights at admission
// time, rejecting what the CRD schema cannot: unknown plugins, plugin args
// that do not decode or validate, plugins enabled at an extension point they
// do not implement, and weights on plugins that do not score.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// sharedQueueMessage explains why only PrioritySort may sort the queue.
const sharedQueueMessage = "all profiles share one scheduling queue, which PrioritySort orders; " +
	"a profile cannot choose another QueueSort plugin"

// Validator checks profiles and weights offline: it compiles a profile with
// the scheduler's plugin registry against a fake cluster that is never
// started, so any error the live scheduler would hit is found at admission.
type Validator struct {
	registry runtime.Registry
	opts     []runtime.Option

	mu     sync.Mutex
	handle framework.Handle      // the default profile, to build single plugins with
	scores map[string]scoreCheck // plugin name → whether it scores, learned once
}

// scoreCheck records whether a plugin implements Score, or why building it failed.
type scoreCheck struct {
	scores bool
	err    error
}

// NewValidator returns a Validator that compiles profiles against registry,
// which should be the registry the scheduler itself uses.
func NewValidator(registry runtime.Registry) *Validator {
	client := fake.NewClientset()
	return &Validator{
		registry: registry,
		opts: []runtime.Option{
			runtime.WithClientSet(client),
			runtime.WithInformerFactory(informers.NewSharedInformerFactory(client, 0)),
			runtime.WithSnapshotSharedLister(cache.NewEmptySnapshot()),
			runtime.WithParallelism(1),
		},
		scores: make(map[string]scoreCheck),
	}
}

// ValidateProfile returns every reason a SchedulingProfile cannot be compiled.
func (v *Validator) ValidateProfile(ctx context.Context, p *v1alpha1.SchedulingProfile) field.ErrorList {
	name := p.Spec.SchedulerName
	if name == "" {
		name = p.Name
	}
	return v.ValidateProfileSpec(ctx, name, &p.Spec, field.NewPath("spec"))
}

// ValidateProfileSpec compiles spec as the profile schedulerName and returns
// every error, each under fldPath (the path of the spec in its object).
func (v *Validator) ValidateProfileSpec(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, fldPath *field.Path) field.ErrorList {
	errs, flagged := queueSortErrors(spec, fldPath)
	fwk, err := runtime.NewFramework(ctx, v.registry, schedulerName, spec, v.opts...)
	if err != nil {
		for _, e := range splitErrors(err) {
			path, msg := compileErrorPath(e.Error(), spec, fldPath)
			errs = append(errs, field.Invalid(path, field.OmitValueType{}, msg))
		}
		return dedupe(errs)
	}
	for _, pl := range fwk.ListPlugins() {
		if pl.Name == names.PrioritySort || flagged[pl.Name] {
			continue
		}
		for _, ep := range pl.ExtensionPoints {
			if ep == "QueueSort" {
				errs = append(errs, field.Invalid(fldPath.Child("plugins"), field.OmitValueType{},
					fmt.Sprintf("plugin %q would sort the queue: %s", pl.Name, sharedQueueMessage)))
			}
		}
	}
	return dedupe(errs)
}

// ValidatePluginWeight returns every reason a PluginWeight can never apply:
// its plugin is unknown, or implements no Score extension point.
func (v *Validator) ValidatePluginWeight(ctx context.Context, w *v1alpha1.PluginWeight) field.ErrorList {
	path := field.NewPath("spec", "plugin")
	name := w.Spec.Plugin
	if _, ok := v.registry[name]; !ok {
		return field.ErrorList{field.NotFound(path, name)}
	}
	check := v.scoreCheck(ctx, name)
	switch {
	case check.err != nil:
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf("the plugin cannot be built: %v", check.err))}
	case !check.scores:
		return field.ErrorList{field.Invalid(path, name,
			"the plugin implements no Score extension point, so a weight has no effect")}
	}
	return nil
}

// scoreCheck learns, once per plugin, whether it implements Score, by
// building it with its default args against a handle of the default profile.
func (v *Validator) scoreCheck(ctx context.Context, name string) scoreCheck {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.scores[name]; ok {
		return c
	}
	var c scoreCheck
	if v.handle == nil {
		h, err := runtime.NewFramework(ctx, v.registry, "plugin-weight-check", nil, v.opts...)
		if err != nil {
			return scoreCheck{err: fmt.Errorf("compiling the default profile: %w", err)}
		}
		v.handle = h
	}
	pl, err := v.registry[name](ctx, nil, v.handle)
	if err != nil {
		c.err = err
	} else {
		_, c.scores = pl.(framework.ScorePlugin)
	}
	if ctx.Err() == nil {
		v.scores[name] = c
	}
	return c
}

// queueSortErrors rejects a QueueSort plugin other than PrioritySort named
// at the QueueSort extension point, before compiling, and returns the names
// it rejected.
func queueSortErrors(spec *v1alpha1.SchedulingProfileSpec, fldPath *field.Path) (field.ErrorList, map[string]bool) {
	if spec.Plugins == nil || spec.Plugins.QueueSort == nil {
		return nil, nil
	}
	var errs field.ErrorList
	flagged := make(map[string]bool)
	path := fldPath.Child("plugins", "queueSort", "enabled")
	for i, p := range spec.Plugins.QueueSort.Enabled {
		if p.Name != names.PrioritySort {
			errs = append(errs, field.NotSupported(path.Index(i).Child("name"), p.Name, []string{names.PrioritySort}))
			errs[len(errs)-1].Detail += ": " + sharedQueueMessage
			flagged[p.Name] = true
		}
	}
	return errs, flagged
}

// splitErrors undoes the runtime's wrapping and joining, one error per problem.
func splitErrors(err error) []error {
	for {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			var out []error
			for _, e := range joined.Unwrap() {
				out = append(out, splitErrors(e)...)
			}
			return out
		}
		inner := errors.Unwrap(err)
		if inner == nil {
			return []error{err}
		}
		if _, ok := inner.(interface{ Unwrap() []error }); !ok {
			// A single wrapped cause keeps its context, e.g. "initializing plugin X: ...".
			return []error{err}
		}
		err = inner
	}
}

// extensionPointFields maps the runtime's extension point names to their JSON fields.
var extensionPointFields = map[string]string{
	"MultiPoint": "multiPoint", "PreEnqueue": "preEnqueue", "QueueSort": "queueSort",
	"PreFilter": "preFilter", "Filter": "filter", "PostFilter": "postFilter",
	"PreScore": "preScore", "Score": "score", "Reserve": "reserve", "Permit": "permit",
	"PreBind": "preBind", "Bind": "bind", "PostBind": "postBind",
}

// compileErrorPath points a compile error at the part of the spec it is
// about, judging by the prefix the runtime gives its messages, and returns
// the message without a prefix the path already says.
func compileErrorPath(msg string, spec *v1alpha1.SchedulingProfileSpec, fldPath *field.Path) (*field.Path, string) {
	prefix, rest, _ := strings.Cut(msg, ": ")
	if f, ok := extensionPointFields[prefix]; ok {
		return fldPath.Child("plugins", f), rest
	}
	switch {
	case prefix == "pluginConfig":
		return fldPath.Child("pluginConfig"), rest
	case strings.HasPrefix(prefix, "percentageOfNodesToScore"):
		return fldPath.Child("percentageOfNodesToScore"), msg
	case strings.HasPrefix(prefix, "initializing plugin "):
		plugin := strings.Trim(strings.TrimPrefix(prefix, "initializing plugin "), `"`)
		for i, pc := range spec.PluginConfig {
			if pc.Name == plugin {
				return fldPath.Child("pluginConfig").Index(i).Child("args"), msg
			}
		}
		return fldPath.Child("plugins"), msg
	}
	return fldPath, msg
}

// dedupe drops repeated errors, keeping the first of each.
func dedupe(errs field.ErrorList) field.ErrorList {
	seen := make(map[string]bool, len(errs))
	out := errs[:0]
	for _, e := range errs {
		if key := e.Error(); !seen[key] {
			seen[key] = true
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
