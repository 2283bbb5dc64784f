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
	"os"
	"path/filepath"
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
		{name: "default"},
		{name: "profiles", wantWarnings: []string{
			"parallelism is not part of a SchedulingProfile; it is replaced by the `berth manager --parallelism` flag",
			"leaderElection", "clientConnection",
		}},
		{name: "typo", wantErr: true},
		{name: "wrong-version", wantErr: true},
		{name: "extenders", wantWarnings: []string{
			"extenders[1].httpTimeout 2m0s is cut to 30s, Berth's maximum",
		}},
		{name: "extenders-bad", wantErr: true},
		{name: "unknown-plugins", wantErr: true},
		{name: "queuesort", wantErr: true},
		{name: "bad-args", wantErr: true},
		{name: "dra"},
		{name: "dra-bad-args", wantErr: true},
		{name: "workloads"},
		{name: "misplaced", wantErr: true},
		{name: "duplicate", wantErr: true},
		{name: "empty", wantErr: true},
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
