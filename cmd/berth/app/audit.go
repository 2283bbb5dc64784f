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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/pager"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/audit"
)

// auditFlags are the command line of berth audit.
type auditFlags struct {
	output     string
	kubeconfig string
	context    string
	namespace  string
	timeout    time.Duration
}

// auditClients are what berth audit reads the cluster through.
type auditClients struct {
	kube kubernetes.Interface
	// berth lists Berth's own PodGroups, when the apiserver serves them.
	berth client.Reader
}

// auditClientsFunc builds berth audit's clients from its command line;
// tests replace it.
type auditClientsFunc func(f *auditFlags) (*auditClients, error)

// runAudit implements `berth audit [--namespace NS] [-o table|json]
// [--kubeconfig PATH] [--context NAME] [--timeout 2m]`: it lists the
// cluster's nodes, pods, namespaces and PodGroups, and reports the bound
// pods whose placement breaks a hard scheduling constraint and the gangs
// bound below their minCount. It only gets and lists. Exit codes, as berth
// validate's: 0 no violation, 1 violations found, 2 bad command line or the
// cluster could not be read.
func (c *Command) runAudit(ctx context.Context, args []string, stdout, stderr io.Writer, clients auditClientsFunc) int {
	var f auditFlags
	fs := auditFlagSet(&f, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if f.output != "table" && f.output != "json" {
		fmt.Fprintf(stderr, "berth audit: -o must be table or json, got %q\n", f.output)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	cl, err := clients(&f)
	if err != nil {
		fmt.Fprintf(stderr, "berth audit: %v\n", err)
		return 2
	}
	cluster, skipped, err := readCluster(ctx, cl)
	if err != nil {
		fmt.Fprintf(stderr, "berth audit: %v\n", err)
		return 2
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "berth audit: %s\n", s)
	}
	report := newAuditReport(cluster, audit.Check(cluster), f.namespace, skipped)
	if f.output == "json" {
		err = report.writeJSON(stdout)
	} else {
		err = report.writeTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "berth audit: writing the report: %v\n", err)
		return 2
	}
	if len(report.Violations) > 0 {
		return 1
	}
	return 0
}

// auditFlagSet returns berth audit's flags, parsed into f, with its usage
// written to stderr.
func auditFlagSet(f *auditFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.output, "o", "table", "output format: table or json")
	fs.StringVar(&f.namespace, "namespace", "", "report only the pods and groups of this namespace, and the nodes running its pods (default: all)")
	fs.StringVar(&f.namespace, "n", "", "short for --namespace")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "path to the kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig context to use")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "give up after this long")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: berth audit [--namespace NS] [-o table|json] [--kubeconfig PATH] [--context NAME]\n\n"+
			"Lists the bound pods whose placement breaks a hard scheduling constraint (node selector and\n"+
			"affinity, taints, required pod affinity and anti-affinity, DoNotSchedule topology spread,\n"+
			"node resources, host ports) and the gangs bound below their minCount, whichever scheduler\n"+
			"placed them. It reads nodes, pods, namespaces and PodGroups, and writes nothing.\n"+
			"Exit codes: 0 no violation, 1 violations found, 2 bad command line or cluster not read.\n\n")
		fs.PrintDefaults()
	}
	return fs
}

// readCluster lists what the audit reads. skipped says what could not be
// checked because the apiserver does not serve it.
func readCluster(ctx context.Context, cl *auditClients) (audit.Cluster, []string, error) {
	var c audit.Cluster
	var skipped []string
	err := listAll(ctx, "nodes", func(opts metav1.ListOptions) (apiruntime.Object, error) {
		return cl.kube.CoreV1().Nodes().List(ctx, opts)
	}, func(n *corev1.Node) { c.Nodes = append(c.Nodes, n) })
	if err != nil {
		return c, nil, err
	}
	err = listAll(ctx, "pods", func(opts metav1.ListOptions) (apiruntime.Object, error) {
		return cl.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
	}, func(p *corev1.Pod) { c.Pods = append(c.Pods, p) })
	if err != nil {
		return c, nil, err
	}
	err = listAll(ctx, "namespaces", func(opts metav1.ListOptions) (apiruntime.Object, error) {
		return cl.kube.CoreV1().Namespaces().List(ctx, opts)
	}, func(ns *corev1.Namespace) { c.Namespaces = append(c.Namespaces, ns) })
	if err != nil {
		return c, nil, err
	}

	native, err := servesResource(cl.kube.Discovery(), schedulingv1beta1.SchemeGroupVersion.String(), "podgroups")
	if err != nil {
		return c, nil, err
	}
	if native {
		err = listAll(ctx, "scheduling.k8s.io PodGroups", func(opts metav1.ListOptions) (apiruntime.Object, error) {
			return cl.kube.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).List(ctx, opts)
		}, func(pg *schedulingv1beta1.PodGroup) { c.PodGroups = append(c.PodGroups, pg) })
		if err != nil {
			return c, nil, err
		}
	} else {
		skipped = append(skipped, "the apiserver does not serve scheduling.k8s.io/v1beta1 PodGroups: their gangs were not checked")
	}

	berth, err := servesResource(cl.kube.Discovery(), v1alpha1.GroupVersion.String(), "podgroups")
	if err != nil {
		return c, nil, err
	}
	if berth && cl.berth != nil {
		var list v1alpha1.PodGroupList
		if err := cl.berth.List(ctx, &list); err != nil {
			return c, nil, fmt.Errorf("listing scheduling.berth.io PodGroups: %w", err)
		}
		for i := range list.Items {
			c.BerthPodGroups = append(c.BerthPodGroups, &list.Items[i])
		}
	}
	return c, skipped, nil
}

// listAll lists every object of a kind, a page at a time, and hands each to add.
func listAll[T any](ctx context.Context, what string, list func(metav1.ListOptions) (apiruntime.Object, error), add func(*T)) error {
	p := pager.New(pager.SimplePageFunc(list))
	err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj apiruntime.Object) error {
		o, ok := any(obj).(*T)
		if !ok {
			return fmt.Errorf("unexpected %T", obj)
		}
		add(o)
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", what, err)
	}
	return nil
}

// servesResource reports whether the apiserver serves the resource in the
// group version; a group version it does not know is no error.
func servesResource(d discovery.DiscoveryInterface, groupVersion, resource string) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		var status interface{ Status() metav1.Status }
		if errors.As(err, &status) && status.Status().Code == 404 {
			return false, nil
		}
		return false, fmt.Errorf("discovering %s: %w", groupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return true, nil
		}
	}
	return false, nil
}

// auditReport is what berth audit writes; as JSON, its -o json output.
type auditReport struct {
	// Namespace is the namespace reported on; empty for all.
	Namespace string `json:"namespace,omitempty"`
	// Nodes counts the nodes read.
	Nodes int `json:"nodes"`
	// BoundPods counts the bound pods that have not terminated.
	BoundPods int `json:"boundPods"`
	// Gangs counts the PodGroups with a gang policy.
	Gangs int `json:"gangs"`
	// NotChecked says what the apiserver does not serve and was not checked.
	NotChecked []string `json:"notChecked,omitempty"`
	// Violations are the violations found, sorted.
	Violations []audit.Violation `json:"violations"`
}

// newAuditReport keeps the violations of the namespace, if one is given:
// those of its pods and groups, and those of the nodes its pods run on.
func newAuditReport(c audit.Cluster, violations []audit.Violation, namespace string, skipped []string) *auditReport {
	r := &auditReport{Namespace: namespace, Nodes: len(c.Nodes), NotChecked: skipped, Violations: []audit.Violation{}}
	nodesOfNamespace := map[string]bool{}
	for _, p := range c.Pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if namespace == "" || p.Namespace == namespace {
			r.BoundPods++
			nodesOfNamespace[p.Spec.NodeName] = true
		}
	}
	for _, pg := range c.PodGroups {
		if pg.Spec.SchedulingPolicy.Gang != nil && (namespace == "" || pg.Namespace == namespace) {
			r.Gangs++
		}
	}
	for _, pg := range c.BerthPodGroups {
		if (pg.Spec.SchedulingPolicy == nil || pg.Spec.SchedulingPolicy.Gang != nil) && (namespace == "" || pg.Namespace == namespace) {
			r.Gangs++
		}
	}
	for _, v := range violations {
		if namespace == "" || v.Namespace == namespace || v.Kind == audit.KindNode && nodesOfNamespace[v.Name] {
			r.Violations = append(r.Violations, v)
		}
	}
	return r
}

func (r *auditReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // messages say "cpu 9 > 8"
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	return nil
}

// writeTable writes one violation a line under a header, then a summary.
func (r *auditReport) writeTable(w io.Writer) error {
	var b strings.Builder
	if len(r.Violations) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tNAMESPACE/NAME\tNODE\tCONSTRAINT\tMESSAGE")
		for _, v := range r.Violations {
			name, node := v.Name, v.Node
			if v.Namespace != "" {
				name = v.Namespace + "/" + name
			}
			if node == "" {
				node = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Kind, name, node, v.Constraint, v.Message)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("writing the table: %w", err)
		}
		b.WriteString("\n")
	}
	scope := ""
	if r.Namespace != "" {
		scope = " in namespace " + r.Namespace
	}
	checked := fmt.Sprintf("%s%s on %s, %s", plural(r.BoundPods, "bound pod"), scope, plural(r.Nodes, "node"), plural(r.Gangs, "gang"))
	if len(r.Violations) == 0 {
		fmt.Fprintf(&b, "No violations: %s checked.\n", checked)
	} else {
		fmt.Fprintf(&b, "%s: %s checked.\n", plural(len(r.Violations), "violation"), checked)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// auditKubeClients builds berth audit's clients from the kubeconfig.
func auditKubeClients(f *auditFlags) (*auditClients, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.context})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	scheme := apiruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	berth, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building the Berth client: %w", err)
	}
	return &auditClients{kube: kube, berth: berth}, nil
}
