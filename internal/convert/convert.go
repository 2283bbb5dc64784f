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

// Package convert turns an upstream KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1) into Berth SchedulingProfiles, one per
// upstream profile, and a descheduler DeschedulerPolicy
// (descheduler/v1alpha2) into RebalancePolicies, one per descheduler
// profile, and says clearly what has no equivalent in Berth.
package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers/webhook"
	"github.com/berth-io/berth/internal/registries"
	extenderpkg "github.com/berth-io/berth/scheduler/framework/extender"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// defaultSchedulerName is upstream's scheduler name for a profile that names none.
const defaultSchedulerName = "default-scheduler"

// SchedulerNamePrefix starts the schedulerName of every converted profile
// that --scheduler-name does not name: kube-scheduler serves the upstream
// names, and two schedulers must not serve one name.
const SchedulerNamePrefix = "berth-"

// SchedulerNameError is a --scheduler-name mapping that does not fit the configuration.
type SchedulerNameError struct{ msg string }

func (e *SchedulerNameError) Error() string { return e.msg }

// Profile is one converted SchedulingProfile.
type Profile struct {
	// Name is the SchedulingProfile's metadata.name, the schedulerName it serves.
	Name string
	// Spec is the SchedulingProfile's spec.
	Spec v1alpha1.SchedulingProfileSpec
}

// Result is the outcome of a conversion.
type Result struct {
	// Profiles are the SchedulingProfiles, in the order of the upstream profiles.
	Profiles []Profile
	// Warnings name upstream settings that convert dropped because they
	// belong to the Berth manager's flags or have no effect in Berth.
	Warnings []string
}

// Converter converts KubeSchedulerConfigurations against one plugin registry.
type Converter struct {
	registry   runtime.Registry
	validator  *webhook.Validator
	strategies strategies.Registry
	// schedulerNames maps upstream schedulerNames to the names the
	// converted profiles serve; the key "" stands for the only profile.
	schedulerNames map[string]string
}

// Option configures a Converter.
type Option func(*Converter)

// WithSchedulerNames names the schedulerName each converted profile
// serves, by the upstream profile's schedulerName; the key "" stands for
// the only profile of a configuration that has one. A profile not named
// serves SchedulerNamePrefix + its upstream name.
func WithSchedulerNames(names map[string]string) Option {
	return func(c *Converter) { c.schedulerNames = names }
}

// New returns a Converter that knows reg's plugins and strategies, the
// binary's own, and checks every profile it writes as Berth's validating
// webhook would.
func New(reg registries.Set, opts ...Option) *Converter {
	c := &Converter{registry: reg.Plugins, validator: webhook.NewValidator(reg.Plugins), strategies: reg.Strategies}
	for _, o := range opts {
		o(c)
	}
	return c
}

// managerSettings says, for each upstream setting that Berth takes from the
// manager's command line instead, what replaces it.
var managerSettings = []struct {
	field       string
	replacement string
	set         func(*schedulerConfiguration) bool
}{
	{"parallelism", "the `berth manager --parallelism` flag",
		func(c *schedulerConfiguration) bool { return c.Parallelism != nil }},
	{"leaderElection", "the `berth manager --leader-elect` flags",
		func(c *schedulerConfiguration) bool { return len(c.LeaderElection) > 0 }},
	{"clientConnection", "the `berth manager --kubeconfig`, `--kube-api-qps` and `--kube-api-burst` flags",
		func(c *schedulerConfiguration) bool { return len(c.ClientConnection) > 0 }},
	{"enableProfiling", "the `berth manager --pprof-bind-address` flag",
		func(c *schedulerConfiguration) bool { return c.EnableProfiling != nil }},
	{"enableContentionProfiling", "the `berth manager --pprof-bind-address` flag",
		func(c *schedulerConfiguration) bool { return c.EnableContentionProfiling != nil }},
	{"delayCacheUntilActive", "nothing: Berth's replicas always keep their cache warm",
		func(c *schedulerConfiguration) bool { return c.DelayCacheUntilActive }},
}

// Convert reads one KubeSchedulerConfiguration in YAML or JSON and returns
// its profiles as SchedulingProfiles. Every problem is reported at once,
// each with the path of the field it is about.
func (c *Converter) Convert(ctx context.Context, data []byte) (*Result, error) {
	cfg, err := decode(data)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, s := range managerSettings {
		if s.set(cfg) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is not part of a SchedulingProfile; it is replaced by %s", s.field, s.replacement))
		}
	}

	extenders, errs, warnings := convertExtenders(cfg.Extenders)
	res.Warnings = append(res.Warnings, warnings...)
	if len(errs) > 0 {
		// The webhook's checks of each profile would repeat these errors.
		extenders = nil
	}
	profiles := cfg.Profiles
	if len(profiles) == 0 {
		profiles = []profile{{}}
	}
	names, renamed, err := c.servedNames(profiles)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]int, len(profiles))
	for i, p := range profiles {
		path := field.NewPath("profiles").Index(i)
		out, perrs := c.convertProfile(ctx, cfg, &p, names[i], extenders, path)
		if first, dup := seen[out.Name]; dup {
			perrs = append(perrs, field.Duplicate(path.Child("schedulerName"),
				fmt.Sprintf("%s (also the name of profiles[%d])", out.Name, first)))
		}
		seen[out.Name] = i
		errs = append(errs, perrs...)
		res.Warnings = append(res.Warnings, metricProviderWarnings(p.PluginConfig, path)...)
		res.Profiles = append(res.Profiles, out)
	}
	if len(errs) > 0 {
		return nil, oneLineEach(errs)
	}
	if len(renamed) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the profiles serve %s, so that they do not take over the names kube-scheduler serves; "+
			"pods choose them with spec.schedulerName. To serve an upstream name once kube-scheduler no longer does, "+
			"pass --scheduler-name UPSTREAM=NAME (see docs/coexistence.md)", strings.Join(renamed, ", ")))
	}
	return res, nil
}

// servedNames returns the schedulerName each profile serves, and the
// renames it made by default ("a as berth-a"); a --scheduler-name mapping
// that does not fit the profiles is a SchedulerNameError.
func (c *Converter) servedNames(profiles []profile) (names, renamed []string, err error) {
	upstream := make([]string, len(profiles))
	for i := range profiles {
		upstream[i] = ptr.Deref(profiles[i].SchedulerName, defaultSchedulerName)
	}
	mapping := c.schedulerNames
	if only, ok := mapping[""]; ok {
		if len(profiles) != 1 || len(mapping) != 1 {
			return nil, nil, &SchedulerNameError{msg: fmt.Sprintf("--scheduler-name %s names the only profile, but the configuration has %d profiles (%s): use UPSTREAM=NAME for each",
				only, len(profiles), strings.Join(upstream, ", "))}
		}
		mapping = map[string]string{upstream[0]: only}
	}
	for from := range mapping {
		if !slices.Contains(upstream, from) {
			return nil, nil, &SchedulerNameError{msg: fmt.Sprintf("--scheduler-name names schedulerName %s, which no profile of the configuration serves (it has %s)",
				from, strings.Join(upstream, ", "))}
		}
	}
	for _, from := range upstream {
		to, ok := mapping[from]
		if !ok {
			to = SchedulerNamePrefix + from
			renamed = append(renamed, fmt.Sprintf("%s as %s", from, to))
		}
		names = append(names, to)
	}
	return names, renamed, nil
}

// decode reads the configuration strictly: an unknown or repeated field is
// an error naming its path.
func decode(data []byte) (*schedulerConfiguration, error) {
	cfg := &schedulerConfiguration{}
	if err := decodeStrict(data, "configuration", upstreamAPIVersion, upstreamKind, " (migrate older versions to v1 first)", cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (c *schedulerConfiguration) header() (apiVersion, kind string) { return c.APIVersion, c.Kind }

// document is an input whose apiVersion and kind convert checks.
type document interface {
	header() (apiVersion, kind string)
}

// decodeStrict reads YAML or JSON data into out, refusing empty input, a
// different apiVersion or kind (hint follows that message), and unknown or
// repeated fields, each named by its path; what names the input in errors.
func decodeStrict(data []byte, what, wantVersion, wantKind, hint string, out document) error {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return fmt.Errorf("reading the %s: %w", what, err)
	}
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		return fmt.Errorf("reading the %s: the input is empty", what)
	}
	strict, err := sigsjson.UnmarshalStrict(js, out, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return fmt.Errorf("decoding the %s: %w", what, err)
	}
	if version, kind := out.header(); version != wantVersion || kind != wantKind {
		return fmt.Errorf("the input has apiVersion %q and kind %q; convert reads kind %s of apiVersion %s%s",
			version, kind, wantKind, wantVersion, hint)
	}
	if len(strict) > 0 {
		return fmt.Errorf("decoding the %s: %w", what, errors.Join(strict...))
	}
	return nil
}

// oneLineEach joins errs so that each problem reads on its own line in a terminal.
func oneLineEach(errs field.ErrorList) error {
	list := make([]error, len(errs))
	for i, e := range errs {
		list[i] = e
	}
	return errors.Join(list...)
}

// convertProfile maps one upstream profile; its errors are under path.
func (c *Converter) convertProfile(ctx context.Context, cfg *schedulerConfiguration, p *profile, name string, extenders []v1alpha1.Extender, path *field.Path) (Profile, field.ErrorList) {
	out := Profile{Name: name}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(out.Name) {
		errs = append(errs, field.Invalid(path.Child("schedulerName"), out.Name,
			"a SchedulingProfile is named after the schedulerName it serves, which must be a DNS subdomain: "+msg))
	}
	out.Spec = v1alpha1.SchedulingProfileSpec{
		SchedulerName:            out.Name,
		PercentageOfNodesToScore: p.PercentageOfNodesToScore,
		PodInitialBackoffSeconds: cfg.PodInitialBackoffSeconds,
		PodMaxBackoffSeconds:     cfg.PodMaxBackoffSeconds,
		PluginConfig:             p.PluginConfig,
		Extenders:                slices.Clone(extenders),
	}
	if out.Spec.PercentageOfNodesToScore == nil {
		out.Spec.PercentageOfNodesToScore = cfg.PercentageOfNodesToScore
	}
	if p.Plugins != nil {
		ps := p.Plugins.Plugins
		out.Spec.Plugins = &ps
		errs = append(errs, c.checkPlugins(&ps, p.PluginConfig, path)...)
	}
	if len(errs) > 0 {
		// The webhook's checks would repeat these errors in other words.
		return out, errs
	}
	spec := out.Spec
	return out, c.validator.ValidateProfileSpec(ctx, out.Name, &spec, path)
}

// checkPlugins reports the plugins Berth does not know, named together, and
// a QueueSort other than PrioritySort.
func (c *Converter) checkPlugins(ps *v1alpha1.Plugins, config []v1alpha1.PluginConfig, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	unknown := sets.New[string]()
	for _, name := range enabledNames(ps) {
		if _, ok := c.registry[name]; !ok {
			unknown.Insert(name)
		}
	}
	for _, pc := range config {
		if _, ok := c.registry[pc.Name]; !ok {
			unknown.Insert(pc.Name)
		}
	}
	if unknown.Len() > 0 {
		errs = append(errs, field.Invalid(path.Child("plugins"), strings.Join(sets.List(unknown), ", "),
			"Berth does not implement these plugins; remove them from plugins and pluginConfig"))
	}
	if ps.QueueSort != nil {
		for i, p := range ps.QueueSort.Enabled {
			if p.Name != names.PrioritySort {
				errs = append(errs, field.NotSupported(path.Child("plugins", "queueSort", "enabled").Index(i).Child("name"),
					p.Name, []string{names.PrioritySort}))
				errs[len(errs)-1].Detail += ": all Berth profiles share one scheduling queue, ordered by PrioritySort"
			}
		}
	}
	return errs
}

// enabledNames lists every plugin a profile enables at any extension point.
func enabledNames(ps *v1alpha1.Plugins) []string {
	var out []string
	for _, set := range []*v1alpha1.PluginSet{
		ps.PreEnqueue, ps.QueueSort, ps.PreFilter, ps.Filter, ps.PostFilter, ps.PreScore, ps.Score,
		ps.Reserve, ps.Permit, ps.PreBind, ps.Bind, ps.PostBind, ps.PlacementGenerate, ps.PlacementScore, ps.PodGroupPostFilter, ps.MultiPoint,
	} {
		if set == nil {
			continue
		}
		for _, p := range set.Enabled {
			if !slices.Contains(out, p.Name) {
				out = append(out, p.Name)
			}
		}
	}
	return out
}

// Write writes profiles as a multi-document YAML stream of SchedulingProfiles.
func Write(w io.Writer, profiles []Profile) error {
	for i, p := range profiles {
		doc := profileDocument{
			APIVersion: v1alpha1.GroupVersion.String(),
			Kind:       "SchedulingProfile",
			Metadata:   documentMetadata{Name: p.Name},
			Spec:       p.Spec,
		}
		out, err := yaml.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encoding profile %q: %w", p.Name, err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return fmt.Errorf("writing profile %q: %w", p.Name, err)
			}
		}
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("writing profile %q: %w", p.Name, err)
		}
	}
	return nil
}

// maxExtenders is the most extenders a SchedulingProfile holds.
const maxExtenders = 10

// clientCertMessage says where an extender's client certificate and key go.
const clientCertMessage = "a SchedulingProfile keeps no client certificate or key: create a Secret in Berth's namespace from them " +
	"(kubectl create secret generic NAME -n NAMESPACE --from-file=tls.crt=CERT --from-file=tls.key=KEY) " +
	"and name it in the profile's tlsConfig.secretRef"

// convertExtenders maps upstream's extenders, which apply to every profile,
// into the spec.extenders each profile gets. The scheduler reads no files:
// authorities go inline (caData), and a client certificate with its key in
// a Secret (tlsConfig.secretRef), since no private key is kept in a profile.
func convertExtenders(in []extender) ([]v1alpha1.Extender, field.ErrorList, []string) {
	var (
		out      []v1alpha1.Extender
		errs     field.ErrorList
		warnings []string
		binders  int
	)
	if len(in) > maxExtenders {
		errs = append(errs, field.TooMany(field.NewPath("extenders"), len(in), maxExtenders))
	}
	for i, e := range in {
		path := field.NewPath("extenders").Index(i)
		x := e.Extender
		if e.TLSConfig != nil {
			tls := e.TLSConfig.ExtenderTLSConfig
			x.TLSConfig = &tls
			if e.TLSConfig.CAFile != "" {
				errs = append(errs, field.Forbidden(path.Child("tlsConfig", "caFile"),
					"the scheduler reads no files; put the PEM content (base64) in tlsConfig.caData instead"))
			}
			for _, f := range []struct {
				name string
				set  bool
			}{
				{"certFile", e.TLSConfig.CertFile != ""}, {"keyFile", e.TLSConfig.KeyFile != ""},
				{"certData", len(tls.CertData) > 0}, {"keyData", len(tls.KeyData) > 0},
			} {
				if f.set {
					errs = append(errs, field.Forbidden(path.Child("tlsConfig", f.name), clientCertMessage))
				}
			}
		}
		if x.URLPrefix == "" {
			errs = append(errs, field.Required(path.Child("urlPrefix"), ""))
		}
		if x.PrioritizeVerb != "" && x.Weight < 1 {
			errs = append(errs, field.Invalid(path.Child("weight"), x.Weight, "must be at least 1 when prioritizeVerb is set"))
		}
		if x.BindVerb != "" {
			if binders++; binders > 1 {
				errs = append(errs, field.Invalid(path.Child("bindVerb"), x.BindVerb, "only one extender may bind"))
			}
		}
		if x.HTTPTimeout != nil && x.HTTPTimeout.Duration > extenderpkg.MaxTimeout {
			warnings = append(warnings, fmt.Sprintf("extenders[%d].httpTimeout %v is cut to %v, Berth's maximum: extenders are called inside the scheduling cycle, which every profile shares", i, x.HTTPTimeout.Duration, extenderpkg.MaxTimeout))
			x.HTTPTimeout = &metav1.Duration{Duration: extenderpkg.MaxTimeout}
		}
		for j, r := range x.ManagedResources {
			if r.IgnoredByScheduler {
				warnings = append(warnings, fmt.Sprintf("extenders[%d].managedResources[%d].ignoredByScheduler is kept but NodeResourcesFit still checks %s; set it in NodeResourcesFitArgs.ignoredResources", i, j, r.Name))
			}
		}
		out = append(out, x)
	}
	return out, errs, warnings
}

// metricProviderWarnings warns of a Trimaran plugin reading Prometheus over
// https with insecureSkipVerify unset: scheduler-plugins then skips
// verifying Prometheus's certificate, Berth verifies it.
func metricProviderWarnings(config []v1alpha1.PluginConfig, path *field.Path) []string {
	var out []string
	for i, pc := range config {
		var a struct {
			MetricProvider struct {
				Type               string  `json:"type"`
				Address            *string `json:"address"`
				InsecureSkipVerify *bool   `json:"insecureSkipVerify"`
			} `json:"metricProvider"`
		}
		if len(pc.Args.Raw) == 0 || json.Unmarshal(pc.Args.Raw, &a) != nil {
			continue
		}
		mp := a.MetricProvider
		if mp.Type != "Prometheus" || mp.InsecureSkipVerify != nil || mp.Address == nil || !strings.HasPrefix(*mp.Address, "https://") {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s reads Prometheus over https with insecureSkipVerify unset, which scheduler-plugins reads as true "+
			"and Berth as false: Berth verifies Prometheus's certificate against the system's roots or caSecretRef's bundle; "+
			"set insecureSkipVerify: true to keep skipping it",
			path.Child("pluginConfig").Index(i).Child("args", "metricProvider"), pc.Name))
	}
	return out
}
