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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler"
)

// Defaults of `berth manager`.
const (
	// defaultNamespace holds the Lease when the manager runs outside a pod.
	defaultNamespace = "berth-system"
	// leaderElectionID names the Lease that elects the scheduling replica.
	leaderElectionID = "berth.scheduling.berth.io"
	// serviceAccountNamespaceFile holds the namespace of the pod the manager runs in.
	serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
)

// managerOptions is the parsed command line of `berth manager`.
type managerOptions struct {
	kubeconfig string
	kubeAPIQPS float64
	// kubeAPIBurst is the client's burst; with a negative QPS it is unused.
	kubeAPIBurst int
	// kubeAPICompression lets the apiserver gzip responses, watch streams included.
	kubeAPICompression bool

	// namespace is the namespace the manager runs in (defaultNamespace outside a pod).
	namespace string

	leaderElect             bool
	leaderElectNamespace    string
	leaseDuration           time.Duration
	renewDeadline           time.Duration
	retryPeriod             time.Duration
	gracefulShutdownTimeout time.Duration

	metricsBindAddress     string
	metricsSecure          bool
	healthProbeBindAddress string
	pprofBindAddress       string
	enableHTTP2            bool

	enableWebhook  bool
	webhookPort    int
	webhookCertDir string

	parallelism int

	// memoryLimit is the Go runtime's soft memory limit in bytes; 0 keeps
	// the runtime's default (GOMEMLIMIT, or none).
	memoryLimit int64
	// scheduledEvents says whether a Scheduled event is recorded per bound pod.
	scheduledEvents bool
	// batching says whether profiles batch pods unless they say otherwise.
	batching bool
	// popFromBackoff says whether the scheduling loop takes pods from
	// backoffQ when activeQ is empty.
	popFromBackoff bool
	// compositePodGroups says whether PodGroups' parent CompositePodGroups
	// are followed when the apiserver serves them.
	compositePodGroups bool
	defaultProfile     string
	metricsCertDir     string
	// version is the binary's version, for the log and the user agent.
	version string
	// registries are the plugins and strategies the binary runs.
	registries registries.Set

	zap zap.Options
}

// managerFlags binds the manager's flags to o on a new FlagSet that writes
// its usage to output.
func managerFlags(o *managerOptions, output io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("berth manager", flag.ContinueOnError)
	fs.SetOutput(output)

	fs.StringVar(&o.kubeconfig, "kubeconfig", "",
		"Path to a kubeconfig. Without it: $KUBECONFIG, the in-cluster config, then ~/.kube/config.")
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", -1,
		"Queries per second to the apiserver; negative means no client-side limit (the apiserver's priority and fairness applies).")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", -1,
		"Burst of queries to the apiserver; used only with a positive --kube-api-qps.")
	fs.BoolVar(&o.kubeAPICompression, "kube-api-compression", false,
		"Accept gzip-compressed responses and watch streams from the apiserver: less traffic, more CPU and memory on both ends (kube-scheduler turns it off too).")

	fs.BoolVar(&o.leaderElect, "leader-elect", true,
		"Elect one replica on a Lease to run the scheduling loop; the others compile profiles and stand by.")
	fs.StringVar(&o.leaderElectNamespace, "leader-elect-namespace", "",
		"Namespace of the Lease "+leaderElectionID+" (default: the pod's namespace, else "+defaultNamespace+").")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second,
		"How long standby replicas wait after the last renewal before taking the Lease over.")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second,
		"How long the leader keeps retrying to renew the Lease before it gives up and exits.")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second,
		"How long replicas wait between attempts to acquire or renew the Lease.")
	fs.DurationVar(&o.gracefulShutdownTimeout, "graceful-shutdown-timeout", 30*time.Second,
		"How long the manager waits on SIGTERM for bindings in flight and other runnables before it exits.")

	fs.StringVar(&o.metricsBindAddress, "metrics-bind-address", ":8443",
		`Address of the Prometheus metrics endpoint; "0" turns it off.`)
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true,
		"Serve metrics over HTTPS to callers the apiserver authenticates and authorizes (TokenReview, SubjectAccessReview).")
	fs.StringVar(&o.metricsCertDir, "metrics-cert-dir", "",
		"Directory with the metrics server's tls.crt and tls.key, reloaded when they change (default: a self-signed certificate made at start).")
	fs.StringVar(&o.healthProbeBindAddress, "health-probe-bind-address", ":8081",
		`Address of /healthz and /readyz; "0" turns them off.`)
	fs.StringVar(&o.pprofBindAddress, "pprof-bind-address", "",
		`Address of the net/http/pprof endpoints; empty or "0" turns them off.`)
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Allow HTTP/2 on the metrics and webhook servers (off because of HTTP/2 rapid-reset attacks).")

	fs.BoolVar(&o.enableWebhook, "enable-webhook", true,
		"Serve the validating webhook for SchedulingProfiles and PluginWeights, and the namespace default for pods.")
	fs.IntVar(&o.webhookPort, "webhook-port", 9443, "Port of the webhook server.")
	fs.StringVar(&o.webhookCertDir, "webhook-cert-dir", "",
		"Directory with the webhook's tls.crt and tls.key (default: /tmp/k8s-webhook-server/serving-certs).")

	fs.IntVar(&o.parallelism, "parallelism", scheduler.DefaultParallelism,
		"How many nodes are filtered and scored at once in a scheduling cycle.")
	fs.BoolVar(&o.scheduledEvents, "scheduled-events", true,
		"Record a Scheduled event for every pod bound, as kube-scheduler does; false saves the apiserver one write per pod. FailedScheduling and other events are recorded either way.")
	fs.BoolVar(&o.batching, "opportunistic-batching", true,
		"Let a pod with the same signature as the pod scheduled just before it try first the best node that pod's search scored and did not take, as kube-scheduler does by default (its OpportunisticBatching feature gate); a SchedulingProfile's spec.opportunisticBatching overrides it.")
	fs.BoolVar(&o.popFromBackoff, "pop-from-backoff", true,
		"When no pod is ready to be scheduled, schedule a pod that a plugin rejected before its backoff ends, as kube-scheduler does by default (its SchedulerPopFromBackoffQ feature gate); pods that failed with an error wait their backoff out either way.")
	fs.BoolVar(&o.compositePodGroups, "composite-pod-groups", true,
		"Follow PodGroups' spec.parentCompositePodGroupName to the CompositePodGroups (scheduling.k8s.io/v1alpha3) above them when the apiserver serves those, and schedule each hierarchy in one cycle, as kube-scheduler does with its CompositePodGroup feature gate on; false ignores the parents, as kube-scheduler does with the gate off.")
	fs.StringVar(&o.defaultProfile, "default-profile", "",
		"Create a SchedulingProfile of this name, with upstream's default plugins, when none exists (the leader does, once; an existing profile is never changed). Empty: none.")
	fs.Func("memory-limit",
		"Soft limit of the Go runtime's memory, a quantity such as 512Mi: the garbage collector works harder as the process nears it (default: GOMEMLIMIT, or none).",
		func(v string) error {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return fmt.Errorf("not a quantity: %w", err)
			}
			if q.Sign() <= 0 {
				return fmt.Errorf("must be positive, not %s", v)
			}
			o.memoryLimit = q.Value()
			return nil
		})

	o.zap.BindFlags(fs)
	return fs
}

// newManagerOptions parses the arguments of `berth manager`. With -h it
// returns flag.ErrHelp after printing the usage to usageOut.
func newManagerOptions(args []string, usageOut io.Writer) (*managerOptions, error) {
	o := &managerOptions{}
	fs := managerFlags(o, usageOut)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: berth manager [flags]\n\nRuns Berth's scheduler, controllers and webhook.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	o.namespace = podNamespace(serviceAccountNamespaceFile)
	if o.leaderElectNamespace == "" {
		o.leaderElectNamespace = o.namespace
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// validate checks the values that flag parsing accepts but the manager cannot use.
func (o *managerOptions) validate() error {
	var errs []error
	if o.parallelism < 1 {
		errs = append(errs, fmt.Errorf("--parallelism must be positive, not %d", o.parallelism))
	}
	if o.leaderElect {
		if o.leaseDuration <= o.renewDeadline {
			errs = append(errs, fmt.Errorf("--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)", o.leaseDuration, o.renewDeadline))
		}
		if o.retryPeriod <= 0 || o.renewDeadline <= o.retryPeriod {
			errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline (%s) must be longer than a positive --leader-elect-retry-period (%s)", o.renewDeadline, o.retryPeriod))
		}
	}
	if o.kubeAPIQPS > 0 && o.kubeAPIBurst < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-burst must be positive with --kube-api-qps %g", o.kubeAPIQPS))
	}
	if o.defaultProfile != "" {
		for _, msg := range validation.IsDNS1123Subdomain(o.defaultProfile) {
			errs = append(errs, fmt.Errorf("--default-profile %q: %s", o.defaultProfile, msg))
		}
	}
	if o.webhookPort < 1 || o.webhookPort > 65535 {
		errs = append(errs, fmt.Errorf("--webhook-port %d is not a port", o.webhookPort))
	}
	if o.gracefulShutdownTimeout < 0 {
		errs = append(errs, fmt.Errorf("--graceful-shutdown-timeout must not be negative, not %s", o.gracefulShutdownTimeout))
	}
	return errors.Join(errs...)
}

// podNamespace returns the namespace in the service account file at path,
// or defaultNamespace outside a pod.
func podNamespace(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return defaultNamespace
	}
	if ns := strings.TrimSpace(string(b)); ns != "" {
		return ns
	}
	return defaultNamespace
}
