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

// Command berth is Berth's single binary: the manager that runs the
// scheduler, the controllers and the webhook (`berth manager`), the
// migration tool (`berth convert`), the offline check of Berth's objects
// (`berth validate`), the explanation of a pod's placement (`berth
// explain`) and `berth version`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/berth-io/berth/internal/manager"
)

// gitVersion is Berth's version, set at build time with
// -ldflags "-X main.gitVersion=v0.1.0"; it falls back to the module version.
var gitVersion = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "manager":
		// The first SIGTERM or SIGINT stops the manager gracefully; a second
		// one exits at once.
		return manager.Main(ctrl.SetupSignalHandler(), args[1:], stderr, version())
	case "convert":
		return runConvert(context.Background(), args[1:], os.Stdin, stdout, stderr)
	case "validate":
		return runValidate(context.Background(), args[1:], os.Stdin, stdout, stderr)
	case "explain":
		return runExplain(context.Background(), args[1:], os.Stdin, stdout, stderr, kubeClients)
	case "version":
		fmt.Fprintf(stdout, "berth %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
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

// version returns the build's version: the linker-set one, else the module's.
func version() string {
	if gitVersion != "" {
		return gitVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
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
  version   print Berth's version
  help      show this text
`)
}
