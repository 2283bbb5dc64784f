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
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
)

// explainNode returns a node with cpu cores allocatable.
func explainNode(name string, cpu int64) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110"),
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc}}
}

// explainPod returns a pod requesting milliCPU, bound to node unless it is "".
func explainPod(name string, milliCPU int64, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI)},
		}}}},
	}
}

// fakeClients serves a cluster of two nodes: busy (a filler bound) and idle,
// a pending pod web, and the default profile.
func fakeClients(*explainFlags) (*explainClients, error) {
	kube := kubefake.NewClientset(explainNode("busy", 4), explainNode("idle", 4), explainNode("tiny", 0),
		explainPod("filler", 3000, "busy"), explainPod("web", 500, ""))
	scheme := apiruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	profile := &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 2},
		Spec:       v1alpha1.SchedulingProfileSpec{SchedulerName: v1.DefaultSchedulerName},
	}
	berth := ctrlfake.NewClientBuilder().WithScheme(scheme).WithObjects(profile).Build()
	return &explainClients{kube: kube, berth: berth}, nil
}

const binPackingCandidate = `apiVersion: scheduling.berth.io/v1alpha1
kind: SchedulingProfile
metadata:
  name: default
spec:
  schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
`

func TestExplainCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{name: "live profile, table", args: []string{"pod", "ns/web"}, wantCode: 0, wantStdout: []string{
			"Pod ns/web (schedulerName default-scheduler) is pending.",
			"Profile default (generation 2, serves default-scheduler): 2 of 3 nodes feasible.",
			"Would pick: idle.",
			"tiny  rejected",
			"NodeResourcesFit: Insufficient cpu",
		}},
		{name: "flags after the pod, --nodes", args: []string{"pod", "web", "-n", "ns", "--nodes", "1"}, wantCode: 0,
			wantStdout: []string{"Would pick: idle.", "(2 more nodes not shown)"}},
		{name: "candidate on stdin compared with the live profile", args: []string{"pod", "ns/web", "--profile", "default", "-f", "-"}, stdin: binPackingCandidate, wantCode: 0,
			wantStdout: []string{
				"Profile default (candidate from -, serves default-scheduler): 2 of 3 nodes feasible.",
				"Diff default → default (-): the choice changes from idle to busy.",
				"NodeResourcesFit  ",
			}},
		{name: "an invalid candidate is refused with berth validate's errors", args: []string{"pod", "ns/web", "-f", "-"}, wantCode: 1,
			stdin:      "apiVersion: scheduling.berth.io/v1alpha1\nkind: SchedulingProfile\nmetadata: {name: x}\nspec:\n  plugins:\n    filter:\n      enabled: [{name: NoSuchPlugin}]\n",
			wantStderr: `spec.plugins.filter.enabled[0].name: Invalid value: unknown plugin "NoSuchPlugin"`},
		{name: "a candidate file without a profile", args: []string{"pod", "ns/web", "-f", "-"}, wantCode: 2,
			stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", wantStderr: "holds no SchedulingProfile"},
		{name: "no such pod", args: []string{"pod", "ns/none"}, wantCode: 1, wantStderr: "getting pod ns/none"},
		{name: "not a pod", args: []string{"node", "x"}, wantCode: 2, wantStderr: "Usage: berth explain pod"},
		{name: "no namespace", args: []string{"pod", "web"}, wantCode: 2, wantStderr: `no namespace for pod "web"`},
		{name: "bad output", args: []string{"pod", "ns/web", "-o", "xml"}, wantCode: 2, wantStderr: "-o must be table, json or yaml"},
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "It binds and writes nothing."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := stock(t).runExplain(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr, fakeClients)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			for _, want := range tc.wantStdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr.String())
			}
		})
	}
}

func TestExplainCommandJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := stock(t).runExplain(context.Background(), []string{"pod", "ns/web", "-o", "json"}, nil, &stdout, &stderr, fakeClients); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var r explain.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("decoding %s: %v", stdout.String(), err)
	}
	if len(r.Results) != 1 || len(r.Results[0].Chosen) != 1 || r.Results[0].Chosen[0] != "idle" {
		t.Errorf("results %+v, want idle chosen", r.Results)
	}
}

// TestExplainRunsAddedPlugins checks that berth explain of a binary with a
// plugin of its own evaluates a candidate profile that enables it.
func TestExplainRunsAddedPlugins(t *testing.T) {
	c, err := NewCommand(WithPlugin("NoArgs", newNoArgs))
	if err != nil {
		t.Fatal(err)
	}
	const candidate = "apiVersion: scheduling.berth.io/v1alpha1\nkind: SchedulingProfile\nmetadata: {name: default}\n" +
		"spec: {schedulerName: default-scheduler, plugins: {score: {enabled: [{name: NoArgs, weight: 2}]}}}\n"
	var stdout, stderr bytes.Buffer
	if code := c.runExplain(context.Background(), []string{"pod", "ns/web", "-f", "-"}, strings.NewReader(candidate), &stdout, &stderr, fakeClients); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "NoArgs") {
		t.Errorf("stdout does not show NoArgs:\n%s", stdout.String())
	}
}
