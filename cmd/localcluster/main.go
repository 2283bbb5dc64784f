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

// Command localcluster runs Berth on a local control plane: etcd,
// kube-apiserver, kube-controller-manager and kwok fake nodes, with Berth's
// CRDs, the samples and `berth manager` in the foreground. hack/local-cluster.sh
// builds the binaries it needs and runs it; `make run` runs that script.
//
// Usage:
//
//	localcluster up [flags]                      start everything; Ctrl-C stops it
//	localcluster apply --kubeconfig K -f FILE... apply manifests without kubectl
//	localcluster pod-init SPEC                   the init process of a local pod (Cluster.RunPod starts it)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/internal/localcluster"
)

// managerGrace is how long the manager may take to shut down after Ctrl-C.
const managerGrace = 40 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "up"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "up":
		err = up(args, stdout, stderr)
	case "apply":
		err = apply(args, stderr)
	case "pod-init":
		if len(args) != 1 {
			fmt.Fprintln(stderr, "usage: localcluster pod-init SPEC")
			return 2
		}
		return localcluster.RunPodInit(args[0], stderr)
	default:
		err = fmt.Errorf("unknown command %q (want up, apply or pod-init)", cmd)
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "localcluster: %v\n", err)
		return 1
	}
	return 0
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

type upOptions struct {
	nodes       int
	runDir      string
	k8sBinDir   string
	kwokBin     string
	kwokStages  string
	metrics     string
	kwokUsage   string
	berth       string
	samples     stringList
	verbose     bool
	managerArgs string
	timeout     time.Duration
}

func up(args []string, stdout, stderr io.Writer) error {
	var o upOptions
	fs := flag.NewFlagSet("localcluster up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.nodes, "nodes", localcluster.DefaultNodes, "How many kwok fake nodes to create.")
	fs.StringVar(&o.runDir, "run-dir", ".run/local-cluster", "Directory for data, certificates, the kubeconfig and logs; cleared at start.")
	fs.StringVar(&o.k8sBinDir, "k8s-bin-dir", "bin/k8s", "Directory with etcd, kube-apiserver and kube-controller-manager.")
	fs.StringVar(&o.kwokBin, "kwok", "bin/kwok", "The kwok binary.")
	fs.StringVar(&o.kwokStages, "kwok-stages", "bin/kwok-stages.yaml", "kwok's Stage configuration.")
	fs.StringVar(&o.metrics, "metrics-server", "", "The metrics-server binary, to serve metrics.k8s.io from what the kwok nodes report; empty runs none.")
	fs.StringVar(&o.kwokUsage, "kwok-usage", "bin/kwok-usage.yaml", "kwok's ResourceUsage and ClusterResourceUsage CRDs and default usage, with --metrics-server.")
	fs.StringVar(&o.berth, "berth", "bin/berth", `The berth binary to run as "berth manager"; empty runs no manager.`)
	fs.Var(&o.samples, "apply", "A manifest file or directory to apply once the cluster is up (repeatable; directories apply their *.yaml files in name order).")
	fs.BoolVar(&o.verbose, "v", false, "Copy the control plane's logs to the terminal too (they always go to <run-dir>/logs).")
	fs.StringVar(&o.managerArgs, "manager-args", "", "Extra flags for berth manager, space separated.")
	fs.DurationVar(&o.timeout, "start-timeout", 3*time.Minute, "How long the control plane may take to start.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	runDir, err := filepath.Abs(o.runDir)
	if err != nil {
		return fmt.Errorf("resolving --run-dir: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := funcr.New(func(prefix, args string) {
		fmt.Fprintf(stdout, "%s local-cluster: %s %s\n", time.Now().Format("15:04:05"), prefix, args)
	}, funcr.Options{LogInfoLevel: ptr.To("")})

	opts := []localcluster.Option{
		localcluster.WithRunDir(runDir),
		localcluster.WithK8sBinDir(o.k8sBinDir),
		localcluster.WithKwok(o.kwokBin, o.kwokStages),
		localcluster.WithNodes(o.nodes),
		localcluster.WithLogger(logger),
		localcluster.WithStartTimeout(o.timeout),
	}
	if o.verbose {
		opts = append(opts, localcluster.WithComponentOutput(stdout))
	}
	if o.metrics != "" {
		opts = append(opts, localcluster.WithMetricsServer(o.metrics, o.kwokUsage))
	}
	cluster, err := localcluster.Start(ctx, opts...)
	if err != nil {
		return fmt.Errorf("starting the local cluster (logs in %s): %w", filepath.Join(runDir, "logs"), err)
	}
	defer func() {
		logger.Info("Stopping the local cluster")
		cluster.Stop()
		logger.Info("Stopped; logs are in " + cluster.LogDir())
	}()

	if err := applySamples(ctx, cluster, o.samples); err != nil {
		return err
	}

	var manager *localcluster.Process
	if o.berth != "" {
		margs := []string{"manager",
			"--kubeconfig=" + cluster.Kubeconfig,
			"--leader-elect=false",
			"--enable-webhook=false",
			"--metrics-bind-address=0",
			"--health-probe-bind-address=0",
			"--zap-encoder=console",
		}
		margs = append(margs, strings.Fields(o.managerArgs)...)
		logger.Info("Starting berth " + strings.Join(margs, " "))
		// The manager's own logs go to the terminal, each line prefixed [berth-manager].
		if manager, err = localcluster.StartProcess("berth-manager", cluster.LogDir(), stdout, o.berth, margs...); err != nil {
			return err
		}
	}
	printHints(stdout, cluster, manager != nil, o.metrics != "")

	watchCtx, cancelWatch := context.WithCancel(ctx)
	defer cancelWatch()
	go reportPlacement(watchCtx, cluster, logger)

	var managerDone <-chan struct{}
	if manager != nil {
		managerDone = manager.Done()
	}
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			stop() // a second Ctrl-C now kills this program, and the kernel its children
			fmt.Fprintln(stdout)
			logger.Info("Interrupted; stopping (Ctrl-C again to kill everything at once)")
			if manager != nil {
				manager.Stop(managerGrace)
			}
			return nil
		case <-managerDone:
			return fmt.Errorf("berth manager exited: %w (its log: %s)", manager.Err(), manager.LogFile)
		case <-ticker.C:
			if p := cluster.Exited(); p != nil {
				if manager != nil {
					manager.Stop(managerGrace)
				}
				return fmt.Errorf("%s exited: %w (its log: %s)", p.Name, p.Err(), p.LogFile)
			}
		}
	}
}

// applySamples creates the namespaces the samples use and applies them.
func applySamples(ctx context.Context, cluster *localcluster.Cluster, paths []string) error {
	files, err := manifestFiles(paths)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return nil
	}
	// A directory's files go in name order; config/samples' namespace.yaml
	// comes before the PodGroup that lives in it.
	applier, err := localcluster.NewApplier(cluster.Config)
	if err != nil {
		return err
	}
	if err := applier.ApplyFiles(ctx, files...); err != nil {
		return fmt.Errorf("applying the samples: %w", err)
	}
	return nil
}

// manifestFiles expands directories into their *.yaml files, in name order.
func manifestFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, "*.yaml"))
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", p, err)
		}
		sort.Strings(matches)
		for _, m := range matches {
			if filepath.Base(m) != "kustomization.yaml" {
				files = append(files, m)
			}
		}
	}
	return files, nil
}

func printHints(w io.Writer, cluster *localcluster.Cluster, manager, metrics bool) {
	k := "KUBECONFIG=" + cluster.Kubeconfig
	fmt.Fprintf(w, `
================================================================================
 Berth local cluster: %d kwok nodes. Logs of etcd, kube-apiserver,
 kube-controller-manager, kwok and metrics-server: %s
   export %s
   kubectl get nodes
   kubectl get schedulingprofiles            # the samples from config/samples
   kubectl get pods -o wide -w               # the berth-demo pods land and turn Running
   kubectl get podgroups -n ml-training      # a gang of eight, placed whole
   kubectl get pods -n ml-training -o wide   # its members, all in one zone
   kubectl scale deployment berth-demo --replicas=40
   kubectl apply -f config/samples/scheduling_v1alpha1_pluginweight.yaml
   kubectl get schedulingprofile bin-packing -o jsonpath='{.status.effectivePlugins}'
 No kubectl? go run ./cmd/localcluster apply --kubeconfig %s -f FILE
`, cluster.Nodes, cluster.LogDir(), k, cluster.Kubeconfig)
	if metrics {
		fmt.Fprint(w, ` metrics-server reports what the kwok nodes say their pods use (set by the
 pod annotation kwok.x-k8s.io/usage-cpu or a kwok ResourceUsage named after the pod):
   kubectl top nodes                         # kwok-node-0 busy by usage, not by requests
   kubectl scale deployment load-aware-demo --replicas=6   # the load-aware profile avoids kwok-node-0
   kubectl get rebalancepolicy usage -o jsonpath='{.status.plan}'   # evictions it would make, by usage
`)
	}
	if manager {
		fmt.Fprintln(w, " berth manager runs below; Ctrl-C stops everything.")
	} else {
		fmt.Fprintln(w, " No manager runs (--berth=\"\"): start one with: go run . manager --kubeconfig "+cluster.Kubeconfig+" --leader-elect=false --enable-webhook=false")
	}
	fmt.Fprintln(w, "================================================================================")
}

// reportPlacement logs, every few seconds while it changes, how many pods
// are pending, bound and Running, so that the terminal shows the sample
// workload landing without kubectl.
func reportPlacement(ctx context.Context, cluster *localcluster.Cluster, logger logr.Logger) {
	last := ""
	ticker := time.NewTicker(3 * time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		pods, err := cluster.Clientset.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		pending, bound, running := 0, 0, 0
		nodes := map[string]int{}
		for i := range pods.Items {
			p := &pods.Items[i]
			switch {
			case p.Spec.NodeName == "":
				pending++
			case p.Status.Phase == corev1.PodRunning:
				running++
				nodes[p.Spec.NodeName]++
			default:
				bound++
				nodes[p.Spec.NodeName]++
			}
		}
		now := fmt.Sprintf("pods: %d unscheduled, %d bound and starting, %d Running on %d nodes", pending, bound, running, len(nodes))
		if now != last {
			logger.Info(now, "perNode", perNode(nodes))
			last = now
		}
	}
}

func perNode(nodes map[string]int) string {
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, strings.TrimPrefix(n, "kwok-node-")+"="+strconv.Itoa(nodes[n]))
	}
	return strings.Join(parts, " ")
}

func apply(args []string, stderr io.Writer) error {
	var files stringList
	fs := flag.NewFlagSet("localcluster apply", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "The cluster's kubeconfig.")
	fs.Var(&files, "f", "A manifest file or directory (repeatable).")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	paths, err := manifestFiles(files)
	if err != nil {
		return err
	}
	applier, err := localcluster.NewApplier(cfg)
	if err != nil {
		return err
	}
	return applier.ApplyFiles(context.Background(), paths...)
}
