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

// Package app builds a Berth binary: `berth manager` (the scheduler, the
// controllers, the webhook and the rebalancer), `convert`, `validate`,
// `explain`, `audit` and `version`, with the in-tree scheduling plugins and
// rebalance strategies plus any the binary adds. cmd/berth is built with it,
// and so is a binary of one's own:
//
//	func main() {
//		app.Main(app.WithPlugin(nodelabel.Name, nodelabel.New))
//	}
//
// The plugins and strategies added are known everywhere Berth reads its
// registries: the scheduling loop and its shadow profiles, the validating
// webhook, the rebalancer's nodeFit, and the binary's own validate, convert
// and explain. docs/extending.md says how to write them.
package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/manager"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// Option configures a Command.
type Option func(*options)

type options struct {
	version    string
	commit     string
	plugins    []registries.Plugin
	strategies []registries.Strategy
}

// WithPlugin adds a scheduling plugin under name: profiles enable it and
// configure it (pluginConfig) by that name, and factory builds it, loading
// its args with args.Load as every in-tree plugin does. A name already
// registered, in-tree or added, makes NewCommand fail.
func WithPlugin(name string, factory framework.PluginFactory) Option {
	return func(o *options) { o.plugins = append(o.plugins, registries.Plugin{Name: name, Factory: factory}) }
}

// WithStrategy adds a rebalance strategy under name: RebalancePolicies list
// it by that name, and factory builds it from its args with args.Load. A
// name already registered, in-tree or added, makes NewCommand fail.
func WithStrategy(name v1alpha1.StrategyName, factory strategies.Factory) Option {
	return func(o *options) {
		o.strategies = append(o.strategies, registries.Strategy{Name: name, Factory: factory})
	}
}

// WithVersion sets the version `berth version` prints and the manager logs;
// by default the main module's version from the build information.
func WithVersion(version string) Option { return func(o *options) { o.version = version } }

// WithCommit sets the commit `berth version` prints; by default the
// revision the Go build stamped, when it was built from a git checkout.
func WithCommit(commit string) Option { return func(o *options) { o.commit = commit } }

// Command is a Berth binary's command line.
type Command struct {
	version    string
	commit     string
	registries registries.Set
	// clients builds berth explain's clients; tests replace it.
	clients clientsFunc
}

// NewCommand returns the command line of a Berth binary that knows the
// in-tree plugins and strategies and those opts add.
func NewCommand(opts ...Option) (*Command, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	reg := registries.InTree()
	if err := reg.Add(o.plugins, o.strategies); err != nil {
		return nil, err
	}
	version, commit := o.version, o.commit
	if version == "" {
		version = buildVersion()
	}
	if commit == "" {
		commit = buildCommit()
	}
	return &Command{version: version, commit: commit, registries: reg, clients: kubeClients}, nil
}

// Main runs the process's command line with NewCommand(opts...) and exits
// with its exit code; a failing NewCommand exits with code 2.
func Main(opts ...Option) {
	c, err := NewCommand(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "berth: %v\n", err)
		os.Exit(2)
	}
	os.Exit(c.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Run executes the subcommand args[0] with the rest of args and returns
// the process exit code. ctx bounds convert, validate, explain and audit; `berth
// manager` runs until ctx ends or the process gets SIGINT or SIGTERM (a
// second signal exits at once).
func (c *Command) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "manager":
		return manager.Main(withSignals(ctx), args[1:], stderr, c.version, c.registries)
	case "convert":
		return c.runConvert(ctx, args[1:], stdin, stdout, stderr)
	case "validate":
		return c.runValidate(ctx, args[1:], stdin, stdout, stderr)
	case "explain":
		return c.runExplain(ctx, args[1:], stdin, stdout, stderr, c.clients)
	case "audit":
		return c.runAudit(ctx, args[1:], stdout, stderr, auditKubeClients)
	case "version":
		fmt.Fprintf(stdout, "berth %s (commit %s, %s, %s/%s)\n", c.version, c.commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "berth: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
}

// withSignals returns a context that ends with ctx or at the first SIGINT
// or SIGTERM; a second signal exits the process with code 1.
func withSignals(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(ctrl.SetupSignalHandler(), cancel)
	return ctx
}

// buildVersion returns the main module's version, or "(devel)".
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// buildCommit returns the git revision the Go build stamped (with "-dirty"
// when the checkout had changes), or "unknown".
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	revision, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case revision == "":
		return "unknown"
	case dirty:
		return revision + "-dirty"
	}
	return revision
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Berth runs a Kubernetes scheduler whose profiles are custom resources.

Usage:
  berth <command> [flags]

Commands:
  manager   run the scheduler, the controllers and the webhook (berth manager -h)
  convert   write SchedulingProfiles for a KubeSchedulerConfiguration file
  validate  check Berth's objects in files offline, as the cluster would (berth validate -h)
  explain   show where a pod goes and why, under the live or a candidate profile (berth explain -h)
  audit     list bound pods that break a hard scheduling constraint, and gangs below minCount (berth audit -h)
  version   print Berth's version
  help      show this text
`)
}
