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
	"flag"
	"io"
	"slices"
	"testing"
	"time"
)

func TestApplyQuick(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		wantWorkloads string
		wantTimeout   time.Duration
	}{
		{"defaults", []string{"--quick"}, "SchedulingBasic,SteadyArrival", quickTimeout},
		{"explicit workloads and timeout win", []string{"--quick", "--workloads=PodAntiAffinity", "--timeout=30s"}, "PodAntiAffinity", 30 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f benchFlags
			fs := flag.NewFlagSet("bench", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.BoolVar(&f.quick, "quick", false, "")
			fs.IntVar(&f.nodes, "nodes", 5000, "")
			fs.IntVar(&f.pods, "pods", 10000, "")
			fs.StringVar(&f.workloads, "workloads", "SchedulingBasic", "")
			fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			applyQuick(&f, fs)
			if f.nodes != quickNodes || f.pods != quickPods || f.arrivalFor != quickArrival {
				t.Errorf("sizes %d nodes, %d pods, %s arrival; want %d, %d, %s", f.nodes, f.pods, f.arrivalFor, quickNodes, quickPods, quickArrival)
			}
			if f.workloads != tc.wantWorkloads || f.timeout != tc.wantTimeout {
				t.Errorf("workloads %q, timeout %s; want %q, %s", f.workloads, f.timeout, tc.wantWorkloads, tc.wantTimeout)
			}
		})
	}
}

func TestPerScheduler(t *testing.T) {
	tests := []struct {
		path, scheduler, want string
	}{
		{"api.pprof", "null-binder", "api-null-binder.pprof"},
		{"/tmp/p/api.cpu.pprof", "berth", "/tmp/p/api.cpu-berth.pprof"},
		{"profile", "berth-no-events", "profile-berth-no-events"},
		{"", "berth-base", ""},
	}
	for _, tc := range tests {
		if got := perScheduler(tc.path, tc.scheduler); got != tc.want {
			t.Errorf("perScheduler(%q, %q) = %q, want %q", tc.path, tc.scheduler, got, tc.want)
		}
	}
}

func TestRoundOrder(t *testing.T) {
	schedulers := []string{"berth", "berth-base", "kube-scheduler"}
	tests := []struct {
		round int
		want  []string
	}{
		{round: 1, want: []string{"berth", "berth-base", "kube-scheduler"}},
		{round: 2, want: []string{"kube-scheduler", "berth-base", "berth"}},
		{round: 3, want: []string{"berth", "berth-base", "kube-scheduler"}},
	}
	for _, tt := range tests {
		if got := roundOrder(schedulers, tt.round); !slices.Equal(got, tt.want) {
			t.Errorf("roundOrder(round %d) = %v, want %v", tt.round, got, tt.want)
		}
	}
	if !slices.Equal(schedulers, []string{"berth", "berth-base", "kube-scheduler"}) {
		t.Errorf("roundOrder changed its argument: %v", schedulers)
	}
}
