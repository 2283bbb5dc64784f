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

// Package usage reads what nodes really use, from metrics-server
// (metrics.k8s.io) or Prometheus, and keeps one store per distinct source
// so that a profile's load-aware plugins and a RebalancePolicy reading the
// same source see the same numbers at the same moment.
package usage

import (
	"time"
)

// Resource is what a node's usage is measured in.
type Resource string

const (
	// CPU is the node's CPU in use, as a fraction of its allocatable CPU.
	CPU Resource = "cpu"
	// Memory is the node's memory in use, as a fraction of its allocatable memory.
	Memory Resource = "memory"
	// Metric is the value, in [0, 1], of a Prometheus query that RebalancePolicies
	// name (the descheduler's MetricResource).
	Metric Resource = "MetricResource"
)

// SourceType names where usage comes from.
type SourceType string

const (
	// MetricsServer reads NodeMetrics from metrics.k8s.io (metrics-server).
	MetricsServer SourceType = "KubernetesMetricsServer"
	// Prometheus runs instant queries against Prometheus's HTTP API.
	Prometheus SourceType = "Prometheus"
)

// SecretKeyRef names one key of a Secret.
type SecretKeyRef struct {
	// Namespace of the Secret.
	Namespace string
	// Name of the Secret.
	Name string
	// Key in the Secret's data.
	Key string
}

// Source says where to read usage and how. Two Sources that are equal share
// one Store.
type Source struct {
	// Type is MetricsServer or Prometheus.
	Type SourceType
	// Address is Prometheus's URL; empty for MetricsServer.
	Address string
	// Queries maps each resource to the Prometheus query that gives it: an
	// instant vector with one sample per node, labelled instance=<node
	// name>, valued in [0, 1]. Empty for MetricsServer, which gives CPU and
	// Memory.
	Queries map[Resource]string
	// Token is the Secret key holding Prometheus's bearer token; nil sends none.
	Token *SecretKeyRef
	// CA is the Secret key holding the PEM bundle that verifies Prometheus's
	// certificate; nil uses the system's roots.
	CA *SecretKeyRef
	// InsecureSkipVerify skips verifying Prometheus's certificate.
	InsecureSkipVerify bool
}

// Stat is a node's usage of one resource.
type Stat struct {
	// Average is the smoothed usage. From metrics-server: an exponentially
	// weighted average of the samples read so far (weight 0.1 for each new
	// sample, as the descheduler's metrics collector), the first sample
	// taken as it is. From Prometheus: the newest sample, since the query
	// aggregates over its own window.
	Average float64
	// StdDev is the standard deviation of the samples in the store's window
	// (the last Window of samples); 0 with a single sample.
	StdDev float64
	// Latest is the newest sample as read.
	Latest float64
}

// NodeUsage is one node's usage as a Store holds it.
type NodeUsage struct {
	// Usage holds a Stat for each resource the source gives.
	Usage map[Resource]Stat
	// SampledAt is when the newest sample was taken: the end of
	// metrics-server's window (NodeMetrics' timestamp), or the time of the
	// Prometheus query.
	SampledAt time.Time
}

// Freshness says whether a Store's data for a node may be used.
type Freshness int

const (
	// Missing: the source has never given a sample for the node.
	Missing Freshness = iota
	// Stale: the newest sample is older than the store's StaleAfter.
	Stale
	// Fresh: the newest sample is recent enough to act on.
	Fresh
)

// String returns the freshness as a word for messages.
func (f Freshness) String() string {
	switch f {
	case Fresh:
		return "fresh"
	case Stale:
		return "stale"
	default:
		return "missing"
	}
}

// Store holds the latest usage of every node read from one Source.
type Store interface {
	// Source is what the store reads.
	Source() Source
	// Node returns the node's usage and whether it may be used; the usage is
	// returned for Stale too, for messages. It is read in every cycle for
	// every node visited, so it neither locks nor copies: the Usage map is
	// shared and must not be changed, and a later read does not change it.
	Node(name string) (NodeUsage, Freshness)
	// View returns the store's usage as it is now, for a scheduling cycle
	// to read every node it visits without reading the clock each time.
	View() View
	// Err returns why the last read of the source failed, or nil once a
	// read succeeded after it.
	Err() error
	// LastRead is when the source was last read successfully; zero before.
	LastRead() time.Time
}

// View is a store's usage at one moment: a node's freshness is judged
// against the time View was taken.
type View interface {
	// Node returns the node's usage and whether it may be used, as Store's.
	Node(name string) (NodeUsage, Freshness)
}

// ReadView is a View that says which of its store's reads it shows, so that
// what was derived from one view may be kept for the next view of the same
// read; the store's own views are ReadViews.
type ReadView interface {
	View
	// Read numbers the read the view shows, from 1; two views of one store
	// with the same Read hold the same samples.
	Read() uint64
	// StaleAt reports whether a sample taken at t is Stale in the view.
	StaleAt(t time.Time) bool
}
