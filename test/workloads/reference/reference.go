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

// Package reference runs the workloads scenarios against upstream: etcd and
// kube-apiserver (envtest) and kube-scheduler, all v1.37.1, with the
// GenericWorkload and TopologyAwareWorkloadScheduling feature gates and the
// scheduling.k8s.io/v1beta1 API on; composite scenarios also with the
// CompositePodGroup gate and the scheduling.k8s.io/v1alpha3 API. Each
// scenario gets a fresh control plane and scheduler, so nothing leaks
// between scenarios.
package reference

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/workloads"
)

// FeatureGates are the feature gates of kube-apiserver and kube-scheduler.
const FeatureGates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"

// RuntimeConfig turns on the API group version PodGroups are served in.
const RuntimeConfig = "scheduling.k8s.io/v1beta1=true"

// CompositeFeatureGates are the feature gates of kube-apiserver and
// kube-scheduler for composite scenarios (workloads.Scenario.Composite).
// In v1.37.1 CompositePodGroup depends on GenericWorkload and
// TopologyAwareWorkloadScheduling only; PodGroupPreemptionPolicy is a gate
// of its own, off here as in the other scenarios.
const CompositeFeatureGates = FeatureGates + ",CompositePodGroup=true"

// CompositeRuntimeConfig also turns on the API group version
// CompositePodGroups are served in.
const CompositeRuntimeConfig = RuntimeConfig + ",scheduling.k8s.io/v1alpha3=true"

// Gates returns the feature gates of kube-apiserver and kube-scheduler and
// the apiserver's runtime config for s: CompositeFeatureGates and
// CompositeRuntimeConfig for a composite scenario, else FeatureGates and
// RuntimeConfig.
func Gates(s workloads.Scenario) (featureGates, runtimeConfig string) {
	if s.Composite() {
		return CompositeFeatureGates, CompositeRuntimeConfig
	}
	return FeatureGates, RuntimeConfig
}

// schedulerConfig returns kube-scheduler's configuration: no leader
// election, and the default profile changed by p's plugin arguments.
func schedulerConfig(kubeconfig string, p workloads.Profile) ([]byte, error) {
	config := map[string]any{
		"apiVersion":       "kubescheduler.config.k8s.io/v1",
		"kind":             "KubeSchedulerConfiguration",
		"clientConnection": map[string]any{"kubeconfig": kubeconfig},
		"leaderElection":   map[string]any{"leaderElect": false},
	}
	if len(p.PluginConfig) > 0 {
		config["profiles"] = []any{map[string]any{
			"schedulerName": corev1.DefaultSchedulerName,
			"pluginConfig":  p.PluginConfig,
		}}
	}
	out, err := yaml.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("encoding kube-scheduler's configuration: %w", err)
	}
	return out, nil
}

// stopGrace is how long kube-scheduler may take to exit after SIGTERM.
const stopGrace = 10 * time.Second

type options struct {
	binDir  string
	dir     string
	output  io.Writer
	logger  logr.Logger
	profile workloads.Profile
	metrics func(map[string]*dto.MetricFamily)
}

// Option configures Run.
type Option func(*options)

// WithBinDir names the directory of etcd, kube-apiserver and kube-scheduler.
func WithBinDir(dir string) Option { return func(o *options) { o.binDir = dir } }

// WithDir keeps kube-scheduler's configuration and log in dir (else a
// temporary directory, removed afterwards).
func WithDir(dir string) Option { return func(o *options) { o.dir = dir } }

// WithOutput copies kube-scheduler's log to w.
func WithOutput(w io.Writer) Option { return func(o *options) { o.output = w } }

// WithProfile plays the scenario under the default profile changed by p.
func WithProfile(p workloads.Profile) Option { return func(o *options) { o.profile = p } }

// WithMetrics calls read with kube-scheduler's metrics, by name, read once
// the scenario has played.
func WithMetrics(read func(map[string]*dto.MetricFamily)) Option {
	return func(o *options) { o.metrics = read }
}

// WithLogger makes Run and Play report their progress to logger.
func WithLogger(logger logr.Logger) Option { return func(o *options) { o.logger = logger } }

// Run starts a control plane and kube-scheduler, plays s against them and
// stops them.
func Run(ctx context.Context, s workloads.Scenario, opts ...Option) (_ workloads.Observation, err error) {
	o := options{logger: logr.Discard()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.binDir == "" {
		return workloads.Observation{}, errors.New("reference: WithBinDir is required")
	}
	if o.dir == "" {
		if o.dir, err = os.MkdirTemp("", "berth-workloads-"); err != nil {
			return workloads.Observation{}, fmt.Errorf("creating a directory: %w", err)
		}
		defer func() { _ = os.RemoveAll(o.dir) }()
	} else if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return workloads.Observation{}, fmt.Errorf("creating %s: %w", o.dir, err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    o.binDir,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	gates, runtimeConfig := Gates(s)
	env.ControlPlane.GetAPIServer().Configure().
		Append("feature-gates", gates).
		Append("runtime-config", runtimeConfig)
	cfg, err := env.Start()
	if err != nil {
		return workloads.Observation{}, errors.Join(fmt.Errorf("starting the control plane: %w", err), env.Stop())
	}
	defer func() {
		if stopErr := env.Stop(); stopErr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the control plane: %w", stopErr))
		}
	}()
	proc, scrape, err := startScheduler(ctx, env, gates, &o)
	if err != nil {
		return workloads.Observation{}, err
	}
	defer proc.Stop(stopGrace)

	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, -1
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return workloads.Observation{}, fmt.Errorf("building a clientset: %w", err)
	}
	obs, err := workloads.Play(ctx, client, s, workloads.WithLogger(o.logger))
	if err == nil && o.metrics != nil {
		var families map[string]*dto.MetricFamily
		if families, err = scrape(ctx); err == nil {
			o.metrics(families)
		}
	}
	if proc.Exited() {
		err = errors.Join(err, fmt.Errorf("kube-scheduler exited during the scenario: %w (log: %s)", proc.Err(), proc.LogFile))
	}
	return obs, err
}

// startScheduler starts kube-scheduler with the feature gates given against
// env, waits until it is ready, and returns it with a function that reads
// its metrics.
func startScheduler(ctx context.Context, env *envtest.Environment, gates string, o *options) (_ *localcluster.Process, scrape func(context.Context) (map[string]*dto.MetricFamily, error), err error) {
	user, err := env.AddUser(envtest.User{Name: "kube-scheduler-reference", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("adding a user for kube-scheduler: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("building kube-scheduler's kubeconfig: %w", err)
	}
	kubeconfigPath := filepath.Join(o.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, nil, fmt.Errorf("writing kube-scheduler's kubeconfig: %w", err)
	}
	configPath := filepath.Join(o.dir, "kube-scheduler.yaml")
	config, err := schedulerConfig(kubeconfigPath, o.profile)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(configPath, config, 0o600); err != nil {
		return nil, nil, fmt.Errorf("writing kube-scheduler's configuration: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	proc, err := localcluster.StartProcess("kube-scheduler", filepath.Join(o.dir, "logs"), o.output,
		filepath.Join(o.binDir, "kube-scheduler"),
		"--config="+configPath,
		"--feature-gates="+gates,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--authentication-kubeconfig="+kubeconfigPath, "--authorization-kubeconfig="+kubeconfigPath,
		"--v=2")
	if err != nil {
		return nil, nil, fmt.Errorf("starting kube-scheduler: %w", err)
	}
	if err := waitReady(ctx, proc, port); err != nil {
		proc.Stop(stopGrace)
		return nil, nil, err
	}
	scrape = func(ctx context.Context) (map[string]*dto.MetricFamily, error) {
		return scrapeMetrics(ctx, user.Config(), port)
	}
	return proc, scrape, nil
}

// waitReady polls kube-scheduler's /readyz, which passes once its informers
// synced, for up to a minute.
func waitReady(ctx context.Context, proc *localcluster.Process, port int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// kube-scheduler serves a self-signed certificate.
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a local test process
	url := fmt.Sprintf("https://127.0.0.1:%d/readyz", port)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("building the readiness request: %w", err)
		}
		if resp, err := hc.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for kube-scheduler to be ready (log: %s): %w", proc.LogFile, context.Cause(ctx))
		case <-proc.Done():
			return fmt.Errorf("kube-scheduler exited before it was ready: %w (log: %s)", proc.Err(), proc.LogFile)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// scrapeMetrics reads kube-scheduler's /metrics, authenticating with the
// client certificate of cfg, whose user may read them.
func scrapeMetrics(ctx context.Context, cfg *rest.Config, port int) (map[string]*dto.MetricFamily, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the metrics client's TLS configuration: %w", err)
	}
	// kube-scheduler serves a self-signed certificate.
	tlsConfig.InsecureSkipVerify = true //nolint:gosec // a local test process
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
	if err != nil {
		return nil, fmt.Errorf("building the metrics request: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading kube-scheduler's metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, fmt.Errorf("reading kube-scheduler's metrics: %s: %s", resp.Status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing kube-scheduler's metrics: %w", err)
	}
	return families, nil
}

// freePort returns a TCP port free on the loopback interface.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
