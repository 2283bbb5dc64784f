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

package validate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// sharedQueueMessage explains why only PrioritySort may sort the queue.
const sharedQueueMessage = "all profiles share one scheduling queue, which PrioritySort orders; " +
	"a profile cannot choose another QueueSort plugin"

// Validator runs the checks of Berth's validating webhook, offline: it
// compiles a profile with the scheduler's plugin registry against a fake
// cluster that is never started, so any error the live scheduler would hit
// is found at admission. The webhook and `berth validate` both call Admit.
type Validator struct {
	registry runtime.Registry
	opts     []runtime.Option

	mu     sync.Mutex
	handle framework.Handle           // the default profile, to build single plugins with
	points map[string]extensionPoints // plugin name → where it may run, learned once
}

// extensionPoints records the extension points a plugin implements, or why
// building it failed.
type extensionPoints struct {
	names []string
	err   error
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
		points: make(map[string]extensionPoints),
	}
}

// Admit returns every reason the validating webhook rejects obj, a
// *SchedulingProfile or a *PluginWeight; other objects have no webhook and
// get no errors.
func (v *Validator) Admit(ctx context.Context, obj apiruntime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *v1alpha1.SchedulingProfile:
		return v.ValidateProfile(ctx, o)
	case *v1alpha1.PluginWeight:
		return v.ValidatePluginWeight(ctx, o)
	}
	return nil
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
	if keyErrs := inlineKeyErrors(spec, fldPath); len(keyErrs) > 0 {
		errs = append(errs, keyErrs...)
		// The refusal says it all; the rest of the profile is still checked.
		spec = withoutInlineKeys(spec)
	}
	fwk, err := runtime.NewFramework(ctx, v.registry, schedulerName, spec, v.opts...)
	if err != nil {
		for _, e := range splitErrors(err) {
			errs = append(errs, v.specErrors(ctx, e, fldPath)...)
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

// Compile builds the framework of a profile as the scheduler would, against
// the Validator's fake cluster; it is a controllers.CompileFunc.
func (v *Validator) Compile(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error) {
	return runtime.NewFramework(ctx, v.registry, schedulerName, spec, append(slices.Clip(v.opts), opts...)...)
}

// ValidatePluginWeight returns every reason a PluginWeight can never apply:
// its plugin is unknown, or implements no Score extension point.
func (v *Validator) ValidatePluginWeight(ctx context.Context, w *v1alpha1.PluginWeight) field.ErrorList {
	path := field.NewPath("spec", "plugin")
	name := w.Spec.Plugin
	if _, ok := v.registry[name]; !ok {
		e := field.NotFound(path, name)
		e.Detail = v.knownPlugins(ctx, "Score")
		return field.ErrorList{e}
	}
	points, err := v.extensionPoints(ctx, name)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf("the plugin cannot be built: %v", err))}
	case !slices.Contains(points, "Score"):
		return field.ErrorList{field.Invalid(path, name,
			"the plugin implements no Score extension point, so a weight has no effect; "+v.knownPlugins(ctx, "Score"))}
	}
	return nil
}

// extensionPoints learns, once per registered plugin, where it may run, by
// building it with its default args against a handle of the default profile.
func (v *Validator) extensionPoints(ctx context.Context, name string) ([]string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.points[name]; ok {
		return c.names, c.err
	}
	if v.handle == nil {
		h, err := runtime.NewFramework(ctx, v.registry, "plugin-check", nil, v.opts...)
		if err != nil {
			return nil, fmt.Errorf("compiling the default profile: %w", err)
		}
		v.handle = h
	}
	var c extensionPoints
	if pl, err := v.registry[name](ctx, nil, v.handle); err != nil {
		c.err = err
	} else {
		c.names = runtime.ExtensionPointsOf(pl)
	}
	if ctx.Err() == nil {
		v.points[name] = c
	}
	return c.names, c.err
}

// knownPlugins says which registered plugins may run at the extension point
// (every plugin, for MultiPoint), sorted.
func (v *Validator) knownPlugins(ctx context.Context, point string) string {
	all := make([]string, 0, len(v.registry))
	for name := range v.registry {
		all = append(all, name)
	}
	slices.Sort(all)
	if point == "MultiPoint" {
		return "known plugins: " + strings.Join(all, ", ")
	}
	var fit []string
	for _, name := range all {
		if points, err := v.extensionPoints(ctx, name); err == nil && slices.Contains(points, point) {
			fit = append(fit, name)
		}
	}
	if len(fit) == 0 {
		return fmt.Sprintf("no known plugin implements %s", point)
	}
	return fmt.Sprintf("known %s plugins: %s", point, strings.Join(fit, ", "))
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
		if _, ok := err.(*args.SpecError); ok {
			// One problem, with its field, whatever it wraps.
			return []error{err}
		}
		inner := errors.Unwrap(err)
		if inner == nil {
			return []error{err}
		}
		if _, ok := inner.(interface{ Unwrap() []error }); !ok {
			// A single wrapped cause keeps its context.
			return []error{err}
		}
		err = inner
	}
}

// specErrors turns one compile error into field errors under fldPath: at
// the field the runtime names, and, for a plugin's args, at each field of
// the args its validation names. An unknown plugin gets the plugins known
// at its extension point; a plugin at a point it does not implement, the
// points it does.
func (v *Validator) specErrors(ctx context.Context, err error, fldPath *field.Path) field.ErrorList {
	var se *args.SpecError
	if !errors.As(err, &se) {
		return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, err.Error())}
	}
	path := se.Field(fldPath)
	// The path says what the section does.
	msg := se.Err.Error()
	switch se.Kind {
	case args.SpecInvalidArgs:
		// The args' field errors are under the args, when the profile
		// gives them; defaults that fail are the plugin's own doing.
		if strings.HasSuffix(path.String(), ".args") {
			if inner := argsFieldErrors(se.Err, path); len(inner) > 0 {
				return inner
			}
		}
		msg = se.Error()
	case args.SpecUnknownPlugin:
		msg += "; " + v.knownPlugins(ctx, se.Point)
	case args.SpecNotImplemented:
		if points, err := v.extensionPoints(ctx, se.Plugin); err == nil && len(points) > 0 {
			msg += "; it implements " + strings.Join(points, ", ")
		}
	}
	return field.ErrorList{field.Invalid(path, field.OmitValueType{}, msg)}
}

// argsFieldErrors returns the field errors of a plugin's args, loaded by
// args.Load, each under at, the path of the args in the object; nil when
// err carries none.
func argsFieldErrors(err error, at *field.Path) field.ErrorList {
	var invalid *args.InvalidError
	if !errors.As(err, &invalid) {
		return nil
	}
	return invalid.Under(at)
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

// InlineKeyMessage says why an extender's tlsConfig.keyData (and certData)
// is refused, and what to use instead.
const InlineKeyMessage = "a private key is not kept in a SchedulingProfile, which is cluster-scoped and often in git: " +
	"put the client certificate and its key in a Secret in Berth's namespace (keys tls.crt and tls.key, and ca.crt for the authorities) " +
	"and name it in tlsConfig.secretRef"

// inlineKeyErrors refuses a client certificate or key inline in an
// extender's tlsConfig: the key belongs in a Secret (tlsConfig.secretRef).
func inlineKeyErrors(spec *v1alpha1.SchedulingProfileSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range spec.Extenders {
		c := e.TLSConfig
		if c == nil {
			continue
		}
		path := fldPath.Child("extenders").Index(i).Child("tlsConfig")
		if len(c.KeyData) > 0 {
			errs = append(errs, field.Forbidden(path.Child("keyData"), InlineKeyMessage))
		}
		if len(c.CertData) > 0 {
			errs = append(errs, field.Forbidden(path.Child("certData"), "the certificate goes with its key: "+InlineKeyMessage))
		}
	}
	return errs
}

// withoutInlineKeys returns a copy of spec whose extenders carry no inline
// client certificate or key.
func withoutInlineKeys(spec *v1alpha1.SchedulingProfileSpec) *v1alpha1.SchedulingProfileSpec {
	out := spec.DeepCopy()
	for i := range out.Extenders {
		if c := out.Extenders[i].TLSConfig; c != nil {
			c.CertData, c.KeyData = nil, nil
		}
	}
	return out
}
