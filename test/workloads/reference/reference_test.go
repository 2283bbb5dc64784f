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

package reference_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/berth-io/berth/test/workloads"
	"github.com/berth-io/berth/test/workloads/reference"
)

// RecordEnv, set to 1, makes TestReference re-record the goldens.
const RecordEnv = "BERTH_WORKLOADS_RECORD"

// ScenariosEnv, when set, limits TestReference to the comma-separated scenarios.
const ScenariosEnv = "BERTH_WORKLOADS_SCENARIOS"

// FreshEnv, set to 1, makes TestReference forget the earlier recordings:
// by default the fields they saw vary stay marked nondeterministic.
const FreshEnv = "BERTH_WORKLOADS_FRESH"

// RunsEnv, when set, is how many times each scenario runs (default 2); the
// fields that differ between runs are marked nondeterministic.
const RunsEnv = "BERTH_WORKLOADS_RUNS"

// TestReference re-records the goldens of package workloads from upstream
// kube-scheduler: each scenario of workloads.RecordedScenarios twice, on
// fresh
// control planes, with the gates Gates gives. It needs
// etcd, kube-apiserver and kube-scheduler v1.37.1 in KUBEBUILDER_ASSETS
// (default bin/k8s at the repository's root) and runs only with
// BERTH_WORKLOADS_RECORD=1; see docs/testing.md.
func TestReference(t *testing.T) {
	if os.Getenv(RecordEnv) != "1" {
		t.Skipf("set %s=1 to re-record the goldens against kube-scheduler v1.37.1", RecordEnv)
	}
	binDir := os.Getenv("KUBEBUILDER_ASSETS")
	if binDir == "" {
		binDir = filepath.Join("..", "..", "..", "bin", "k8s")
	}
	binDir, err := filepath.Abs(binDir)
	if err != nil {
		t.Fatal(err)
	}
	runs := 2
	if v := os.Getenv(RunsEnv); v != "" {
		if runs, err = strconv.Atoi(v); err != nil || runs < 1 {
			t.Fatalf("%s=%q is no positive number", RunsEnv, v)
		}
	}
	var only []string
	if v := os.Getenv(ScenariosEnv); v != "" {
		only = strings.Split(v, ",")
		for _, name := range only {
			if _, ok := workloads.ScenarioNamed(name); !ok {
				t.Fatalf("%s names scenario %q, which does not exist", ScenariosEnv, name)
			}
		}
	}
	for _, s := range workloads.RecordedScenarios() {
		if only != nil && !slices.Contains(only, s.Name) {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			var obs []workloads.Observation
			for i := range runs {
				dir := filepath.Join(t.TempDir(), "run")
				o, err := reference.Run(t.Context(), s, reference.WithBinDir(binDir), reference.WithDir(dir),
					reference.WithLogger(testr.New(t)))
				if err != nil {
					if log, readErr := os.ReadFile(filepath.Join(dir, "logs", "kube-scheduler.log")); readErr == nil {
						t.Logf("kube-scheduler's log:\n%s", tail(string(log), 8000))
					}
					t.Fatalf("run %d: %v", i+1, err)
				}
				obs = append(obs, o)
			}
			golden := obs[0]
			for i, other := range obs[1:] {
				// What varied, with the values, for whoever reads the log.
				if diffs := workloads.Differences(golden.Paths(workloads.PlaceExact, true), other.Paths(workloads.PlaceExact, true)); len(diffs) > 0 {
					t.Logf("run 1 != run %d:\n  %s", i+2, strings.Join(diffs, "\n  "))
				}
			}
			golden.MarkNondeterministic(obs[1:]...)
			if os.Getenv(FreshEnv) != "1" {
				// Nondeterminism seen in earlier recordings still counts.
				if earlier, err := workloads.ReadGolden(filepath.Join("..", workloads.GoldenDir), s.Name); err == nil {
					golden.MergeRecording(earlier)
				}
			}
			if err := workloads.WriteGolden(filepath.Join("..", workloads.GoldenDir), golden); err != nil {
				t.Fatal(err)
			}
			if len(golden.Nondeterministic) > 0 {
				t.Logf("nondeterministic: %s", strings.Join(golden.Nondeterministic, "\n  "))
			}
		})
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func TestGates(t *testing.T) {
	for _, s := range workloads.AllScenarios() {
		gates, runtimeConfig := reference.Gates(s)
		wantGates, wantConfig := reference.FeatureGates, reference.RuntimeConfig
		if s.Composite() {
			wantGates, wantConfig = reference.CompositeFeatureGates, reference.CompositeRuntimeConfig
		}
		if gates != wantGates || runtimeConfig != wantConfig {
			t.Errorf("Gates(%s) = %q, %q; want %q, %q", s.Name, gates, runtimeConfig, wantGates, wantConfig)
		}
	}
	if want := "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"; reference.CompositeFeatureGates != want {
		t.Errorf("CompositeFeatureGates = %q, want %q", reference.CompositeFeatureGates, want)
	}
	if want := "scheduling.k8s.io/v1beta1=true,scheduling.k8s.io/v1alpha3=true"; reference.CompositeRuntimeConfig != want {
		t.Errorf("CompositeRuntimeConfig = %q, want %q", reference.CompositeRuntimeConfig, want)
	}
}
