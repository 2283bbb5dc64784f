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

package convert

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/berth-io/berth/internal/registries"
)

// Set UPDATE_GOLDEN=1 to rewrite testdata/*.golden from the current output.
const updateGoldenEnv = "UPDATE_GOLDEN"

func TestConvert(t *testing.T) {
	tests := []struct {
		name string // testdata/<name>.yaml is the input, testdata/<name>.golden the output or error
		// wantErr says the conversion fails; the golden file then holds the error.
		wantErr bool
		// wantWarnings are fragments, one per expected warning, in order.
		wantWarnings []string
	}{
		{name: "default", wantWarnings: []string{"the profiles serve default-scheduler as berth-default-scheduler"}},
		{name: "profiles", wantWarnings: []string{
			"parallelism is not part of a SchedulingProfile; it is replaced by the `berth manager --parallelism` flag",
			"leaderElection", "clientConnection", "the profiles serve default-scheduler as berth-default-scheduler, bin-packing as berth-bin-packing",
		}},
		{name: "typo", wantErr: true},
		{name: "wrong-version", wantErr: true},
		{name: "extenders", wantWarnings: []string{
			"extenders[1].httpTimeout 2m0s is cut to 30s, Berth's maximum", "take over",
		}},
		{name: "extenders-bad", wantErr: true},
		{name: "unknown-plugins", wantErr: true},
		{name: "queuesort", wantErr: true},
		{name: "bad-args", wantErr: true},
		{name: "dra", wantWarnings: []string{"take over"}},
		{name: "dra-bad-args", wantErr: true},
		{name: "workloads", wantWarnings: []string{"take over"}},
		{name: "misplaced", wantErr: true},
		{name: "duplicate", wantErr: true},
		{name: "empty", wantErr: true},
		{name: "trimaran", wantWarnings: []string{"insecureSkipVerify", "take over"}},
		{name: "trimaran-token", wantErr: true},
	}
	c := New(registries.InTree())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tc.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			res, err := c.Convert(t.Context(), in)
			switch {
			case tc.wantErr && err == nil:
				t.Fatalf("Convert succeeded, want an error")
			case tc.wantErr:
				got.WriteString(err.Error() + "\n")
			case err != nil:
				t.Fatalf("Convert: %v", err)
			default:
				if err := Write(&got, res.Profiles); err != nil {
					t.Fatal(err)
				}
			}
			if res != nil {
				if len(res.Warnings) != len(tc.wantWarnings) {
					t.Fatalf("warnings %q, want %d", res.Warnings, len(tc.wantWarnings))
				}
				for i, w := range tc.wantWarnings {
					if !strings.Contains(res.Warnings[i], w) {
						t.Errorf("warning %d = %q, want it to contain %q", i, res.Warnings[i], w)
					}
				}
			}
			compareGolden(t, filepath.Join("testdata", tc.name+".golden"), got.Bytes())
		})
	}
}

func TestSchedulerNames(t *testing.T) {
	tests := []struct {
		name  string
		input string // testdata/<input>.yaml
		names map[string]string
		// want are the converted profiles' names; wantErr a fragment of the error instead.
		want        []string
		wantRenamed string
		wantErr     string
		wantNameErr bool
	}{
		{name: "upstream names are not taken over by default", input: "profiles",
			want: []string{"berth-default-scheduler", "berth-bin-packing"}, wantRenamed: "default-scheduler as berth-default-scheduler, bin-packing as berth-bin-packing"},
		{name: "the only profile keeps the name asked for", input: "default", names: map[string]string{"": "default-scheduler"},
			want: []string{"default-scheduler"}},
		{name: "each upstream name mapped", input: "profiles", names: map[string]string{"default-scheduler": "default-scheduler", "bin-packing": "packing"},
			want: []string{"default-scheduler", "packing"}},
		{name: "names not mapped are prefixed", input: "profiles", names: map[string]string{"bin-packing": "bin-packing"},
			want: []string{"berth-default-scheduler", "bin-packing"}, wantRenamed: "default-scheduler as berth-default-scheduler"},
		{name: "a bare name with two profiles", input: "profiles", names: map[string]string{"": "x"},
			wantErr: "has 2 profiles (default-scheduler, bin-packing): use UPSTREAM=NAME", wantNameErr: true},
		{name: "a name no profile serves", input: "profiles", names: map[string]string{"nope": "x"},
			wantErr: "names schedulerName nope, which no profile", wantNameErr: true},
		{name: "two profiles on one name", input: "profiles", names: map[string]string{"bin-packing": "berth-default-scheduler"},
			wantErr: "Duplicate value"},
		{name: "a name that is no DNS subdomain", input: "default", names: map[string]string{"": "Not_A_Name"},
			wantErr: "must be a DNS subdomain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.input+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(registries.InTree(), WithSchedulerNames(tt.names)).Convert(t.Context(), in)
			if tt.wantErr != "" {
				var nameErr *SchedulerNameError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &nameErr) != tt.wantNameErr {
					t.Fatalf("Convert error = %v, want one containing %q (a SchedulerNameError: %v)", err, tt.wantErr, tt.wantNameErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range res.Profiles {
				if p.Spec.SchedulerName != p.Name {
					t.Errorf("profile %s serves schedulerName %s", p.Name, p.Spec.SchedulerName)
				}
				got = append(got, p.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("profiles = %v, want %v", got, tt.want)
			}
			var renamed []string
			for _, w := range res.Warnings {
				if strings.Contains(w, "take over") {
					renamed = append(renamed, w)
				}
			}
			switch {
			case tt.wantRenamed == "" && len(renamed) > 0:
				t.Errorf("warnings %q, want none about renaming", renamed)
			case tt.wantRenamed != "" && (len(renamed) != 1 || !strings.Contains(renamed[0], "the profiles serve "+tt.wantRenamed+", so that")):
				t.Errorf("warnings %q, want one naming %s", renamed, tt.wantRenamed)
			}
		})
	}
}

// TestConvertedProfilesPassTheWebhook feeds convert's output back to the
// Validator, so convert never writes a profile the webhook would reject.
func TestConvertedProfilesPassTheWebhook(t *testing.T) {
	c := New(registries.InTree())
	for _, name := range []string{"profiles", "extenders", "dra"} {
		in, err := os.ReadFile(filepath.Join("testdata", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Convert(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Profiles {
			if errs := c.validator.ValidateProfileSpec(t.Context(), p.Name, &p.Spec, nil); len(errs) > 0 {
				t.Errorf("%s: profile %q: %v", name, p.Name, errs)
			}
		}
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if os.Getenv(updateGoldenEnv) != "" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with %s=1 to create it)", err, updateGoldenEnv)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with %s=1 to update):\n--- got\n%s\n--- want\n%s", path, updateGoldenEnv, got, want)
	}
}
