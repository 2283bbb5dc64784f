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

// Package load is what Berth's load-aware plugins share: where usage is
// read (the metricProvider args of scheduler-plugins' Trimaran plugins,
// with Secrets instead of inline tokens), and how pods bound since a
// node's last sample are counted before the sample shows them.
package load

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/usage"
)

// Default Prometheus queries for the Trimaran plugins: load-watcher's
// recording rules from the node-exporter mixin, averaged and spread over
// load-watcher's 15-minute window, one sample per node labelled instance.
const (
	DefaultCPUQuery          = "avg_over_time(instance:node_cpu:ratio[15m])"
	DefaultMemoryQuery       = "avg_over_time(instance:node_memory_utilisation:ratio[15m])"
	DefaultCPUStdDevQuery    = "stddev_over_time(instance:node_cpu:ratio[15m])"
	DefaultMemoryStdDevQuery = "stddev_over_time(instance:node_memory_utilisation:ratio[15m])"
)

// Default keys of the Secrets a MetricProvider names.
const (
	DefaultTokenKey = "token"
	DefaultCAKey    = "ca.crt"
)

// SecretKeyReference names a key of a Secret in Berth's namespace.
type SecretKeyReference struct {
	// Namespace is the Secret's namespace, Berth's own.
	Namespace string `json:"namespace"`
	// Name is the Secret's name.
	Name string `json:"name"`
	// Key is the key in the Secret's data; defaulted per field.
	Key string `json:"key,omitempty"`
}

// Queries are the Prometheus queries of a MetricProvider, each an instant
// vector of one sample per node labelled instance=<node name>, in [0, 1].
type Queries struct {
	// CPU is the CPU in use as a fraction of the node's CPU.
	CPU string `json:"cpu,omitempty"`
	// Memory is the memory in use as a fraction of the node's memory.
	Memory string `json:"memory,omitempty"`
	// CPUStdDev is the spread of CPU use over the same window (LoadVariationRiskBalancing).
	CPUStdDev string `json:"cpuStdDev,omitempty"`
	// MemoryStdDev is the spread of memory use over the same window.
	MemoryStdDev string `json:"memoryStdDev,omitempty"`
}

// MetricProvider says where a plugin reads usage: scheduler-plugins'
// MetricProviderSpec, with the token and CA in Secrets.
type MetricProvider struct {
	// Type is KubernetesMetricsServer (the default) or Prometheus.
	Type usage.SourceType `json:"type,omitempty"`
	// Address is Prometheus's URL.
	Address *string `json:"address,omitempty"`
	// Token is refused: name a Secret in TokenSecretRef instead.
	Token *string `json:"token,omitempty"`
	// TokenSecretRef is the Secret key holding Prometheus's bearer token.
	TokenSecretRef *SecretKeyReference `json:"tokenSecretRef,omitempty"`
	// CASecretRef is the Secret key holding the PEM bundle Prometheus's
	// certificate must chain to.
	CASecretRef *SecretKeyReference `json:"caSecretRef,omitempty"`
	// InsecureSkipVerify skips verifying Prometheus's certificate; false by
	// default (scheduler-plugins defaults it to true).
	InsecureSkipVerify *bool `json:"insecureSkipVerify,omitempty"`
	// Queries override the default Prometheus queries.
	Queries *Queries `json:"queries,omitempty"`
}

// TrimaranSpec is the part of args every Trimaran plugin takes.
type TrimaranSpec struct {
	// MetricProvider is where usage is read.
	MetricProvider MetricProvider `json:"metricProvider,omitempty"`
	// WatcherAddress is refused: Berth reads the metric provider itself and
	// runs no load-watcher.
	WatcherAddress *string `json:"watcherAddress,omitempty"`
}

// Default fills the provider's type, the Secrets' keys and the queries.
func (p *MetricProvider) Default() {
	if p.Type == "" {
		p.Type = usage.MetricsServer
	}
	if p.TokenSecretRef != nil && p.TokenSecretRef.Key == "" {
		p.TokenSecretRef.Key = DefaultTokenKey
	}
	if p.CASecretRef != nil && p.CASecretRef.Key == "" {
		p.CASecretRef.Key = DefaultCAKey
	}
	if p.Type != usage.Prometheus {
		return
	}
	if p.InsecureSkipVerify == nil {
		p.InsecureSkipVerify = ptr.To(false)
	}
	if p.Queries == nil {
		p.Queries = &Queries{}
	}
	q := p.Queries
	for _, d := range []struct {
		field *string
		def   string
	}{{&q.CPU, DefaultCPUQuery}, {&q.Memory, DefaultMemoryQuery}, {&q.CPUStdDev, DefaultCPUStdDevQuery}, {&q.MemoryStdDev, DefaultMemoryStdDevQuery}} {
		if *d.field == "" {
			*d.field = d.def
		}
	}
}

// Validate reports every problem of a defaulted provider under path.
func (p *MetricProvider) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch p.Type {
	case usage.MetricsServer:
		if p.Address != nil && *p.Address != "" {
			errs = append(errs, field.Invalid(path.Child("address"), *p.Address, "KubernetesMetricsServer is read through the apiserver: leave address unset"))
		}
		for name, set := range map[string]bool{"tokenSecretRef": p.TokenSecretRef != nil, "caSecretRef": p.CASecretRef != nil, "queries": p.Queries != nil} {
			if set {
				errs = append(errs, field.Forbidden(path.Child(name), "only for type Prometheus"))
			}
		}
	case usage.Prometheus:
		if p.Address == nil || *p.Address == "" {
			errs = append(errs, field.Required(path.Child("address"), "Prometheus's URL, e.g. http://prometheus-k8s.monitoring.svc:9090"))
		} else if !strings.HasPrefix(*p.Address, "http://") && !strings.HasPrefix(*p.Address, "https://") {
			errs = append(errs, field.Invalid(path.Child("address"), *p.Address, "must be an http:// or https:// URL"))
		}
	case "SignalFx":
		errs = append(errs, field.NotSupported(path.Child("type"), p.Type, []string{string(usage.MetricsServer), string(usage.Prometheus)}))
	default:
		errs = append(errs, field.NotSupported(path.Child("type"), p.Type, []string{string(usage.MetricsServer), string(usage.Prometheus)}))
	}
	if p.Token != nil {
		errs = append(errs, field.Forbidden(path.Child("token"),
			"a bearer token does not belong in a profile: put it in a Secret in Berth's namespace and name it in tokenSecretRef"))
	}
	errs = append(errs, p.TokenSecretRef.validate(path.Child("tokenSecretRef"))...)
	return append(errs, p.CASecretRef.validate(path.Child("caSecretRef"))...)
}

func (r *SecretKeyReference) validate(path *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if r.Namespace == "" {
		errs = append(errs, field.Required(path.Child("namespace"), "Berth's namespace: Berth reads Secrets only in its own"))
	}
	if r.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	}
	return errs
}

// Default fills the provider.
func (s *TrimaranSpec) Default() { s.MetricProvider.Default() }

// Validate reports every problem of a defaulted spec under path.
func (s *TrimaranSpec) Validate(path *field.Path) field.ErrorList {
	errs := s.MetricProvider.Validate(path.Child("metricProvider"))
	if s.WatcherAddress != nil {
		errs = append(errs, field.Forbidden(path.Child("watcherAddress"),
			"Berth reads usage itself and runs no load-watcher: set metricProvider to the source load-watcher read"))
	}
	return errs
}

// Source is the usage source the provider names; plugins and policies
// naming equal sources share one store.
func (p *MetricProvider) Source() usage.Source {
	src := usage.Source{Type: p.Type}
	if p.Type != usage.Prometheus {
		return src
	}
	src.Address = ptr.Deref(p.Address, "")
	src.InsecureSkipVerify = ptr.Deref(p.InsecureSkipVerify, false)
	src.Token = p.TokenSecretRef.usage()
	src.CA = p.CASecretRef.usage()
	if q := p.Queries; q != nil {
		src.Queries = map[usage.Resource]string{usage.CPU: q.CPU, usage.Memory: q.Memory}
		if q.CPUStdDev != "" {
			src.Queries[usage.CPUStdDev] = q.CPUStdDev
		}
		if q.MemoryStdDev != "" {
			src.Queries[usage.MemoryStdDev] = q.MemoryStdDev
		}
	}
	return src
}

func (r *SecretKeyReference) usage() *usage.SecretKeyRef {
	if r == nil {
		return nil
	}
	return &usage.SecretKeyRef{Namespace: r.Namespace, Name: r.Name, Key: r.Key}
}

// Describe names a source for messages: its type, and Prometheus's address.
func Describe(src usage.Source) string {
	if src.Type == usage.Prometheus {
		return fmt.Sprintf("Prometheus at %s", src.Address)
	}
	return "metrics.k8s.io (metrics-server)"
}

// StoreFor returns the Handle's store for src, nil without a Handle or
// without usage stores (validation, tests).
func StoreFor(h framework.Handle, src usage.Source) usage.Store {
	if h == nil {
		return nil
	}
	if p := h.NodeUsage(); p != nil {
		return p.Store(src)
	}
	return nil
}
