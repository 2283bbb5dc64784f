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

// Package berthtest starts Berth in-process against an envtest control plane
// (kube-apiserver and etcd, no kubelets) so that a Go test can create nodes,
// pods and SchedulingProfiles and assert where the pods land.
//
// The control-plane binaries come from $KUBEBUILDER_ASSETS (install them with
// setup-envtest) or WithBinaryAssetsDirectory. Berth's CRDs are embedded and
// installed for you.
package berthtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrlmanager "sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/config/crd"
	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/internal/manager"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler"
)

// Env is a running control plane with Berth's scheduler and controllers.
type Env struct {
	// Config reaches the apiserver as an administrator, without a client-side rate limit.
	Config *rest.Config
	// Client is an uncached controller-runtime client that knows Berth's types.
	Client client.Client
	// Clientset is a client-go clientset.
	Clientset kubernetes.Interface
	// Scheduler is the running scheduler.
	Scheduler *scheduler.Scheduler
	// Manager runs the scheduler and the controllers.
	Manager ctrl.Manager

	control     *envtest.Environment
	waitTimeout time.Duration
	cancel      context.CancelFunc
	done        chan error
}

// Start starts the apiserver and etcd, installs Berth's CRDs, and runs Berth
// in a manager until Stop, wired as `berth manager` wires it: the scheduler,
// the SchedulingProfile, PluginWeight, PodGroup and RebalancePolicy
// controllers, the rebalancer and, with WithWebhook, the webhook. ctx bounds the start only. When Start fails it stops
// whatever it had started; when it succeeds the caller must call Stop.
func Start(ctx context.Context, opts ...Option) (*Env, error) {
	o := options{logger: logr.Discard(), waitTimeout: DefaultWaitTimeout, startTimeout: time.Minute}
	for _, opt := range opts {
		opt(&o)
	}
	assets, err := binaryAssets(o.assetsDir)
	if err != nil {
		return nil, err
	}
	crds, err := crd.CRDs()
	if err != nil {
		return nil, fmt.Errorf("loading Berth's CRDs: %w", err)
	}
	if o.scheme == nil {
		if o.scheme, err = manager.NewScheme(); err != nil {
			return nil, err
		}
	}
	reg := registries.InTree()
	if o.registry != nil {
		reg.Plugins = maps.Clone(o.registry)
	}
	if err := reg.Add(o.plugins, o.strategies); err != nil {
		return nil, fmt.Errorf("berthtest: %w", err)
	}

	control := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDs:                     crds,
		CRDDirectoryPaths:        o.crdDirs,
		ErrorIfCRDPathMissing:    true,
		Scheme:                   o.scheme,
		ControlPlaneStartTimeout: o.startTimeout,
		ControlPlaneStopTimeout:  o.startTimeout,
	}
	if o.webhook {
		control.WebhookInstallOptions.ValidatingWebhooks = validatingWebhooks()
		control.WebhookInstallOptions.MutatingWebhooks = mutatingWebhooks()
	}
	cfg, err := control.Start()
	if err != nil {
		// envtest leaves the processes running when a late step fails.
		return nil, errors.Join(fmt.Errorf("starting the control plane from %s: %w", assets, err), control.Stop())
	}
	env := &Env{control: control, waitTimeout: o.waitTimeout}
	if err := env.start(ctx, cfg, &o, reg); err != nil {
		return nil, errors.Join(err, env.Stop())
	}
	return env, nil
}

// start builds the clients, the scheduler and the manager, and runs the manager.
func (e *Env) start(ctx context.Context, cfg *rest.Config, o *options, reg registries.Set) error {
	// The scheduler binds as fast as the apiserver lets it.
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, -1
	e.Config = cfg
	var err error
	if e.Clientset, err = kubernetes.NewForConfig(cfg); err != nil {
		return fmt.Errorf("building the clientset: %w", err)
	}
	if e.Client, err = client.New(cfg, client.Options{Scheme: o.scheme}); err != nil {
		return fmt.Errorf("building the client: %w", err)
	}

	mgrOpts := ctrlmanager.Options{
		Scheme:                 o.scheme,
		Logger:                 o.logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Runnables get their context from BaseContext, not from Start's.
		BaseContext: func() context.Context { return klog.NewContext(context.Background(), o.logger) },
		// Tests may start several environments in one process.
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	}
	if o.webhook {
		wo := &e.control.WebhookInstallOptions
		mgrOpts.WebhookServer = webhook.NewServer(webhook.Options{Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir})
	}
	if e.Manager, err = ctrl.NewManager(cfg, mgrOpts); err != nil {
		return fmt.Errorf("building the manager: %w", err)
	}

	// The scheduler and the manager live until Stop, not until ctx ends.
	runCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), o.logger))
	e.cancel = cancel
	// The same wiring as `berth manager`: scheduler, controllers, rebalancer,
	// readiness and, with WithWebhook, the webhook. Metrics are left out, as
	// tests may start several environments in one process.
	berth, err := manager.Setup(runCtx, e.Manager, cfg, manager.SetupOptions{
		Registries:        reg,
		Webhook:           o.webhook,
		SchedulerOptions:  o.schedulerOptions,
		ControllerOptions: append([]controllers.Option{controllers.WithSkipNameValidation()}, o.controllerOptions...),
	})
	if err != nil {
		return err
	}
	e.Scheduler = berth.Scheduler

	e.done = make(chan error, 1)
	go func() { e.done <- e.Manager.Start(runCtx) }()
	return e.waitStarted(ctx, o.webhook)
}

// waitStarted waits until the manager's caches have synced and, with the
// webhook, until its server answers.
func (e *Env) waitStarted(ctx context.Context, withWebhook bool) error {
	ctx, cancel := context.WithTimeout(ctx, e.waitTimeout)
	defer cancel()
	if !e.Manager.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("the manager's caches did not sync: %w", context.Cause(ctx))
	}
	if !withWebhook {
		return nil
	}
	check := e.Manager.GetWebhookServer().StartedChecker()
	for {
		err := check(nil)
		if err == nil {
			err = e.probeWebhook(ctx)
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the webhook is not serving: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// probeWebhook succeeds once the apiserver sends SchedulingProfiles to the
// webhook: a dry-run create of an invalid profile must come back rejected.
func (e *Env) probeWebhook(ctx context.Context) error {
	const probe = "BerthtestWebhookProbe"
	invalid := &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "berthtest-webhook-probe"},
		Spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: probe}}},
		}},
	}
	err := e.Client.Create(ctx, invalid, client.DryRunAll)
	if err == nil {
		return errors.New("the apiserver admitted an invalid SchedulingProfile")
	}
	if !strings.Contains(err.Error(), probe) {
		return err
	}
	return nil
}

// Stop stops the manager (scheduler and controllers) and then the control
// plane. It is safe to call more than once.
func (e *Env) Stop() error {
	var errs []error
	if e.cancel != nil {
		e.cancel()
		e.cancel = nil
		if e.done != nil {
			select {
			case err := <-e.done:
				if err != nil {
					errs = append(errs, fmt.Errorf("the manager failed: %w", err))
				}
			case <-time.After(time.Minute):
				errs = append(errs, errors.New("the manager did not stop within a minute"))
			}
		}
	}
	if e.control != nil {
		if err := e.control.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stopping the control plane: %w", err))
		}
		e.control = nil
	}
	return errors.Join(errs...)
}

// binaryAssets returns the directory holding kube-apiserver and etcd.
func binaryAssets(dir string) (string, error) {
	source := "WithBinaryAssetsDirectory"
	if dir == "" {
		dir, source = os.Getenv(AssetsEnv), "$"+AssetsEnv
	}
	if dir == "" {
		return "", fmt.Errorf("%s is not set: point it at a directory with kube-apiserver and etcd "+
			"(for example `export %s=$(setup-envtest use -p path)`) or use berthtest.WithBinaryAssetsDirectory", AssetsEnv, AssetsEnv)
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return "", fmt.Errorf("no %s in %s=%s: %w", bin, source, dir, err)
		}
	}
	return dir, nil
}
