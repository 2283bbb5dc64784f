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
	"strings"
	"testing"

	"github.com/berth-io/berth/cmd/berth/app"
)

// TestValidate runs the binary's `validate` in-process: it knows
// NodeLabelScore, and reports bad args at their field paths.
func TestValidate(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		wantCode   int
		wantStdout []string
	}{
		{name: "a profile enabling the plugin", file: "testdata/profile.yaml", wantCode: 0,
			wantStdout: []string{"1 object checked in 1 file: all valid\n"}},
		{name: "bad args", file: "testdata/profile-bad-args.yaml", wantCode: 1, wantStdout: []string{
			"SchedulingProfile missing-label: spec.pluginConfig[0].args.label: Required value",
			"SchedulingProfile bad-label: spec.pluginConfig[0].args.label: Invalid value: \"a/b/c\"",
			"SchedulingProfile unknown-field: spec.pluginConfig[0].args: Invalid value: ",
			"3 objects checked in 1 file: 3 invalid, 3 errors\n",
		}},
	}
	cmd, err := app.NewCommand(options()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := cmd.Run(t.Context(), []string{"validate", "-f", tt.file}, strings.NewReader(""), &stdout, &stderr); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stdout %q, stderr %q", code, tt.wantCode, stdout.String(), stderr.String())
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), w)
				}
			}
		})
	}
}

// TestRegisteringTwiceFails checks that a name taken in-tree is refused.
func TestRegisteringTwiceFails(t *testing.T) {
	_, err := app.NewCommand(append(options(), options()...)...)
	if err == nil || !strings.Contains(err.Error(), `plugin "NodeLabelScore" is already registered`) {
		t.Errorf("NewCommand = %v, want the duplicate named", err)
	}
}
