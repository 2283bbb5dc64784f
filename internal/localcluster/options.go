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

package localcluster

import (
	"io"
	"time"

	"github.com/go-logr/logr"
)

// DefaultNodes is how many fake nodes a cluster gets unless WithNodes says otherwise.
const DefaultNodes = 10

type options struct {
	runDir       string
	k8sBinDir    string
	kwokBin      string
	kwokStages   string
	nodes        int
	logger       logr.Logger
	output       io.Writer
	startTimeout time.Duration
	apiOnly      bool
	noCRDs       bool
	podInit      string
	audit        bool
	featureGates string
	runtimeCfg   string
	metricsBin   string
	kwokUsage    string
}

// Option configures Start.
type Option func(*options)

// WithRunDir keeps the cluster's data, certificates, kubeconfig and logs in dir
// (created when missing, emptied first); the default is a new temporary directory.
func WithRunDir(dir string) Option { return func(o *options) { o.runDir = dir } }

// WithK8sBinDir names the directory holding etcd, kube-apiserver and kube-controller-manager.
func WithK8sBinDir(dir string) Option { return func(o *options) { o.k8sBinDir = dir } }

// WithKwok names the kwok binary and the file of kwok Stages it runs with.
func WithKwok(binary, stages string) Option {
	return func(o *options) { o.kwokBin, o.kwokStages = binary, stages }
}

// WithNodes sets how many fake nodes kwok runs; zero creates none.
func WithNodes(n int) Option { return func(o *options) { o.nodes = n } }

// WithLogger makes the cluster report its progress to logger.
func WithLogger(logger logr.Logger) Option { return func(o *options) { o.logger = logger } }

// WithComponentOutput copies every component's log to w as well as to its file
// under the run directory's logs/ folder, each line prefixed by the component's name.
func WithComponentOutput(w io.Writer) Option { return func(o *options) { o.output = w } }

// WithStartTimeout bounds how long Start waits for the components to become ready.
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

// WithControlPlaneOnly starts etcd and kube-apiserver only (no controller
// manager, no kwok, no nodes), for benchmarks that create their own nodes;
// Start then creates the default ServiceAccount itself and WithKwok is not needed.
func WithControlPlaneOnly() Option { return func(o *options) { o.apiOnly = true } }

// WithoutCRDs leaves Berth's CRDs out, for tests that install them as users
// do (Helm, kustomize).
func WithoutCRDs() Option { return func(o *options) { o.noCRDs = true } }

// WithPodNetwork lets the cluster run local pods (Cluster.RunPod) and routes
// the apiserver's calls to Services (webhooks) to the ready local pods they
// select. initBinary is the localcluster binary, whose pod-init command
// becomes each pod's init process; local pods need root (namespaces, mounts).
func WithPodNetwork(initBinary string) Option { return func(o *options) { o.podInit = initBinary } }

// WithAudit has the apiserver write an audit log, AuditLogPath, of the
// writes that place and remove pods: bindings, evictions, pod deletions and
// pod status updates, at the Metadata level, one JSON event per line.
func WithAudit() Option { return func(o *options) { o.audit = true } }

// WithFeatureGates turns Kubernetes feature gates on or off in
// kube-apiserver and kube-controller-manager, in their --feature-gates form
// ("GenericWorkload=true,WorkloadWithJob=true").
func WithFeatureGates(gates string) Option { return func(o *options) { o.featureGates = gates } }

// WithRuntimeConfig serves API versions kube-apiserver does not serve by
// default, in its --runtime-config form ("scheduling.k8s.io/v1beta1=true").
func WithRuntimeConfig(cfg string) Option { return func(o *options) { o.runtimeCfg = cfg } }

// WithMetricsServer runs metrics-server, the given binary, and serves its
// metrics.k8s.io through the apiserver's aggregation layer, so that
// NodeMetrics and PodMetrics (`kubectl top`) report what the kwok nodes say
// their pods use. kwokUsage is the file of kwok's ResourceUsage and
// ClusterResourceUsage CRDs and the default usage: a pod's usage is then
// set by a ResourceUsage named after it, else by the first
// ClusterResourceUsage that selects it (kwok's usage-from-annotation reads
// the pod's UsageCPUAnnotation and UsageMemoryAnnotation). It cannot be
// combined with WithPodNetwork or WithControlPlaneOnly.
func WithMetricsServer(binary, kwokUsage string) Option {
	return func(o *options) { o.metricsBin, o.kwokUsage = binary, kwokUsage }
}
