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

// Package argocd_test runs the Argo CD health checks of Berth's CRDs against
// their test cases, the way Argo CD runs resource customizations.
package argocd_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/config/argocd"
)

// update rewrites argocd-cm.yaml from the health.lua files.
var update = flag.Bool("update", false, "rewrite argocd-cm.yaml from the health.lua scripts")

// kinds are the CRD kinds that ship a health check, one folder each.
var kinds = []string{"PluginWeight", "PodGroup", "RebalancePolicy", "SchedulingProfile"}

const group = "scheduling.berth.io"

// healthTests is the layout of Argo CD's health_test.yaml.
type healthTests struct {
	Tests []struct {
		HealthStatus struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"healthStatus"`
		InputPath string `json:"inputPath"`
	} `json:"tests"`
}

func TestHealthChecks(t *testing.T) {
	for _, kind := range kinds {
		script := readFile(t, filepath.Join(kind, "health.lua"))
		var cases healthTests
		if err := yaml.UnmarshalStrict(readFile(t, filepath.Join(kind, "health_test.yaml")), &cases); err != nil {
			t.Fatalf("%s/health_test.yaml: %v", kind, err)
		}
		if len(cases.Tests) == 0 {
			t.Fatalf("%s/health_test.yaml lists no tests", kind)
		}
		listed := map[string]bool{}
		for _, tc := range cases.Tests {
			listed[filepath.Clean(tc.InputPath)] = true
			t.Run(kind+"/"+filepath.Base(tc.InputPath), func(t *testing.T) {
				obj := readObject(t, filepath.Join(kind, tc.InputPath))
				if got := obj["kind"]; got != kind {
					t.Fatalf("input is a %v, want a %s", got, kind)
				}
				status, message, err := runHealth(string(script), obj)
				if err != nil {
					t.Fatal(err)
				}
				if status != tc.HealthStatus.Status || message != tc.HealthStatus.Message {
					t.Errorf("health = %s %q, want %s %q", status, message, tc.HealthStatus.Status, tc.HealthStatus.Message)
				}
			})
		}
		// Every input file must be exercised by a listed case.
		inputs, err := filepath.Glob(filepath.Join(kind, "testdata", "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			rel, _ := filepath.Rel(kind, in)
			if !listed[rel] {
				t.Errorf("%s is not listed in %s/health_test.yaml", in, kind)
			}
		}
	}
}

// TestHealthStatusesAreArgoCDs checks that the scripts only return statuses Argo CD knows.
func TestHealthStatusesAreArgoCDs(t *testing.T) {
	known := map[string]bool{"Healthy": true, "Progressing": true, "Degraded": true, "Suspended": true, "Missing": true, "Unknown": true}
	for _, kind := range kinds {
		var cases healthTests
		if err := yaml.Unmarshal(readFile(t, filepath.Join(kind, "health_test.yaml")), &cases); err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases.Tests {
			if !known[tc.HealthStatus.Status] {
				t.Errorf("%s %s: %q is not an Argo CD health status", kind, tc.InputPath, tc.HealthStatus.Status)
			}
		}
	}
}

// TestArgoCDConfigMap checks that argocd-cm.yaml carries every health.lua unchanged.
func TestArgoCDConfigMap(t *testing.T) {
	want := configMap(t)
	if *update {
		if err := os.WriteFile("argocd-cm.yaml", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, "argocd-cm.yaml"); string(got) != string(want) {
		t.Errorf("argocd-cm.yaml is stale; run `go test ./config/argocd -run TestArgoCDConfigMap -update`")
	}
}

// configMap renders the argocd-cm patch that installs every health check.
func configMap(t *testing.T) []byte {
	t.Helper()
	data := map[string]string{}
	for _, kind := range kinds {
		data[healthKey(kind)] = string(readFile(t, filepath.Join(kind, "health.lua")))
	}
	cm := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      "argocd-cm",
			"namespace": "argocd",
			"labels":    map[string]string{"app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"},
		},
		"data": data,
	}
	out, err := yaml.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	header := "# Generated from config/argocd/*/health.lua by\n# `go test ./config/argocd -run TestArgoCDConfigMap -update`; do not edit.\n"
	return append([]byte(header), out...)
}

// healthKey is the argocd-cm key of a kind's health check.
func healthKey(kind string) string {
	return fmt.Sprintf("resource.customizations.health.%s_%s", group, kind)
}

// TestKustomizeComponentListsEveryKind checks that the kustomize component
// installs every kind's script under its argocd-cm key.
func TestKustomizeComponentListsEveryKind(t *testing.T) {
	var k struct {
		Kind               string `json:"kind"`
		ConfigMapGenerator []struct {
			Name     string   `json:"name"`
			Behavior string   `json:"behavior"`
			Files    []string `json:"files"`
		} `json:"configMapGenerator"`
	}
	if err := yaml.Unmarshal(readFile(t, "kustomization.yaml"), &k); err != nil {
		t.Fatal(err)
	}
	if k.Kind != "Component" || len(k.ConfigMapGenerator) != 1 || k.ConfigMapGenerator[0].Name != "argocd-cm" || k.ConfigMapGenerator[0].Behavior != "merge" {
		t.Fatalf("kustomization.yaml must be a Component merging into argocd-cm, got %+v", k)
	}
	var want, got []string
	for _, kind := range kinds {
		want = append(want, healthKey(kind)+"="+kind+"/health.lua")
	}
	got = append(got, k.ConfigMapGenerator[0].Files...)
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("configMapGenerator files = %v, want %v", got, want)
	}
}

// runHealth runs a health script as Argo CD does (argocd.RunHealth).
func runHealth(script string, obj map[string]any) (status, message string, err error) {
	return argocd.RunHealth(script, obj)
}

// readObject reads a YAML manifest as decoded JSON.
func readObject(t *testing.T, path string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON(readFile(t, path))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
