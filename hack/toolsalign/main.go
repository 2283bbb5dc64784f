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

// Command toolsalign keeps the Go modules the build tools and the examples
// build from (hack/tools/*, examples/*) on the versions Berth's own module
// selects, for every module both sides compile packages from, so that one
// Go build cache compiles each shared package once: the control plane's
// build then compiles most of what Berth's tests need, and the reverse.
//
// Usage (from the repository root):
//
//	go run ./hack/toolsalign          report every mismatch; exit 1 if any
//	go run ./hack/toolsalign -fix     raise the tools' versions to Berth's
//
// A mismatch the tool cannot fix is reported with what would fix it: a
// tool that needs a newer version than Berth's (raise Berth's), or a
// version pinned by a replace directive (the control plane's Kubernetes
// staging modules, which stay at the control plane's release).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/semver"
)

// consumer is a Go module beside Berth's that shares Berth's build cache.
type consumer struct {
	dir      string
	packages []string
	// own are path prefixes of modules the consumer keeps at its own
	// versions, because it does not work with Berth's; why is said where
	// the consumer is listed.
	own []string
}

// consumers are the modules CI compiles besides Berth's own, with the
// packages it compiles from each.
var consumers = []consumer{
	{dir: "hack/tools/controlplane", packages: []string{
		"k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kube-controller-manager",
		"k8s.io/kubernetes/cmd/kube-scheduler", "k8s.io/kubernetes/cmd/kubectl",
	}},
	{dir: "hack/tools/helm", packages: []string{"helm.sh/helm/v3/cmd/helm"}},
	{dir: "hack/tools/codegen", packages: []string{"sigs.k8s.io/controller-tools/cmd/controller-gen"}},
	{dir: "hack/tools/kwok", packages: []string{"sigs.k8s.io/kwok/cmd/kwok"}},
	// metrics-server v0.8.0's generated OpenAPI definitions are keyed by Go
	// import path; the Kubernetes libraries Berth builds name their models
	// by OpenAPIModelName, and with them metrics-server fails at start
	// ("cannot find model definition for io.k8s.metrics..."). Those
	// Kubernetes modules (k8s.io/api covers apimachinery and apiserver too)
	// stay at its own release; the rest is shared.
	{dir: "hack/tools/metrics-server", packages: []string{"sigs.k8s.io/metrics-server/cmd/metrics-server"}, own: []string{
		"k8s.io/api", "k8s.io/client-go", "k8s.io/component-base", "k8s.io/kms", "k8s.io/kube-openapi", "k8s.io/metrics",
		"github.com/google/gnostic-models", // from v0.7, a yaml module the older kube-openapi does not take
	}},
	{dir: "hack/tools/actionlint", packages: []string{"github.com/rhysd/actionlint/cmd/actionlint"}},
	{dir: "examples/nodelabelscore", packages: []string{"./..."}},
}

// module is one module of a build list: its path, the version selected
// (the replacement's, when replaced) and whether a replace pins it.
type module struct {
	path     string
	version  string
	replaced bool
}

func main() {
	fix := flag.Bool("fix", false, "raise each tool's versions to Berth's with go get")
	flag.Parse()
	mismatches, err := run(*fix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolsalign:", err)
		os.Exit(2)
	}
	if mismatches > 0 {
		fmt.Fprintf(os.Stderr, "toolsalign: %d module(s) differ; 'go run ./hack/toolsalign -fix' raises the tools to Berth's versions\n", mismatches)
		os.Exit(1)
	}
}

func run(fix bool) (int, error) {
	berth, err := buildModules(".", "-test", "./...")
	if err != nil {
		return 0, fmt.Errorf("reading Berth's build list: %w", err)
	}
	left, err := alignToolchains(fix)
	if err != nil {
		return 0, err
	}
	for _, c := range consumers {
		mods, err := buildModules(c.dir, c.packages...)
		if err != nil {
			return 0, fmt.Errorf("reading %s's build list: %w", c.dir, err)
		}
		var raise []string
		for _, path := range sortedKeys(mods) {
			theirs, ours := mods[path], berth[path]
			if ours.version == "" || theirs.version == ours.version || ours.replaced || c.keeps(path) {
				continue
			}
			switch {
			case theirs.replaced:
				fmt.Printf("%s: %s %s is pinned by a replace directive; Berth builds %s\n", c.dir, path, theirs.version, ours.version)
				left++
			case semver.Compare(theirs.version, ours.version) > 0:
				fmt.Printf("%s: %s %s is newer than Berth's %s; raise Berth's (go get %s@%s)\n", c.dir, path, theirs.version, ours.version, path, theirs.version)
				left++
			default:
				fmt.Printf("%s: %s %s, Berth builds %s\n", c.dir, path, theirs.version, ours.version)
				raise = append(raise, path+"@"+ours.version)
			}
		}
		if len(raise) == 0 {
			continue
		}
		if !fix {
			left += len(raise)
			continue
		}
		if _, err := gocmd(c.dir, append([]string{"get"}, raise...)...); err != nil {
			return 0, fmt.Errorf("raising %s: %w", c.dir, err)
		}
		if _, err := gocmd(c.dir, "mod", "tidy"); err != nil {
			return 0, fmt.Errorf("tidying %s: %w", c.dir, err)
		}
		fmt.Printf("%s: raised %d module(s)\n", c.dir, len(raise))
	}
	return left, nil
}

// keeps reports whether the consumer keeps the module path at its own version.
func (c consumer) keeps(path string) bool {
	for _, prefix := range c.own {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// alignToolchains checks that every module beside Berth's (the tools and
// the examples) names Berth's Go toolchain in its go.mod, since packages
// compiled by two toolchains share nothing, and with fix names it there.
func alignToolchains(fix bool) (int, error) {
	want, err := toolchain(".")
	if err != nil {
		return 0, err
	}
	tools, err := filepath.Glob("hack/tools/*/go.mod")
	if err != nil {
		return 0, err
	}
	examples, err := filepath.Glob("examples/*/go.mod")
	if err != nil {
		return 0, err
	}
	left := 0
	for _, gomod := range append(tools, examples...) {
		dir := filepath.Dir(gomod)
		got, err := toolchain(dir)
		if err != nil {
			return 0, err
		}
		if got == want {
			continue
		}
		if !fix {
			fmt.Printf("%s: names toolchain %q, Berth %q\n", dir, got, want)
			left++
			continue
		}
		if _, err := gocmd(dir, "mod", "edit", "-toolchain="+want); err != nil {
			return 0, err
		}
		fmt.Printf("%s: now names toolchain %s\n", dir, want)
	}
	return left, nil
}

// toolchain reads the toolchain line of dir's go.mod.
func toolchain(dir string) (string, error) {
	out, err := gocmd(dir, "mod", "edit", "-json")
	if err != nil {
		return "", err
	}
	var mod struct{ Toolchain string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("reading %s/go.mod: %w", dir, err)
	}
	return mod.Toolchain, nil
}

// buildModules lists the modules that provide the packages a build of
// patterns in dir compiles, the main module left out.
func buildModules(dir string, patterns ...string) (map[string]module, error) {
	args := append([]string{"list", "-deps", "-f",
		`{{with .Module}}{{if not .Main}}{{.Path}} {{with .Replace}}{{.Version}} replaced{{else}}{{.Version}}{{end}}{{end}}{{end}}`}, patterns...)
	out, err := gocmd(dir, args...)
	if err != nil {
		return nil, err
	}
	mods := map[string]module{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		mods[f[0]] = module{path: f[0], version: f[1], replaced: len(f) > 2}
	}
	return mods, sc.Err()
}

func gocmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s in %s: %w", strings.Join(args, " "), dir, err)
	}
	return out, nil
}

func sortedKeys(m map[string]module) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
