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
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpus is berth validate's test corpus.
const corpus = "../../../internal/validate/testdata"

func TestValidate(t *testing.T) {
	bad := filepath.Join(corpus, "bad", "unknown-filter-plugin.yaml")
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{name: "good directory", args: []string{"-f", filepath.Join(corpus, "good")}, wantCode: 0,
			wantStdout: []string{"13 objects checked in 10 files: all valid; 1 object of other kinds skipped\n"}},
		{name: "bad file", args: []string{"-f", bad}, wantCode: 1,
			wantStdout: []string{bad + `: SchedulingProfile unknown-filter-plugin: spec.plugins.filter.enabled[0].name: Invalid value: unknown plugin "NoSuchPlugin"; known Filter plugins: DynamicResources,`,
				"1 object checked in 1 file: 1 invalid, 1 error\n"}},
		{name: "strategy args", args: []string{"-f", filepath.Join(corpus, "bad", "rebalance-args-invalid.yaml")}, wantCode: 1,
			wantStdout: []string{"rebalance-args-invalid.yaml: RebalancePolicy bad-strategy-args: spec.strategies[1].args.podRestartThreshold: Invalid value: 0: must be at least 1\n",
				"1 object checked in 1 file: 1 invalid, 2 errors\n"}},
		{name: "-f repeats", args: []string{"-f", filepath.Join(corpus, "good", "weight.yaml"), "-f", bad}, wantCode: 1,
			wantStdout: []string{"2 objects checked in 2 files: 1 invalid, 1 error"}},
		{name: "conflicts across files", args: []string{"-f", filepath.Join(corpus, "good", "profile-bin-packing.yaml"), "-f", filepath.Join(corpus, "good", "weight.yaml"), "-f", "-"},
			stdin:      "apiVersion: scheduling.berth.io/v1alpha1\nkind: PluginWeight\nmetadata: {name: pack-even-harder}\nspec: {profileRef: {name: bin-packing}, plugin: NodeResourcesFit, weight: 9}\n",
			wantCode:   1,
			wantStdout: []string{"<stdin>: PluginWeight pack-even-harder: spec.plugin: Conflict: PluginWeight pack-harder, which is older, already sets NodeResourcesFit in SchedulingProfile bin-packing\n"}},
		{name: "stdin", args: []string{"-f", "-"}, stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", wantCode: 0,
			wantStdout: []string{"0 objects checked in 1 file: all valid; 1 object of other kinds skipped"}},
		{name: "multi-document file names the document", args: []string{"-f", filepath.Join(corpus, "cross", "duplicate.yaml")}, wantCode: 1,
			wantStdout: []string{"duplicate.yaml (document 2): PodGroup ml/gang: metadata.name: Duplicate value:"}},
		{name: "not a Kubernetes object", args: []string{"-f", filepath.Join(corpus, "bad", "not-an-object.yaml")}, wantCode: 1,
			wantStdout: []string{"not-an-object.yaml: not a Kubernetes object: a list, not a mapping\n"}},
		{name: "without -f", args: nil, wantCode: 2, wantStderr: "Usage: berth validate"},
		{name: "an argument", args: []string{"-f", bad, "extra"}, wantCode: 2, wantStderr: "Usage: berth validate"},
		{name: "bad flag", args: []string{"--nope"}, wantCode: 2, wantStderr: "flag provided but not defined: -nope"},
		{name: "bad output", args: []string{"-f", bad, "-o", "yaml"}, wantCode: 2, wantStderr: `-o must be text or json, got "yaml"`},
		{name: "missing path", args: []string{"-f", "testdata/none.yaml"}, wantCode: 2, wantStderr: "berth validate: reading testdata/none.yaml: stat testdata/none.yaml: no such file or directory"},
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "Exit codes: 0 valid, 1 invalid, 2 bad command line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := stock(t).runValidate(t.Context(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr); code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stdout %q, stderr %q", code, tc.wantCode, stdout.String(), stderr.String())
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), w)
				}
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

// TestValidateOneErrorALine checks the text output's shape on the whole bad corpus.
func TestValidateOneErrorALine(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := stock(t).runValidate(t.Context(), []string{"-f", filepath.Join(corpus, "bad")}, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Fatalf("exit code %d, want 1; stderr %q", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	files, err := filepath.Glob(filepath.Join(corpus, "bad", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, filepath.Join(corpus, "bad")+string(os.PathSeparator)) {
			t.Errorf("line %q does not start with its file", l)
		}
	}
	// Each bad file holds one object, and each object is invalid.
	want := fmt.Sprintf("%[1]d objects checked in %[1]d files: %[1]d invalid, ", len(files))
	if summary := lines[len(lines)-1]; len(files) < 30 || !strings.HasPrefix(summary, want) {
		t.Errorf("summary %q for %d files, want it to start %q", summary, len(files), want)
	}
}

func TestValidateJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := stock(t).runValidate(t.Context(), []string{"-o", "json", "-f", filepath.Join(corpus, "cross", "weight-conflict.yaml")}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr %q", code, stderr.String())
	}
	var got jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if got.Files != 1 || got.Checked != 3 || got.Invalid != 1 || len(got.Findings) != 1 {
		t.Fatalf("report %+v", got)
	}
	f := got.Findings[0]
	if f.Kind != "PluginWeight" || f.Name != "fit-by-label" || f.Stage != "controller" || f.Field != "spec.plugin" ||
		f.Origin.Document != 3 || f.Origin.Line != 17 || !strings.HasPrefix(f.Message, "Conflict: ") {
		t.Errorf("finding %+v", f)
	}

	stdout.Reset()
	if code := stock(t).runValidate(t.Context(), []string{"-o", "json", "-f", filepath.Join(corpus, "good", "weight.yaml")}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
	if !strings.Contains(stdout.String(), `"findings": []`) {
		t.Errorf("a clean report's findings are not []: %s", stdout.String())
	}
}
