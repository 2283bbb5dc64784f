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

package manager

import (
	"context"
	"fmt"

	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/berth-io/berth/scheduler/usage"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/berth-io/berth/controllers"
	berthwebhook "github.com/berth-io/berth/controllers/webhook"
	"github.com/berth-io/berth/internal/defaultprofile"
	"github.com/berth-io/berth/internal/leasefence"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/rebalance"
	"github.com/berth-io/berth/scheduler/workload"
)

// SetupOptions say what Setup adds beyond the scheduler, the controllers,
// the rebalancer and the health checks, which it always adds.
type SetupOptions struct {
	// Registries are the plugins profiles may name and the strategies
	// RebalancePolicies may name (registries.InTree, plus a binary's own);
	// the scheduler, its shadows, the webhook and the rebalancer all use
	// them. Required.
	Registries registries.Set
	// Metrics registers the scheduler's metrics; nil leaves them out (a
	// process that runs several managers, as tests do, can register them once only).
	Metrics prometheus.Registerer
	// Webhook serves the validating webhook and the namespace default (the
	// mutating webhook on pods) on the manager's webhook server.
	Webhook bool
	// Namespace is the namespace Berth runs in, whose pods the namespace
	// default leaves alone as it does kube-system's, and the only one whose
	// Secrets extenders may name (tlsConfig.secretRef); empty for none (and
	// Secrets of every namespace).
	Namespace string
	// DefaultProfile names a SchedulingProfile the leader creates when missing; empty for none.
	DefaultProfile string
	// SchedulerOptions are passed to scheduler.New after Setup's own.
	SchedulerOptions []scheduler.Option
	// ControllerOptions are passed to the controllers and the rebalancer's reconciler.
	ControllerOptions []controllers.Option
	// Fence, the leader-election lock, refuses the scheduler's and the
	// rebalancer's writes (binds, evictions, victim deletions, status
	// patches) once this replica's lease may have passed to another; nil
	// without leader election.
	Fence *leasefence.Lock
}

// Berth is what Setup added to a manager.
type Berth struct {
	// Scheduler runs the scheduling loop on the leader.
	Scheduler *scheduler.Scheduler
	// Rebalancer runs the RebalancePolicies on the leader.
	Rebalancer *rebalance.Rebalancer
}

// Setup is Berth's one wiring. It builds the scheduler on cfg and adds to
// mgr the scheduling loop, the SchedulingProfile, PluginWeight, PodGroup
// and RebalancePolicy controllers, the rebalancer, the readiness and
// liveness checks and, as o asks, the webhooks and the default profile's
// creator. The scheduler's informers run until ctx ends, which must outlive
// mgr's Start. `berth manager` and test/berthtest (so users' tests and the
// berthtest suite) run Berth through it.
func Setup(ctx context.Context, mgr ctrl.Manager, cfg *rest.Config, o SetupOptions) (*Berth, error) {
	if err := o.Registries.Check(); err != nil {
		return nil, fmt.Errorf("setting up Berth: %w", err)
	}
	registry := o.Registries.Plugins
	clientCfg := protobufConfig(cfg)
	if o.Fence != nil {
		clientCfg.Wrap(o.Fence.WrapTransport)
	}
	clientset, err := kubernetes.NewForConfig(clientCfg)
	if err != nil {
		return nil, fmt.Errorf("building the clientset: %w", err)
	}
	podGroups, err := workload.NewBerthClient(clientCfg)
	if err != nil {
		return nil, fmt.Errorf("building the PodGroup client: %w", err)
	}
	taintRules, err := scheduler.DeviceTaintRulesServed(clientset.Discovery())
	if err != nil {
		return nil, err
	}
	// NodeMetrics are JSON only: metrics-server serves no protobuf.
	nodeMetrics, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the metrics.k8s.io client: %w", err)
	}
	schedOpts := []scheduler.Option{scheduler.WithRegistry(registry), scheduler.WithPodGroupClient(podGroups),
		scheduler.WithDeviceTaintRules(taintRules), scheduler.WithSecretsNamespace(o.Namespace),
		scheduler.WithNodeUsageOptions(usage.WithMetricsClient(nodeMetrics))}
	if o.Fence != nil {
		schedOpts = append(schedOpts, scheduler.WithLeaseCheck(o.Fence.Check))
	}
	var berthMetrics *metrics.Metrics
	if o.Metrics != nil {
		schedMetrics, err := metrics.New(o.Metrics)
		if err != nil {
			return nil, fmt.Errorf("registering the scheduler's metrics: %w", err)
		}
		schedOpts = append(schedOpts, scheduler.WithMetrics(schedMetrics))
		berthMetrics = schedMetrics
	}
	sched, err := scheduler.New(ctx, clientset, append(schedOpts, o.SchedulerOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}

	// A plain RunnableFunc does not implement NeedLeaderElection, so the
	// manager starts the scheduling loop only once this replica leads (at
	// once without leader election) and stops it on shutdown before the
	// Lease is released.
	if err := mgr.Add(manager.RunnableFunc(sched.Start)); err != nil {
		return nil, fmt.Errorf("adding the scheduler to the manager: %w", err)
	}
	// Every replica runs the scheduler's informers, so a standby's cache,
	// queue and parked pods are warm when it comes to lead.
	if err := mgr.Add(warmInformers{sched}); err != nil {
		return nil, fmt.Errorf("adding the scheduler's informers to the manager: %w", err)
	}
	ready := newReadiness(sched, mgr.GetClient())
	if err := mgr.Add(ready); err != nil {
		return nil, fmt.Errorf("adding the readiness tracker to the manager: %w", err)
	}
	ctrlOpts := append([]controllers.Option{controllers.WithMetrics(berthMetrics)}, o.ControllerOptions...)
	if err := controllers.SetupWithManager(mgr, trackingHost{ProfileHost: sched, ready: ready}, ctrlOpts...); err != nil {
		return nil, fmt.Errorf("setting up Berth's controllers: %w", err)
	}
	// The rebalancer, like the scheduling loop, runs on the leader only. It
	// reads pods and nodes from the scheduler's informers: a cache of its
	// own would hold a second copy of every pod and node in the cluster.
	rb := rebalance.New(clientset, mgr.GetClient(), sched, o.Registries.Strategies,
		rebalance.WithEventRecorder(mgr.GetEventRecorder(controllers.RebalanceEventRecorderName)),
		rebalance.WithInformerFactory(sched.InformerFactory()),
		rebalance.WithGangs(sched),
		rebalance.WithRecordReader(mgr.GetAPIReader()),
		rebalance.WithNodeUsage(sched.NodeUsage()),
		rebalance.WithServingProfiles(sched.ServingFramework),
		rebalance.WithMetrics(berthMetrics))
	// A policy without profileRef reads the install's default profile for
	// nodeFit; the caller's options come after, so they may name another.
	rbOpts := append([]controllers.Option{controllers.WithDefaultProfile(o.DefaultProfile)}, o.ControllerOptions...)
	if err := controllers.SetupRebalanceWithManager(mgr, rb, rbOpts...); err != nil {
		return nil, fmt.Errorf("setting up the rebalancer: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding the liveness check: %w", err)
	}
	if err := mgr.AddReadyzCheck("scheduler", ready.Check); err != nil {
		return nil, fmt.Errorf("adding the readiness check: %w", err)
	}
	if o.DefaultProfile != "" {
		if err := mgr.Add(defaultprofile.New(mgr.GetClient(), o.DefaultProfile)); err != nil {
			return nil, fmt.Errorf("adding the default profile's creator: %w", err)
		}
	}
	if o.Webhook {
		if err := berthwebhook.SetupWithManager(mgr, berthwebhook.NewValidator(registry)); err != nil {
			return nil, fmt.Errorf("setting up Berth's webhook: %w", err)
		}
		// The namespace default reads namespaces from the scheduler's
		// informer, which holds them all anyway, and the profiles from the
		// manager's cache, which the controllers fill.
		berthwebhook.SetupNamespaceDefaultWithManager(mgr, berthwebhook.NewNamespaceDefaulter(
			berthwebhook.CachedNamespaces(sched.InformerFactory().Core().V1().Namespaces().Lister(), mgr.GetAPIReader()),
			berthwebhook.WithBerthNamespace(o.Namespace), berthwebhook.WithProfiles(mgr.GetClient())))
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return nil, fmt.Errorf("adding the webhook's readiness check: %w", err)
		}
	}
	return &Berth{Scheduler: sched, Rebalancer: rb}, nil
}

// warmInformers runs the scheduler's informers on every replica, leader or not.
type warmInformers struct{ sched *scheduler.Scheduler }

// Start runs the informers until ctx ends.
func (w warmInformers) Start(ctx context.Context) error { return w.sched.RunInformers(ctx) }

// NeedLeaderElection is false: standbys keep warm caches too.
func (warmInformers) NeedLeaderElection() bool { return false }
