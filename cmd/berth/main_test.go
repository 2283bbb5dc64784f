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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "berth "},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "Commands:"},
		{name: "help lists validate", args: []string{"help"}, wantCode: 0, wantStdout: "validate  check Berth's objects"},
		{name: "validate", args: []string{"validate", "-f", "../../internal/validate/testdata/good"}, wantCode: 0, wantStdout: "all valid"},
		{name: "no command", args: nil, wantCode: 2, wantStderr: "Usage:"},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "convert", args: []string{"convert", "-f", "../../internal/convert/testdata/profiles.yaml"}, wantCode: 0,
			wantStdout: "kind: SchedulingProfile\nmetadata:\n  name: berth-bin-packing", wantStderr: "warning: parallelism"},
		{name: "convert keeping upstream names", args: []string{"convert", "-f", "../../internal/convert/testdata/profiles.yaml",
			"--scheduler-name", "default-scheduler=default-scheduler", "--scheduler-name", "bin-packing=packing"}, wantCode: 0,
			wantStdout: "metadata:\n  name: packing\nspec:"},
		{name: "convert naming a profile the configuration lacks", args: []string{"convert", "-f", "../../internal/convert/testdata/profiles.yaml",
			"--scheduler-name", "nope=x"}, wantCode: 2, wantStderr: "--scheduler-name names schedulerName nope, which no profile"},
		{name: "convert with a malformed --scheduler-name", args: []string{"convert", "-f", "../../internal/convert/testdata/profiles.yaml",
			"--scheduler-name", "=x"}, wantCode: 2, wantStderr: `want UPSTREAM=NAME or NAME, got "=x"`},
		{name: "convert without -f", args: []string{"convert"}, wantCode: 2, wantStderr: "Usage: berth convert"},
		{name: "convert help", args: []string{"convert", "-h"}, wantCode: 0, wantStderr: "-f string"},
		{name: "convert missing file", args: []string{"convert", "-f", "testdata/none.yaml"}, wantCode: 1, wantStderr: "no such file"},
		{name: "convert without equivalent", args: []string{"convert", "-f", "../../internal/convert/testdata/extenders-bad.yaml"}, wantCode: 1,
			wantStderr: "has no SchedulingProfile equivalent:\nextenders[0].weight: Invalid"},
		{name: "convert a DeschedulerPolicy", args: []string{"convert", "-f", "../../internal/convert/testdata/descheduler-policy.yaml", "--interval", "2m"}, wantCode: 0,
			wantStdout: "kind: RebalancePolicy\nmetadata:\n  name: balance", wantStderr: "warning: every RebalancePolicy is written with dryRun: true"},
		{name: "convert a DeschedulerPolicy with a bad interval", args: []string{"convert", "-f", "../../internal/convert/testdata/descheduler-policy.yaml", "--interval", "0s"}, wantCode: 2,
			wantStderr: "--interval must be at least 1m"},
		{name: "convert a DeschedulerPolicy with too short an interval", args: []string{"convert", "-f", "../../internal/convert/testdata/descheduler-policy.yaml", "--interval", "30s"}, wantCode: 2,
			wantStderr: "--interval must be at least 1m"},
		{name: "convert a DeschedulerPolicy without equivalent", args: []string{"convert", "-f", "../../internal/convert/testdata/descheduler-unsupported.yaml"}, wantCode: 1,
			wantStderr: "has no RebalancePolicy equivalent:\nnodeSelector: Forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != tc.wantCode {
				t.Errorf("run(%q) = %d, want %d", tc.args, code, tc.wantCode)
			}
			if !strings.Contains(stdout.String(), tc.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tc.wantStdout)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

func TestConvertStdinToFile(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("..", "..", "internal", "convert", "testdata", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "profiles.yaml")
	var stdout, stderr bytes.Buffer
	if code := runConvert(t.Context(), []string{"-f", "-", "-o", out, "--scheduler-name", "default-scheduler"}, bytes.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("runConvert = %d, stderr %q", code, stderr.String())
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("stdout %q and stderr %q, want both empty: the profile keeps the name asked for", stdout.String(), stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "name: default-scheduler"; !strings.Contains(string(got), want) {
		t.Errorf("output %q does not contain %q", got, want)
	}
}
