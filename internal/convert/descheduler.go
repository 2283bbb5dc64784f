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

package convert

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance"
)

// The descheduler's policy type that ConvertDeschedulerPolicy reads.
const (
	deschedulerAPIVersion = "descheduler/v1alpha2"
	deschedulerKind       = "DeschedulerPolicy"
	defaultEvictorName    = "DefaultEvictor"
)

// DefaultRebalanceInterval is how often a converted policy runs: a
// DeschedulerPolicy has no schedule of its own (the descheduler's
// --descheduling-interval flag sets it).
const DefaultRebalanceInterval = 5 * time.Minute

// Policy is one converted RebalancePolicy.
type Policy struct {
	// Name is the RebalancePolicy's metadata.name, the descheduler profile's name.
	Name string
	// Spec is the RebalancePolicy's spec.
	Spec v1alpha1.RebalancePolicySpec
}

// DeschedulerResult is the outcome of converting a DeschedulerPolicy.
type DeschedulerResult struct {
	// Policies are the RebalancePolicies, one per descheduler profile.
	Policies []Policy
	// Warnings name what convert dropped or chose for the user.
	Warnings []string
}

// deschedulerPolicy is the part of descheduler/v1alpha2 DeschedulerPolicy
// that convert reads; every other field is refused by name.
type deschedulerPolicy struct {
	APIVersion                       string                       `json:"apiVersion"`
	Kind                             string                       `json:"kind"`
	Profiles                         []deschedulerProfile         `json:"profiles,omitempty"`
	NodeSelector                     *string                      `json:"nodeSelector,omitempty"`
	MaxNoOfPodsToEvictPerNode        *int32                       `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	MaxNoOfPodsToEvictPerNamespace   *int32                       `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
	MaxNoOfPodsToEvictTotal          *int32                       `json:"maxNoOfPodsToEvictTotal,omitempty"`
	EvictionFailureEventNotification *bool                        `json:"evictionFailureEventNotification,omitempty"`
	GracePeriodSeconds               *int64                       `json:"gracePeriodSeconds,omitempty"`
	MetricsCollector                 *deschedulerMetricsCollector `json:"metricsCollector,omitempty"`
	MetricsProviders                 []deschedulerMetricsProvider `json:"metricsProviders,omitempty"`
	Prometheus                       json.RawMessage              `json:"prometheus,omitempty"`
}

type deschedulerProfile struct {
	Name         string                    `json:"name"`
	PluginConfig []deschedulerPluginConfig `json:"pluginConfig,omitempty"`
	Plugins      deschedulerPlugins        `json:"plugins"`
}

type deschedulerPluginConfig struct {
	Name string               `json:"name"`
	Args runtime.RawExtension `json:"args,omitempty"`
}

type deschedulerPlugins struct {
	PreSort           deschedulerPluginSet `json:"presort,omitempty"`
	Sort              deschedulerPluginSet `json:"sort,omitempty"`
	Deschedule        deschedulerPluginSet `json:"deschedule,omitempty"`
	Balance           deschedulerPluginSet `json:"balance,omitempty"`
	Filter            deschedulerPluginSet `json:"filter,omitempty"`
	PreEvictionFilter deschedulerPluginSet `json:"preEvictionFilter,omitempty"`
}

type deschedulerPluginSet struct {
	Enabled  []string `json:"enabled,omitempty"`
	Disabled []string `json:"disabled,omitempty"`
}

// defaultEvictorArgs is the part of the DefaultEvictor's args a
// RebalancePolicy's evictor options express.
type defaultEvictorArgs struct {
	APIVersion              string                      `json:"apiVersion,omitempty"`
	Kind                    string                      `json:"kind,omitempty"`
	EvictLocalStoragePods   bool                        `json:"evictLocalStoragePods,omitempty"`
	EvictDaemonSetPods      bool                        `json:"evictDaemonSetPods,omitempty"`
	EvictSystemCriticalPods bool                        `json:"evictSystemCriticalPods,omitempty"`
	EvictFailedBarePods     bool                        `json:"evictFailedBarePods,omitempty"`
	IgnorePvcPods           bool                        `json:"ignorePvcPods,omitempty"`
	NodeFit                 bool                        `json:"nodeFit,omitempty"`
	MinPodAge               *metav1.Duration            `json:"minPodAge,omitempty"`
	PriorityThreshold       *v1alpha1.PriorityThreshold `json:"priorityThreshold,omitempty"`
	LabelSelector           *metav1.LabelSelector       `json:"labelSelector,omitempty"`
	// Fields with no equivalent in a RebalancePolicy; refused when set.
	NodeSelector           string          `json:"nodeSelector,omitempty"`
	MinReplicas            uint            `json:"minReplicas,omitempty"`
	NoEvictionPolicy       string          `json:"noEvictionPolicy,omitempty"`
	IgnorePodsWithoutPDB   bool            `json:"ignorePodsWithoutPDB,omitempty"`
	PodProtections         json.RawMessage `json:"podProtections,omitempty"`
	NamespaceLabelSelector json.RawMessage `json:"namespaceLabelSelector,omitempty"`
}

// ConvertDeschedulerPolicy reads one DeschedulerPolicy (descheduler/v1alpha2)
// and returns one RebalancePolicy per profile, in dry-run mode and running
// every interval. Every problem is reported at once with its field path.
func (c *Converter) ConvertDeschedulerPolicy(data []byte, interval time.Duration) (*DeschedulerResult, error) {
	policy, err := decodeDeschedulerPolicy(data)
	if err != nil {
		return nil, err
	}
	res := &DeschedulerResult{}
	var errs field.ErrorList
	if policy.NodeSelector != nil {
		errs = append(errs, field.Forbidden(field.NewPath("nodeSelector"), "a RebalancePolicy works on every node; restrict pods with the strategies' namespaces and labelSelector instead"))
	}
	if len(policy.Prometheus) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("prometheus"), "name Prometheus in metricsProviders, with source Prometheus"))
	}
	providers, perrs, pwarnings := convertMetricsProviders(policy)
	errs, res.Warnings = append(errs, perrs...), append(res.Warnings, pwarnings...)
	if policy.EvictionFailureEventNotification != nil {
		res.Warnings = append(res.Warnings, "evictionFailureEventNotification is dropped: Berth always records failed and blocked evictions in the policy's status.plan")
	}
	if policy.GracePeriodSeconds != nil {
		res.Warnings = append(res.Warnings, "gracePeriodSeconds is dropped: Berth's evictions use each pod's own terminationGracePeriodSeconds")
	}
	limits := &v1alpha1.EvictionLimits{
		MaxPodsToEvictPerNode:      policy.MaxNoOfPodsToEvictPerNode,
		MaxPodsToEvictPerNamespace: policy.MaxNoOfPodsToEvictPerNamespace,
		MaxPodsToEvictTotal:        policy.MaxNoOfPodsToEvictTotal,
	}
	if *limits == (v1alpha1.EvictionLimits{}) {
		limits = nil
	} else if len(policy.Profiles) > 1 {
		res.Warnings = append(res.Warnings, "the descheduler's eviction limits are shared by all its profiles; each RebalancePolicy gets them for itself")
	}
	if len(policy.Profiles) == 0 {
		errs = append(errs, field.Required(field.NewPath("profiles"), "a DeschedulerPolicy without profiles evicts nothing"))
	}
	seen := map[string]int{}
	for i, p := range policy.Profiles {
		path := field.NewPath("profiles").Index(i)
		out, perrs := c.convertDeschedulerProfile(&p, limits, providers, interval, path)
		if first, dup := seen[out.Name]; dup {
			perrs = append(perrs, field.Duplicate(path.Child("name"), fmt.Sprintf("%s (also the name of profiles[%d])", out.Name, first)))
		}
		seen[out.Name] = i
		errs = append(errs, perrs...)
		if out.Spec.Evictor != nil && out.Spec.Evictor.NodeFit {
			res.Warnings = append(res.Warnings, fmt.Sprintf("RebalancePolicy %s: nodeFit asks the install's default SchedulingProfile (berth with the Helm chart, default-scheduler without --default-profile); set spec.profileRef if its pods use another scheduler", out.Name))
		}
		res.Policies = append(res.Policies, out)
	}
	if len(errs) > 0 {
		return nil, oneLineEach(errs)
	}
	res.Warnings = append(res.Warnings, "every RebalancePolicy is written with dryRun: true; read its status.plan, then set dryRun: false")
	return res, nil
}

// decodeDeschedulerPolicy reads the policy strictly.
func decodeDeschedulerPolicy(data []byte) (*deschedulerPolicy, error) {
	policy := &deschedulerPolicy{}
	if err := decodeStrict(data, "policy", deschedulerAPIVersion, deschedulerKind, "", policy); err != nil {
		return nil, err
	}
	return policy, nil
}

func (p *deschedulerPolicy) header() (apiVersion, kind string) { return p.APIVersion, p.Kind }

// convertDeschedulerProfile maps one descheduler profile; its errors are under path.
func (c *Converter) convertDeschedulerProfile(p *deschedulerProfile, limits *v1alpha1.EvictionLimits, providers []v1alpha1.MetricsProvider, interval time.Duration, path *field.Path) (Policy, field.ErrorList) {
	out := Policy{Name: p.Name}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(p.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), p.Name, "a RebalancePolicy is named after its profile, which must be a DNS subdomain: "+msg))
	}
	out.Spec = v1alpha1.RebalancePolicySpec{
		Schedule: v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: interval}},
		DryRun:   ptr.To(true),
		Limits:   limits,
		// The descheduler's providers serve every profile; each policy
		// gets them all, and polls only those its strategies read.
		MetricsProviders: providers,
	}
	plugins := p.Plugins
	for _, set := range []struct {
		name string
		set  deschedulerPluginSet
	}{{"presort", plugins.PreSort}, {"sort", plugins.Sort}} {
		if len(set.set.Enabled) > 0 {
			errs = append(errs, field.Forbidden(path.Child("plugins", set.name), "Berth's strategies order pods themselves; custom "+set.name+" plugins have no equivalent"))
		}
	}
	for _, set := range []struct {
		name string
		set  deschedulerPluginSet
	}{{"filter", plugins.Filter}, {"preEvictionFilter", plugins.PreEvictionFilter}} {
		for i, name := range set.set.Enabled {
			if name != defaultEvictorName {
				errs = append(errs, field.NotSupported(path.Child("plugins", set.name, "enabled").Index(i), name, []string{defaultEvictorName}))
			}
		}
	}

	strategyArgs := map[string]runtime.RawExtension{}
	argsAt := map[string]*field.Path{}
	for i, pc := range p.PluginConfig {
		strategyArgs[pc.Name] = pc.Args
		argsAt[pc.Name] = path.Child("pluginConfig").Index(i).Child("args")
		if pc.Name == defaultEvictorName {
			evictor, eerrs := evictorOptions(pc.Args.Raw, path.Child("pluginConfig").Index(i).Child("args"))
			out.Spec.Evictor, errs = evictor, append(errs, eerrs...)
		}
	}
	var unknown []string
	// enabledAt is where each strategy is enabled, in the order of out.Spec.Strategies.
	var enabledAt []*field.Path
	for _, set := range []struct {
		name string
		set  deschedulerPluginSet
	}{{"deschedule", plugins.Deschedule}, {"balance", plugins.Balance}} {
		for i, name := range set.set.Enabled {
			if _, ok := c.strategies[v1alpha1.StrategyName(name)]; !ok {
				unknown = append(unknown, name)
				continue
			}
			out.Spec.Strategies = append(out.Spec.Strategies, v1alpha1.Strategy{Name: v1alpha1.StrategyName(name), Args: strategyArgs[name]})
			enabledAt = append(enabledAt, path.Child("plugins", set.name, "enabled").Index(i))
		}
	}
	if len(unknown) > 0 {
		errs = append(errs, field.Invalid(path.Child("plugins"), strings.Join(unknown, ", "), "Berth has no strategy of these names"))
	}
	if len(out.Spec.Strategies) == 0 && len(unknown) == 0 {
		errs = append(errs, field.Required(path.Child("plugins"), "enable at least one deschedule or balance plugin"))
	}
	if len(errs) > 0 {
		return out, errs
	}
	for _, se := range args.SpecErrors(rebalance.ValidateSpec(c.strategies, &out.Spec)) {
		if len(se.Path) > 0 && se.Path[0] == "metricsProviders" {
			// The DeschedulerPolicy's metricsProviders, reported there.
			continue
		}
		errs = append(errs, strategyErrors(se, p.Name, path, enabledAt, argsAt, out.Spec.Strategies)...)
	}
	return out, errs
}

// strategyErrors places a problem of a converted policy in the descheduler
// profile at path: a strategy's args that do not validate at their fields
// in the profile's pluginConfig, args that do not decode at that
// pluginConfig entry, a strategy without a pluginConfig entry whose
// defaults do not validate where it is enabled, and anything else at the
// profile.
func strategyErrors(se *args.SpecError, profile string, path *field.Path, enabledAt []*field.Path, argsAt map[string]*field.Path, converted []v1alpha1.Strategy) field.ErrorList {
	if se.Kind != args.SpecInvalidArgs || se.Strategy < 0 || se.Strategy >= len(converted) {
		return field.ErrorList{field.Invalid(path, profile, se.Error())}
	}
	name := string(converted[se.Strategy].Name)
	at, configured := argsAt[name]
	invalid := se.InvalidArgs()
	switch {
	case !configured && invalid != nil:
		return field.ErrorList{field.Invalid(enabledAt[se.Strategy], name, "needs args in pluginConfig: "+invalid.Errs.ToAggregate().Error())}
	case !configured:
		return field.ErrorList{field.Invalid(enabledAt[se.Strategy], name, se.Error())}
	case invalid != nil:
		return invalid.Under(at)
	}
	return field.ErrorList{field.Invalid(at, field.OmitValueType{}, se.Error())}
}

// evictorOptions maps the DefaultEvictor's args; args with no equivalent are errors.
func evictorOptions(raw []byte, path *field.Path) (*v1alpha1.EvictorOptions, field.ErrorList) {
	if len(raw) == 0 {
		return nil, nil
	}
	var a defaultEvictorArgs
	strict, err := sigsjson.UnmarshalStrict(raw, &a, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(path, string(raw), err.Error())}
	}
	var errs field.ErrorList
	for _, e := range strict {
		errs = append(errs, field.Invalid(path, "", e.Error()))
	}
	for _, f := range []struct {
		name, why string
		set       bool
	}{
		{"nodeSelector", "a RebalancePolicy considers every node", a.NodeSelector != ""},
		{"minReplicas", "no equivalent; protect small workloads with a PodDisruptionBudget", a.MinReplicas > 0},
		{"noEvictionPolicy", "no equivalent", a.NoEvictionPolicy != ""},
		{"ignorePodsWithoutPDB", "no equivalent", a.IgnorePodsWithoutPDB},
		{"podProtections", "use the evictor's evict* and ignorePvcPods options", len(a.PodProtections) > 0},
		{"namespaceLabelSelector", "use the policy's namespaces include/exclude lists", len(a.NamespaceLabelSelector) > 0},
	} {
		if f.set {
			errs = append(errs, field.Forbidden(path.Child(f.name), f.why))
		}
	}
	return &v1alpha1.EvictorOptions{
		EvictLocalStoragePods:   a.EvictLocalStoragePods,
		EvictSystemCriticalPods: a.EvictSystemCriticalPods,
		EvictDaemonSetPods:      a.EvictDaemonSetPods,
		EvictFailedBarePods:     a.EvictFailedBarePods,
		IgnorePVCPods:           a.IgnorePvcPods,
		NodeFit:                 a.NodeFit,
		MinPodAge:               a.MinPodAge,
		PriorityThreshold:       a.PriorityThreshold,
		LabelSelector:           a.LabelSelector,
	}, errs
}

// policyDocument is a RebalancePolicy as convert writes it: strategies
// without args carry no args field.
type policyDocument struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   documentMetadata `json:"metadata"`
	Spec       policySpec       `json:"spec"`
}

type policySpec struct {
	v1alpha1.RebalancePolicySpec `json:",inline"`
	Strategies                   []strategyDocument `json:"strategies"`
}

type strategyDocument struct {
	Name v1alpha1.StrategyName `json:"name"`
	Args *runtime.RawExtension `json:"args,omitempty"`
}

// WritePolicies writes policies as a multi-document YAML stream of RebalancePolicies.
func WritePolicies(w io.Writer, policies []Policy) error {
	for i, p := range policies {
		doc := policyDocument{
			APIVersion: v1alpha1.GroupVersion.String(),
			Kind:       "RebalancePolicy",
			Metadata:   documentMetadata{Name: p.Name},
			Spec:       policySpec{RebalancePolicySpec: p.Spec},
		}
		for _, s := range p.Spec.Strategies {
			sd := strategyDocument{Name: s.Name}
			if len(s.Args.Raw) > 0 {
				sd.Args = &s.Args
			}
			doc.Spec.Strategies = append(doc.Spec.Strategies, sd)
		}
		out, err := yaml.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encoding policy %q: %w", p.Name, err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return fmt.Errorf("writing policy %q: %w", p.Name, err)
			}
		}
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("writing policy %q: %w", p.Name, err)
		}
	}
	return nil
}

// IsDeschedulerPolicy reports whether data declares a DeschedulerPolicy.
func IsDeschedulerPolicy(data []byte) bool {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return false
	}
	return head.Kind == deschedulerKind || strings.HasPrefix(head.APIVersion, "descheduler/")
}
