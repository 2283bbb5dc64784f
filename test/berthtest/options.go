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

package berthtest

import (
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework"
	schedruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// AssetsEnv is the environment variable that names the directory holding the
// kube-apiserver and etcd binaries, as for controller-runtime's envtest.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// DefaultWaitTimeout bounds the Wait helpers when their context has no deadline.
const DefaultWaitTimeout = 30 * time.Second

// Option configures Start.
type Option func(*options)

type options struct {
	assetsDir         string
	crdDirs           []string
	logger            logr.Logger
	scheme            *runtime.Scheme
	registry          schedruntime.Registry
	plugins           []registries.Plugin
	strategies        []registries.Strategy
	schedulerOptions  []scheduler.Option
	controllerOptions []controllers.Option
	webhook           bool
	waitTimeout       time.Duration
	startTimeout      time.Duration
}

// WithBinaryAssetsDirectory names the directory holding kube-apiserver and
// etcd; it takes precedence over $KUBEBUILDER_ASSETS.
func WithBinaryAssetsDirectory(dir string) Option { return func(o *options) { o.assetsDir = dir } }

// WithCRDDirectory installs the CRDs found in dir (for example your own
// operator's) next to Berth's, which are always installed.
func WithCRDDirectory(dir string) Option {
	return func(o *options) { o.crdDirs = append(o.crdDirs, dir) }
}

// WithLogger sends the scheduler's, the controllers' and the manager's logs
// to logger; by default they are discarded.
func WithLogger(logger logr.Logger) Option { return func(o *options) { o.logger = logger } }

// WithScheme replaces the scheme of Env.Client and the manager; it must
// include client-go's types and Berth's v1alpha1 types.
func WithScheme(s *runtime.Scheme) Option { return func(o *options) { o.scheme = s } }

// WithRegistry replaces the in-tree plugin registry with r; the
// scheduler, its shadow profiles, the webhook and the rebalancer's nodeFit
// all use it. To add plugins to the in-tree ones, use WithPlugin.
func WithRegistry(r schedruntime.Registry) Option { return func(o *options) { o.registry = r } }

// WithPlugin adds an out-of-tree scheduling plugin to the in-tree ones (or
// to WithRegistry's), as your binary's app.WithPlugin does: profiles may
// enable it, and the webhook builds it to check its args. A name already
// registered fails Start.
func WithPlugin(name string, factory framework.PluginFactory) Option {
	return func(o *options) { o.plugins = append(o.plugins, registries.Plugin{Name: name, Factory: factory}) }
}

// WithStrategy adds an out-of-tree rebalance strategy to the in-tree ones,
// as your binary's app.WithStrategy does. A name already registered fails Start.
func WithStrategy(name v1alpha1.StrategyName, factory strategies.Factory) Option {
	return func(o *options) {
		o.strategies = append(o.strategies, registries.Strategy{Name: name, Factory: factory})
	}
}

// WithSchedulerOptions passes options to scheduler.New.
func WithSchedulerOptions(opts ...scheduler.Option) Option {
	return func(o *options) { o.schedulerOptions = append(o.schedulerOptions, opts...) }
}

// WithControllerOptions passes options to controllers.SetupWithManager.
func WithControllerOptions(opts ...controllers.Option) Option {
	return func(o *options) { o.controllerOptions = append(o.controllerOptions, opts...) }
}

// WithWebhook also serves Berth's webhooks and registers them with the
// apiserver, so that invalid SchedulingProfiles and PluginWeights are rejected
// at admission, and pods of namespaces labelled
// scheduling.berth.io/scheduler-name get its schedulerName, as in a cluster.
func WithWebhook() Option { return func(o *options) { o.webhook = true } }

// WithWaitTimeout sets the timeout of the Wait helpers when their context has
// no deadline (default DefaultWaitTimeout).
func WithWaitTimeout(d time.Duration) Option { return func(o *options) { o.waitTimeout = d } }

// WithStartTimeout bounds the start, and the stop, of the apiserver and etcd
// (default 1 minute).
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }
