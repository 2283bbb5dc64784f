// Package manager is Berth's one wiring: it builds the controller-runtime
// manager that runs the scheduler, the SchedulingProfile, PluginWeight,
// PodGroup and RebalancePolicy controllers, the rebalancer, the webhook, the
// readiness and health checks and the metrics, from the flags of
// `berth manager`.
package manager

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	berthwebhook "github.com/berth-io/berth/controllers/webhook"
	"github.com/berth-io/berth/internal/defaultprofile"
	"github.com/berth-io/berth/internal/metricsauth"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	schedruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/gang"
	"github.com/berth-io/berth/scheduler/intern"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/rebalance"
)

// Exit codes of `berth manager`.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// Main runs `berth manager` with args until ctx ends, which is a clean
// exit, or the manager fails, for example because it lost its Lease. It
// returns the process exit code. version is the binary's, for the log and
// the user agent. main passes ctrl.SetupSignalHandler's context; tests pass
// their own.
func Main(ctx context.Context, args []string, stderr io.Writer, version string) int {
	o, err := newManagerOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "berth manager: %v\n", err)
		return exitUsage
	}
	o.version = version
	o.zap.DestWriter = stderr
	logger := zap.New(zap.UseFlagOptions(&o.zap))
	// controller-runtime and client-go log through these process-wide loggers.
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	logger.Info("Starting Berth", "version", o.version, "leaderElection", o.leaderElect, "leaderElectionNamespace", o.leaderElectNamespace)
	if o.memoryLimit > 0 {
		debug.SetMemoryLimit(o.memoryLimit)
		logger.Info("Set the Go runtime's soft memory limit", "bytes", o.memoryLimit)
	}
	if err := startManager(ctx, o, logger); err != nil {
		logger.Error(err, "Berth's manager failed")
		return exitFailed
	}
	logger.Info("Berth's manager stopped")
	return exitOK
}

// startManager builds the manager, the scheduler and the controllers and
// runs them until ctx ends or the manager fails.
func startManager(ctx context.Context, o *managerOptions, logger logr.Logger) error {
	cfg, err := restConfig(o)
	if err != nil {
		return err
	}
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, managerConfig(o, scheme, logger))
	if err != nil {
		return fmt.Errorf("building the manager: %w", err)
	}

	// The scheduler's caches live until the manager has stopped its runnables.
	schedCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), logger))
	defer cancel()
	clientset, err := kubernetes.NewForConfig(protobufConfig(cfg))
	if err != nil {
		return fmt.Errorf("building the clientset: %w", err)
	}
	schedMetrics, err := metrics.New(ctrlmetrics.Registry)
	if err != nil {
		return fmt.Errorf("registering the scheduler's metrics: %w", err)
	}
	registry := schedruntime.Registry(plugins.NewInTreeRegistry())
	podGroups, err := gang.NewListWatch(cfg)
	if err != nil {
		return fmt.Errorf("building the PodGroup watch: %w", err)
	}
	sched, err := scheduler.New(schedCtx, clientset,
		scheduler.WithRegistry(registry),
		scheduler.WithMetrics(schedMetrics),
		scheduler.WithParallelism(o.parallelism),
		scheduler.WithScheduledEvents(o.scheduledEvents),
		scheduler.WithPodGroupSource(podGroups))
	if err != nil {
		return fmt.Errorf("building the scheduler: %w", err)
	}
	if err := addRunnables(mgr, sched, clientset, registry, o.enableWebhook); err != nil {
		return err
	}
	if o.defaultProfile != "" {
		if err := mgr.Add(defaultprofile.New(mgr.GetClient(), o.defaultProfile)); err != nil {
			return fmt.Errorf("adding the default profile's creator: %w", err)
		}
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// addRunnables adds the scheduler, the controllers, the rebalancer, the
// webhook and the health checks to mgr.
func addRunnables(mgr manager.Manager, sched *scheduler.Scheduler, clientset kubernetes.Interface, registry schedruntime.Registry, enableWebhook bool) error {
	// A plain RunnableFunc does not implement NeedLeaderElection, so the
	// manager starts the scheduling loop only once this replica leads (at
	// once without leader election) and stops it on shutdown before the
	// Lease is released.
	if err := mgr.Add(manager.RunnableFunc(sched.Start)); err != nil {
		return fmt.Errorf("adding the scheduler to the manager: %w", err)
	}
	ready := newReadiness(sched, mgr.Elected(), mgr.GetClient())
	if err := mgr.Add(ready); err != nil {
		return fmt.Errorf("adding the readiness tracker to the manager: %w", err)
	}
	if err := controllers.SetupWithManager(mgr, trackingHost{ProfileHost: sched, ready: ready}); err != nil {
		return fmt.Errorf("setting up Berth's controllers: %w", err)
	}
	// The rebalancer, like the scheduling loop, runs on the leader only. It
	// reads pods and nodes from the scheduler's informers: a cache of its
	// own would hold a second copy of every pod and node in the cluster.
	rb := rebalance.New(clientset, mgr.GetClient(), sched,
		rebalance.WithEventRecorder(mgr.GetEventRecorder(controllers.RebalanceEventRecorderName)),
		rebalance.WithInformerFactory(sched.InformerFactory()))
	if err := controllers.SetupRebalanceWithManager(mgr, sched, rb); err != nil {
		return fmt.Errorf("setting up the rebalancer: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("adding the liveness check: %w", err)
	}
	if err := mgr.AddReadyzCheck("scheduler", ready.Check); err != nil {
		return fmt.Errorf("adding the readiness check: %w", err)
	}
	if !enableWebhook {
		return nil
	}
	if err := berthwebhook.SetupWithManager(mgr, berthwebhook.NewValidator(registry)); err != nil {
		return fmt.Errorf("setting up Berth's webhook: %w", err)
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook's readiness check: %w", err)
	}
	return nil
}

// managerConfig turns the flags into the manager's options.
func managerConfig(o *managerOptions, scheme *runtime.Scheme, logger logr.Logger) manager.Options {
	var tlsOpts []func(*tls.Config)
	if !o.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOpts := metricsserver.Options{
		BindAddress:   o.metricsBindAddress,
		SecureServing: o.metricsSecure,
		TLSOpts:       tlsOpts,
		CertDir:       o.metricsCertDir,
	}
	if o.metricsSecure {
		// Callers need a token the apiserver accepts and RBAC on the
		// non-resource URL /metrics. metricsauth asks the apiserver as
		// controller-runtime's filters package does, without linking
		// k8s.io/apiserver (132 → 59 MB of binary, about 25 MB less RSS).
		metricsOpts.FilterProvider = metricsauth.Provider
	}
	pprof := o.pprofBindAddress
	if pprof == "" {
		pprof = "0"
	}
	opts := manager.Options{
		Scheme:                        scheme,
		Logger:                        logger,
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        o.healthProbeBindAddress,
		PprofBindAddress:              pprof,
		LeaderElection:                o.leaderElect,
		LeaderElectionID:              leaderElectionID,
		LeaderElectionNamespace:       o.leaderElectNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retryPeriod,
		GracefulShutdownTimeout:       &o.gracefulShutdownTimeout,
		BaseContext:                   func() context.Context { return klog.NewContext(context.Background(), logger) },
		Cache:                         cacheOptions(),
	}
	if o.enableWebhook {
		opts.WebhookServer = webhook.NewServer(webhook.Options{Port: o.webhookPort, CertDir: o.webhookCertDir, TLSOpts: tlsOpts})
	}
	return opts
}

// cacheOptions keeps controller-runtime's cache small. The scheduler's own
// informers hold every pod and node; this cache holds Berth's objects and,
// of pods, only PodGroup members (the pods labelled with their group's name),
// no object keeps its managedFields, which no controller reads, and a
// gang's member pods share their equal parts (intern).
func cacheOptions() cache.Options {
	strip, table := cache.TransformStripManagedFields(), intern.New()
	return cache.Options{
		DefaultTransform: func(obj any) (any, error) {
			obj, err := strip(obj)
			if err != nil {
				return nil, err
			}
			return table.Transform(obj)
		},
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Label: controllers.MemberPodSelector()},
		},
	}
}

// restConfig loads the kubeconfig and applies the client flags.
func restConfig(o *managerOptions) (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	if o.kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	} else {
		cfg, err = ctrl.GetConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = float32(o.kubeAPIQPS), o.kubeAPIBurst
	// Like kube-scheduler, take responses uncompressed by default: a gzip
	// reader per watch holds about 40 KB, and decompressing every pod
	// event costs the scheduler CPU, compressing it the apiserver's.
	cfg.DisableCompression = !o.kubeAPICompression
	cfg.UserAgent = "berth-manager/" + o.version
	return cfg, nil
}

// protobufConfig asks for core types as protobuf, which the apiserver
// encodes and the scheduler decodes faster than JSON.
func protobufConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	return cfg
}

// newScheme knows client-go's types and Berth's.
func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("adding client-go's types to the scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("adding Berth's types to the scheme: %w", err)
	}
	return s, nil
}
