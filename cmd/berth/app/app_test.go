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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// stock returns the command line of the stock berth binary.
func stock(t *testing.T) *Command {
	t.Helper()
	c, err := NewCommand(WithVersion("v0.0.0-test"), WithCommit("0123abc"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// noArgs is a test plugin: a Score plugin that takes no args.
type noArgs struct{}

func (noArgs) Name() string { return "NoArgs" }

func (noArgs) Score(context.Context, *framework.CycleState, *v1.Pod, *framework.NodeInfo) (int64, *framework.Status) {
	return 0, nil
}

func (noArgs) ScoreExtensions() framework.ScoreExtensions { return nil }

func newNoArgs(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin NoArgs", raw); err != nil {
		return nil, err
	}
	return noArgs{}, nil
}

func newNoStrategy([]byte) (strategies.Strategy, error) {
	return nil, errors.New("not built in this test")
}

func TestNewCommand(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantErr string
	}{
		{name: "stock"},
		{name: "a plugin and a strategy", opts: []Option{WithPlugin("NoArgs", newNoArgs), WithStrategy("NoStrategy", newNoStrategy)}},
		{name: "an in-tree plugin's name", opts: []Option{WithPlugin("NodeResourcesFit", newNoArgs)},
			wantErr: `adding plugin "NodeResourcesFit": plugin "NodeResourcesFit" is already registered`},
		{name: "one plugin twice", opts: []Option{WithPlugin("NoArgs", newNoArgs), WithPlugin("NoArgs", newNoArgs)},
			wantErr: `adding plugin "NoArgs": plugin "NoArgs" is already registered`},
		{name: "an in-tree strategy's name", opts: []Option{WithStrategy("PodLifeTime", newNoStrategy)},
			wantErr: `adding strategy "PodLifeTime": strategy "PodLifeTime" is already registered`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCommand(tt.opts...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("NewCommand = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range tt.opts {
				var opts options
				o(&opts)
				for _, p := range opts.plugins {
					if c.registries.Plugins[p.Name] == nil {
						t.Errorf("plugin %s is not registered", p.Name)
					}
				}
				for _, s := range opts.strategies {
					if c.registries.Strategies[s.Name] == nil {
						t.Errorf("strategy %s is not registered", s.Name)
					}
				}
			}
		})
	}
}

// TestValidateKnowsAddedPlugins checks that berth validate of a binary with
// a plugin of its own accepts profiles enabling it and checks its args.
func TestValidateKnowsAddedPlugins(t *testing.T) {
	c, err := NewCommand(WithPlugin("NoArgs", newNoArgs))
	if err != nil {
		t.Fatal(err)
	}
	const profile = "apiVersion: scheduling.berth.io/v1alpha1\nkind: SchedulingProfile\nmetadata: {name: p}\n" +
		"spec: {plugins: {score: {enabled: [{name: NoArgs}]}}%s}\n"
	tests := []struct {
		name       string
		cmd        *Command
		config     string
		wantCode   int
		wantStdout string
	}{
		{name: "enabled", cmd: c, wantCode: 0, wantStdout: "1 object checked in 1 file: all valid"},
		{name: "bad args", cmd: c, config: ", pluginConfig: [{name: NoArgs, args: {weight: 1}}]", wantCode: 1,
			wantStdout: `spec.pluginConfig[0].args: Invalid value: initializing plugin "NoArgs": decoding args of plugin NoArgs: json: unknown field "weight"`},
		{name: "unknown to the stock binary", cmd: stock(t), wantCode: 1, wantStdout: `unknown plugin "NoArgs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			in := strings.NewReader(fmt.Sprintf(profile, tt.config))
			if code := tt.cmd.Run(t.Context(), []string{"validate", "-f", "-"}, in, &stdout, &stderr); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stdout %q, stderr %q", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tt.wantStdout)
			}
		})
	}
}

// TestConvertKnowsAddedPlugins checks that berth convert of a binary with
// a plugin of its own converts profiles that enable it.
func TestConvertKnowsAddedPlugins(t *testing.T) {
	c, err := NewCommand(WithPlugin("NoArgs", newNoArgs))
	if err != nil {
		t.Fatal(err)
	}
	const config = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		"profiles:\n- schedulerName: mine\n  plugins:\n    score:\n      enabled:\n      - name: NoArgs\n"
	tests := []struct {
		name       string
		cmd        *Command
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "known", cmd: c, wantCode: 0, wantStdout: "name: NoArgs"},
		{name: "unknown to the stock binary", cmd: stock(t), wantCode: 1, wantStderr: "Berth does not implement these plugins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := tt.cmd.Run(t.Context(), []string{"convert", "-f", "-"}, strings.NewReader(config), &stdout, &stderr); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stdout %q, stderr %q", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stdout %q and stderr %q, want %q and %q in them", stdout.String(), stderr.String(), tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "berth v0.0.0-test (commit 0123abc, go"},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "Commands:"},
		{name: "help lists validate", args: []string{"help"}, wantCode: 0, wantStdout: "validate  check Berth's objects"},
		{name: "validate", args: []string{"validate", "-f", "../../../internal/validate/testdata/good"}, wantCode: 0, wantStdout: "all valid"},
		{name: "no command", args: nil, wantCode: 2, wantStderr: "Usage:"},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "convert", args: []string{"convert", "-f", "../../../internal/convert/testdata/profiles.yaml"}, wantCode: 0,
			wantStdout: "kind: SchedulingProfile\nmetadata:\n  name: berth-bin-packing", wantStderr: "warning: parallelism"},
		{name: "convert keeping upstream names", args: []string{"convert", "-f", "../../../internal/convert/testdata/profiles.yaml",
			"--scheduler-name", "default-scheduler=default-scheduler", "--scheduler-name", "bin-packing=packing"}, wantCode: 0,
			wantStdout: "metadata:\n  name: packing\nspec:"},
		{name: "convert naming a profile the configuration lacks", args: []string{"convert", "-f", "../../../internal/convert/testdata/profiles.yaml",
			"--scheduler-name", "nope=x"}, wantCode: 2, wantStderr: "--scheduler-name names schedulerName nope, which no profile"},
		{name: "convert with a malformed --scheduler-name", args: []string{"convert", "-f", "../../../internal/convert/testdata/profiles.yaml",
			"--scheduler-name", "=x"}, wantCode: 2, wantStderr: `want UPSTREAM=NAME or NAME, got "=x"`},
		{name: "convert without -f", args: []string{"convert"}, wantCode: 2, wantStderr: "Usage: berth convert"},
		{name: "convert help", args: []string{"convert", "-h"}, wantCode: 0, wantStderr: "-f string"},
		{name: "convert missing file", args: []string{"convert", "-f", "testdata/none.yaml"}, wantCode: 1, wantStderr: "no such file"},
		{name: "convert without equivalent", args: []string{"convert", "-f", "../../../internal/convert/testdata/extenders-bad.yaml"}, wantCode: 1,
			wantStderr: "has no SchedulingProfile equivalent:\nextenders[0].weight: Invalid"},
		{name: "convert a DeschedulerPolicy", args: []string{"convert", "-f", "../../../internal/convert/testdata/descheduler-policy.yaml", "--interval", "2m"}, wantCode: 0,
			wantStdout: "kind: RebalancePolicy\nmetadata:\n  name: balance", wantStderr: "warning: every RebalancePolicy is written with dryRun: true"},
		{name: "convert a DeschedulerPolicy with a bad interval", args: []string{"convert", "-f", "../../../internal/convert/testdata/descheduler-policy.yaml", "--interval", "0s"}, wantCode: 2,
			wantStderr: "--interval must be at least 1m"},
		{name: "convert a DeschedulerPolicy with too short an interval", args: []string{"convert", "-f", "../../../internal/convert/testdata/descheduler-policy.yaml", "--interval", "30s"}, wantCode: 2,
			wantStderr: "--interval must be at least 1m"},
		{name: "convert a DeschedulerPolicy without equivalent", args: []string{"convert", "-f", "../../../internal/convert/testdata/descheduler-unsupported.yaml"}, wantCode: 1,
			wantStderr: "has no RebalancePolicy equivalent:\nnodeSelector: Forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := stock(t).Run(t.Context(), tc.args, strings.NewReader(""), &stdout, &stderr); code != tc.wantCode {
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
	in, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "convert", "testdata", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "profiles.yaml")
	var stdout, stderr bytes.Buffer
	if code := stock(t).runConvert(t.Context(), []string{"-f", "-", "-o", out, "--scheduler-name", "default-scheduler"}, bytes.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("runConvert = %d, stderr %q", code, stderr.String())
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("stdout %q and stderr %q, want both empty", stdout.String(), stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "name: default-scheduler"; !strings.Contains(string(got), want) {
		t.Errorf("output %q does not contain %q", got, want)
	}
}
