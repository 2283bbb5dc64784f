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

package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/internal/manifest"
	"github.com/berth-io/berth/internal/validate"
	"github.com/berth-io/berth/scheduler"
	nodeusage "github.com/berth-io/berth/scheduler/usage"
	"github.com/berth-io/berth/scheduler/workload"
)

// explainFlags are the command line of berth explain.
type explainFlags struct {
	profile    string
	file       string
	nodes      int
	output     string
	kubeconfig string
	context    string
	namespace  string
	timeout    time.Duration
}

// explainClients are what berth explain reads the cluster through.
type explainClients struct {
	kube  kubernetes.Interface
	berth client.Reader
	opts  []explain.Option
}

// clientsFunc builds the clients from the command line; tests replace it.
type clientsFunc func(f *explainFlags) (*explainClients, error)

// runExplain implements `berth explain pod NS/NAME [--profile NAME] [-f FILE]
// [--nodes N] [-o table|json|yaml] [--kubeconfig PATH] [--context NAME]`.
// Exit codes: 0 explained, 1 failed (or the candidate is invalid), 2 usage.
func (c *Command) runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, clients clientsFunc) int {
	var f explainFlags
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.profile, "profile", "", "a SchedulingProfile of the cluster to evaluate (default: the one serving the pod's schedulerName)")
	fs.StringVar(&f.file, "f", "", "a candidate SchedulingProfile (with PluginWeights, optional) to evaluate, or - for stdin; with --profile both are compared")
	fs.IntVar(&f.nodes, "nodes", 0, "show at most this many nodes per profile, best first (0: all)")
	fs.StringVar(&f.output, "o", "table", "output format: table, json or yaml")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "path to the kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig context to use")
	fs.StringVar(&f.namespace, "n", "", "the pod's namespace when NAME has none (default: the context's, else default)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "give up after this long")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: berth explain pod [NAMESPACE/]NAME [--profile NAME] [-f FILE] [--nodes N] [-o table|json|yaml]\n\n"+
			"Explains where the scheduler puts a pod and why: it reads the cluster's nodes and pods once,\n"+
			"compiles the live profile serving the pod's schedulerName (or --profile, or the candidate\n"+
			"in -f, or both, and compares them), and runs PreFilter, Filter, PreScore, Score and\n"+
			"NormalizeScore over every node with the scheduler's own code. It binds and writes nothing.\n"+
			"A bound pod is evaluated as if pending; when the profile that placed it records its decisions\n"+
			"(spec.recordDecisions), the decision that placed it is shown first, with its scores.\n"+
			"Exit codes: 0 explained, 1 failed, 2 usage.\n\n")
		fs.PrintDefaults()
	}
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(positional) != 2 || positional[0] != "pod" || f.nodes < 0 {
		fs.Usage()
		return 2
	}
	switch f.output {
	case "table", "json", "yaml":
	default:
		fmt.Fprintf(stderr, "berth explain: -o must be table, json or yaml, got %q\n", f.output)
		return 2
	}

	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	var candidate *explain.Candidate
	if f.file != "" {
		cand, code := c.readCandidate(ctx, f.file, stdin, stderr)
		if cand == nil {
			return code
		}
		candidate = cand
	}
	cl, err := clients(&f)
	if err != nil {
		fmt.Fprintf(stderr, "berth explain: %v\n", err)
		return 1
	}
	namespace, name, ok := strings.Cut(positional[1], "/")
	if !ok {
		namespace, name = f.namespace, positional[1]
	}
	if namespace == "" || name == "" {
		fmt.Fprintf(stderr, "berth explain: no namespace for pod %q\n", positional[1])
		return 2
	}
	report, err := explain.New(cl.kube, cl.berth, c.registries.Plugins, cl.opts...).Explain(ctx, explain.Request{
		Namespace: namespace, Name: name, Profile: f.profile, Candidate: candidate, Nodes: f.nodes,
	})
	if err != nil {
		fmt.Fprintf(stderr, "berth explain: %v\n", err)
		return 1
	}
	if err := report.Write(stdout, f.output); err != nil {
		fmt.Fprintf(stderr, "berth explain: writing the report: %v\n", err)
		return 1
	}
	return 0
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// readCandidate reads the candidate file and validates it as berth
// validate does; on failure it returns nil and the exit code.
func (c *Command) readCandidate(ctx context.Context, path string, stdin io.Reader, stderr io.Writer) (*explain.Candidate, int) {
	set, err := manifest.NewReader(manifest.WithStdin(stdin)).Read([]string{path})
	if err != nil {
		fmt.Fprintf(stderr, "berth explain: %v\n", err)
		return nil, 2
	}
	checker, err := validate.NewChecker(c.registries)
	if err != nil {
		fmt.Fprintf(stderr, "berth explain: %v\n", err)
		return nil, 1
	}
	inputs := inputsOf(set)
	if report := checker.Check(ctx, inputs); report.Invalid > 0 {
		fmt.Fprintf(stderr, "berth explain: the candidate in %s is invalid:\n", path)
		_ = writeText(stderr, set, report)
		return nil, 1
	}
	cand := &explain.Candidate{Source: path}
	for _, in := range inputs {
		switch in.Object.GetKind() {
		case "SchedulingProfile":
			if cand.Profile != nil {
				fmt.Fprintf(stderr, "berth explain: %s holds more than one SchedulingProfile; give one candidate\n", path)
				return nil, 2
			}
			cand.Profile = &v1alpha1.SchedulingProfile{}
			if err := apiruntime.DefaultUnstructuredConverter.FromUnstructured(in.Object.Object, cand.Profile); err != nil {
				fmt.Fprintf(stderr, "berth explain: decoding the SchedulingProfile: %v\n", err)
				return nil, 1
			}
		case "PluginWeight":
			var w v1alpha1.PluginWeight
			if err := apiruntime.DefaultUnstructuredConverter.FromUnstructured(in.Object.Object, &w); err != nil {
				fmt.Fprintf(stderr, "berth explain: decoding the PluginWeight: %v\n", err)
				return nil, 1
			}
			cand.Weights = append(cand.Weights, w)
		}
	}
	if cand.Profile == nil {
		fmt.Fprintf(stderr, "berth explain: %s holds no SchedulingProfile\n", path)
		return nil, 2
	}
	return cand, 0
}

// kubeClients builds the clients from the kubeconfig.
func kubeClients(f *explainFlags) (*explainClients, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.context})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	if f.namespace == "" {
		if ns, _, err := loader.Namespace(); err == nil {
			f.namespace = ns
		}
	}
	return clientsFor(cfg)
}

// clientsFor builds the clients of a rest.Config.
func clientsFor(cfg *rest.Config) (*explainClients, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	scheme := apiruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	berth, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building the Berth client: %w", err)
	}
	podGroups, err := workload.NewBerthClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the PodGroup client: %w", err)
	}
	// Explain sees devices as the scheduler does, DeviceTaintRules applied.
	taintRules, err := scheduler.DeviceTaintRulesServed(kube.Discovery())
	if err != nil {
		return nil, err
	}
	// The load-aware plugins read metrics-server as the manager's do.
	nodeMetrics, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the metrics.k8s.io client: %w", err)
	}
	return &explainClients{kube: kube, berth: berth, opts: []explain.Option{
		// Parents are followed, as the manager's --composite-pod-groups does by default.
		explain.WithSchedulerOptions(scheduler.WithPodGroupClient(podGroups), scheduler.WithDeviceTaintRules(taintRules), scheduler.WithCompositePodGroups(true),
			scheduler.WithNodeUsageOptions(nodeusage.WithMetricsClient(nodeMetrics))),
	}}, nil
}
