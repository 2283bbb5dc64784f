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
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
)

// deschedulerMetricsCollector is the deprecated metricsCollector of a
// DeschedulerPolicy.
type deschedulerMetricsCollector struct {
	Enabled bool `json:"enabled,omitempty"`
}

// deschedulerMetricsProvider is one entry of a DeschedulerPolicy's
// metricsProviders.
type deschedulerMetricsProvider struct {
	Source     v1alpha1.MetricsSource `json:"source,omitempty"`
	Prometheus *deschedulerPrometheus `json:"prometheus,omitempty"`
}

type deschedulerPrometheus struct {
	URL       string                `json:"url,omitempty"`
	AuthToken *deschedulerAuthToken `json:"authToken,omitempty"`
}

type deschedulerAuthToken struct {
	SecretReference *deschedulerSecretReference `json:"secretReference,omitempty"`
}

type deschedulerSecretReference struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// convertMetricsProviders maps the policy's metricsProviders, and its
// deprecated metricsCollector (enabled: source KubernetesMetrics), to the
// metricsProviders of every RebalancePolicy, with the descheduler's rules:
// each source once, not metricsCollector and a KubernetesMetrics provider
// together, a Prometheus provider with its URL.
func convertMetricsProviders(policy *deschedulerPolicy) ([]v1alpha1.MetricsProvider, field.ErrorList, []string) {
	var out []v1alpha1.MetricsProvider
	var errs field.ErrorList
	var warnings []string
	seen := map[v1alpha1.MetricsSource]bool{}
	for i, p := range policy.MetricsProviders {
		path := field.NewPath("metricsProviders").Index(i)
		if seen[p.Source] {
			errs = append(errs, field.Duplicate(path.Child("source"), p.Source))
			continue
		}
		seen[p.Source] = true
		switch p.Source {
		case v1alpha1.MetricsSourceKubernetesMetrics:
			if p.Prometheus != nil {
				errs = append(errs, field.Forbidden(path.Child("prometheus"), "only for source Prometheus"))
			}
			out = append(out, v1alpha1.MetricsProvider{Source: p.Source})
		case v1alpha1.MetricsSourcePrometheus:
			prom, perrs, pwarnings := convertPrometheus(p.Prometheus, path.Child("prometheus"))
			errs, warnings = append(errs, perrs...), append(warnings, pwarnings...)
			out = append(out, v1alpha1.MetricsProvider{Source: p.Source, Prometheus: prom})
		case "":
			errs = append(errs, field.Required(path.Child("source"), "KubernetesMetrics or Prometheus"))
		default:
			errs = append(errs, field.NotSupported(path.Child("source"), p.Source,
				[]string{string(v1alpha1.MetricsSourceKubernetesMetrics), string(v1alpha1.MetricsSourcePrometheus)}))
		}
	}
	if c := policy.MetricsCollector; c != nil && c.Enabled {
		if seen[v1alpha1.MetricsSourceKubernetesMetrics] {
			errs = append(errs, field.Forbidden(field.NewPath("metricsCollector", "enabled"),
				"it is not allowed to combine metrics provider when metrics collector is enabled: keep the KubernetesMetrics entry of metricsProviders"))
		} else {
			out = append(out, v1alpha1.MetricsProvider{Source: v1alpha1.MetricsSourceKubernetesMetrics})
			warnings = append(warnings, "metricsCollector is deprecated: enabled, it is written as metricsProviders source KubernetesMetrics")
		}
	}
	return out, errs, warnings
}

// convertPrometheus maps a Prometheus provider under path.
func convertPrometheus(p *deschedulerPrometheus, path *field.Path) (*v1alpha1.PrometheusProvider, field.ErrorList, []string) {
	if p == nil {
		return nil, field.ErrorList{field.Required(path, "prometheus configuration is required when prometheus source is enabled")}, nil
	}
	var errs field.ErrorList
	var warnings []string
	if p.URL == "" {
		errs = append(errs, field.Required(path.Child("url"), "prometheus URL is required when prometheus is enabled"))
	} else if u, err := url.Parse(p.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, field.Invalid(path.Child("url"), p.URL, "must be an http:// or https:// URL with a host"))
	}
	out := &v1alpha1.PrometheusProvider{URL: p.URL}
	switch {
	case p.AuthToken == nil:
		warnings = append(warnings, fmt.Sprintf("%s has no authToken: the descheduler sends its service account's token, Berth sends none; "+
			"put a token under key %s of a Secret in Berth's namespace and name it in authToken.secretReference", path, v1alpha1.PrometheusAuthTokenKey))
	case p.AuthToken.SecretReference == nil:
		errs = append(errs, field.Required(path.Child("authToken", "secretReference"), "prometheus authToken secret is expected to be set when authToken field is"))
	case p.AuthToken.SecretReference.Namespace == "" || p.AuthToken.SecretReference.Name == "":
		errs = append(errs, field.Required(path.Child("authToken", "secretReference"), "prometheus authToken secret reference does not set both namespace and name"))
	default:
		ref := p.AuthToken.SecretReference
		out.AuthToken = &v1alpha1.PrometheusAuthToken{SecretReference: v1alpha1.SecretReference{Namespace: ref.Namespace, Name: ref.Name}}
		warnings = append(warnings, fmt.Sprintf("%s.authToken: Berth reads Secrets only in its own namespace: Secret %s/%s must be there, its token under key %s as for the descheduler",
			path, ref.Namespace, ref.Name, v1alpha1.PrometheusAuthTokenKey))
	}
	return out, errs, warnings
}
