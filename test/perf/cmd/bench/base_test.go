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
	"slices"
	"testing"
)

// managerUsage is the shape of `berth manager -h`.
const managerUsage = `Usage: berth manager [flags]

Runs Berth's scheduler, controllers and webhook.

Flags:
  -enable-webhook
    	Serve the validating webhook. (default true)
  -kube-api-qps float
    	Queries per second to the apiserver. (default -1)
  -kubeconfig string
    	Path to a kubeconfig.
  -zap-devel
    	Development mode.
`

func TestFlagNames(t *testing.T) {
	got := flagNames(managerUsage)
	for _, want := range []string{"enable-webhook", "kube-api-qps", "kubeconfig", "zap-devel"} {
		if !got[want] {
			t.Errorf("flagNames: %q missing from %v", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("flagNames = %v, want 4 flags", got)
	}
}

func TestMissingFlags(t *testing.T) {
	known := flagNames(managerUsage)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"all known", []string{"manager", "--kubeconfig=k", "--enable-webhook=false", "--kube-api-qps=5000"}, nil},
		{"single dash and bare booleans", []string{"-kubeconfig=k", "--enable-webhook"}, nil},
		{"unknown ones in order, once", []string{"manager", "--default-profile=x", "--kubeconfig=k", "--pprof-bind-address=a", "--default-profile=y"},
			[]string{"--default-profile", "--pprof-bind-address"}},
		{"no flags", []string{"manager"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := missingFlags(known, tc.args); !slices.Equal(got, tc.want) {
				t.Errorf("missingFlags = %v, want %v", got, tc.want)
			}
		})
	}
}
