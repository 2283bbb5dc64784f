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

package rebalance

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/usage"
)

// NodeUsage is where the rebalancer reads what nodes and pods really use;
// the scheduler's *usage.Registry is one, shared with its load-aware
// plugins so that a profile and a policy reading the same source read the
// same store.
type NodeUsage interface {
	// Acquire returns the shared store of src, polled until the last
	// release.
	Acquire(ctx context.Context, src usage.Source) (usage.Store, func())
	// ReadNow reads src once and returns its store with the read's error.
	ReadNow(ctx context.Context, src usage.Source) (usage.Store, error)
	// PodUsage returns the CPU and memory a pod uses now, from metrics.k8s.io.
	PodUsage(ctx context.Context, pod *v1.Pod) (v1.ResourceList, error)
}

var _ NodeUsage = (*usage.Registry)(nil)

// WithNodeUsage reads real usage, for the strategies that ask for it
// (the utilization strategies' metricsUtilization), from u; without it
// their runs fail.
func WithNodeUsage(u NodeUsage) Option { return func(r *Rebalancer) { r.nodeUsage = u } }

// compileProviders validates the policy's metricsProviders and returns the
// usage source of each, by source; a Prometheus source has no query yet.
func compileProviders(spec *v1alpha1.RebalancePolicySpec) (map[v1alpha1.MetricsSource]usage.Source, []error) {
	providers := map[v1alpha1.MetricsSource]usage.Source{}
	var errs []error
	for i, p := range spec.MetricsProviders {
		at := fmt.Sprintf("metricsProviders[%d]", i)
		fail := func(section string, err error, path ...any) {
			errs = append(errs, specError(at+section, err, append([]any{"metricsProviders", i}, path...)...))
		}
		if _, dup := providers[p.Source]; dup {
			fail(".source", fmt.Errorf("metrics provider %q is already configured: each source can be configured only once", p.Source), "source")
			continue
		}
		switch p.Source {
		case v1alpha1.MetricsSourceKubernetesMetrics:
			if p.Prometheus != nil {
				fail(".prometheus", errors.New("prometheus may be set only when source is Prometheus"), "prometheus")
			}
			providers[p.Source] = usage.Source{Type: usage.MetricsServer}
		case v1alpha1.MetricsSourcePrometheus:
			prom := p.Prometheus
			if prom == nil {
				fail(".prometheus", errors.New("prometheus configuration is required when source is Prometheus"), "prometheus")
				// Configured, if badly: the strategies reading it are not
				// told again.
				providers[p.Source] = usage.Source{Type: usage.Prometheus}
				continue
			}
			if err := checkPrometheusURL(prom.URL); err != nil {
				fail(".prometheus.url", err, "prometheus", "url")
			}
			src := usage.Source{Type: usage.Prometheus, Address: prom.URL}
			if t := prom.AuthToken; t != nil {
				if t.SecretReference.Namespace == "" || t.SecretReference.Name == "" {
					fail(".prometheus.authToken.secretReference", errors.New("prometheus authToken secret reference does not set both namespace and name"),
						"prometheus", "authToken", "secretReference")
				}
				src.Token = &usage.SecretKeyRef{Namespace: t.SecretReference.Namespace, Name: t.SecretReference.Name, Key: v1alpha1.PrometheusAuthTokenKey}
			}
			if ca := prom.CA; ca != nil {
				if ca.SecretReference.Namespace == "" || ca.SecretReference.Name == "" {
					fail(".prometheus.ca.secretReference", errors.New("prometheus CA secret reference does not set both namespace and name"),
						"prometheus", "ca", "secretReference")
				}
				src.CA = &usage.SecretKeyRef{Namespace: ca.SecretReference.Namespace, Name: ca.SecretReference.Name, Key: v1alpha1.PrometheusCAKey}
			}
			providers[p.Source] = src
		default:
			fail(".source", fmt.Errorf("unknown metrics source %q (want %s or %s)", p.Source,
				v1alpha1.MetricsSourceKubernetesMetrics, v1alpha1.MetricsSourcePrometheus), "source")
		}
	}
	return providers, errs
}

// checkPrometheusURL says why u is not Prometheus's address, or nil.
func checkPrometheusURL(u string) error {
	if u == "" {
		return errors.New("prometheus URL is required when source is Prometheus")
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("error parsing prometheus URL: %w", err)
	}
	if (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return fmt.Errorf("prometheus URL %q is not an http:// or https:// URL with a host", u)
	}
	return nil
}

// checkProviderOf says why the policy cannot run strategy i, s: it reads a
// metrics source the policy's providers do not configure. Nil otherwise.
func checkProviderOf(i int, s strategies.Strategy, providers map[v1alpha1.MetricsSource]usage.Source) error {
	reader, ok := s.(strategies.MetricsReader)
	if !ok {
		return nil
	}
	src, at := reader.MetricsSource()
	if _, ok := providers[src]; src == "" || ok {
		return nil
	}
	invalid := &args.InvalidError{Owner: "strategy " + string(s.Name()), Errs: field.ErrorList{
		field.Invalid(at, src, fmt.Sprintf("the policy's metricsProviders configure no %s source", src)),
	}}
	return strategyError(args.SpecInvalidArgs, i, invalid, "args")
}

// polled returns the sources the policy's strategies read continuously:
// metrics-server, whose samples are smoothed over time and so must be read
// between runs too. A Prometheus query is run once per run.
func (c *compiledPolicy) polled() []usage.Source {
	var out []usage.Source
	for _, s := range c.strategies {
		if reader, ok := s.(strategies.MetricsReader); ok {
			if src, _ := reader.MetricsSource(); src == v1alpha1.MetricsSourceKubernetesMetrics {
				return append(out, c.providers[src])
			}
		}
	}
	return out
}

// holdUsage acquires the sources the policy polls, so that they are read
// between its runs, and returns the func that releases them.
func (r *Rebalancer) holdUsage(ctx context.Context, c *compiledPolicy) func() {
	if r.nodeUsage == nil {
		return func() {}
	}
	var releases []func()
	for _, src := range c.polled() {
		_, release := r.nodeUsage.Acquire(ctx, src)
		releases = append(releases, release)
	}
	return func() {
		for _, release := range releases {
			release()
		}
	}
}

// readMetrics is Handle.Metrics: the shared metrics-server store, read now
// if it never was, or the store of one run of a Prometheus query.
func (ru *run) readMetrics(ctx context.Context, q strategies.MetricsQuery) (*strategies.Metrics, error) {
	r := ru.r
	if r.nodeUsage == nil {
		return nil, errors.New("this Berth reads no real usage: the rebalancer was started without usage stores")
	}
	base, ok := ru.policy.providers[q.Source]
	if !ok {
		return nil, fmt.Errorf("the policy's metricsProviders configure no %s source", q.Source)
	}
	limited := ru.policy.spec.Limits != nil && ru.policy.spec.Limits.MaxPodsToEvictPerNode != nil
	if base.Type == usage.MetricsServer {
		st, release := r.nodeUsage.Acquire(ctx, base)
		ru.releases = append(ru.releases, release)
		if st.LastRead().IsZero() {
			if _, err := r.nodeUsage.ReadNow(ctx, base); err != nil {
				return nil, fmt.Errorf("reading metrics-server's node metrics: %w", err)
			}
		}
		return &strategies.Metrics{Nodes: st, PodUsage: r.nodeUsage.PodUsage, NodeLimited: limited}, nil
	}
	if strings.TrimSpace(q.Query) == "" {
		return nil, errors.New("no Prometheus query given")
	}
	src := base
	src.Queries = map[usage.Resource]string{usage.Metric: q.Query}
	st, err := r.nodeUsage.ReadNow(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("running Prometheus query %q at %s: %w", q.Query, src.Address, err)
	}
	return &strategies.Metrics{Nodes: st, NodeLimited: limited}, nil
}

// Metrics reads real usage through the policy's metrics provider of q.Source.
func (h *strategyHandle) Metrics(ctx context.Context, q strategies.MetricsQuery) (*strategies.Metrics, error) {
	return h.readMetrics(ctx, q)
}
