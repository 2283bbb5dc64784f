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

package main

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/berth-io/berth/test/perf/throughput"
)

// baseScheduler is the scheduler under test run from --berth-base-bin.
const baseScheduler = "berth-base"

// checkBase makes sure, when berth-base is among the schedulers, that its
// binary takes every flag the bench passes to berth: a base ref may predate
// some of them, and the comparison must run both builds with the same
// arguments or not at all.
func checkBase(ctx context.Context, f benchFlags, self string) error {
	if !slices.Contains(strings.Split(f.schedulers, ","), baseScheduler) {
		return nil
	}
	if f.baseBin == "" {
		return fmt.Errorf("scheduler %s needs --berth-base-bin", baseScheduler)
	}
	s, _, err := scheduler(baseScheduler, f, self)
	if err != nil {
		return err
	}
	args, err := s.Args(throughput.Env{Kubeconfig: "kubeconfig"})
	if err != nil {
		return err
	}
	// `berth manager -h` prints the usage and exits non-zero; the usage is
	// what counts.
	usage, _ := exec.CommandContext(ctx, f.baseBin, "manager", "-h").CombinedOutput()
	if missing := missingFlags(flagNames(string(usage)), args); len(missing) > 0 {
		return fmt.Errorf("the base build %s has no flag %s that the bench passes to berth manager; drop it from --berth-args or pick a later base",
			f.baseBin, strings.Join(missing, ", "))
	}
	return nil
}

// flagNames returns the flags a Go flag package usage text lists: the
// lines that start with two spaces and a dash.
func flagNames(usage string) map[string]bool {
	names := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(usage))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "  -") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(line, " -"), " ")
		names[strings.TrimSpace(name)] = true
	}
	return names
}

// missingFlags returns, in order, the --flags of args (after the
// subcommand) that known does not list.
func missingFlags(known map[string]bool, args []string) []string {
	var missing []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !known[name] && !slices.Contains(missing, "--"+name) {
			missing = append(missing, "--"+name)
		}
	}
	return missing
}
