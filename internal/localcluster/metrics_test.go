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

package localcluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestKubeletResourceMetrics(t *testing.T) {
	objs, err := DecodeManifests(strings.NewReader(kubeletResourceMetrics))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].GetKind() != "Metric" {
		t.Fatalf("want one Metric, got %d objects", len(objs))
	}
	path, _, _ := unstructured.NestedString(objs[0].Object, "spec", "path")
	if got, want := strings.ReplaceAll(path, "{nodeName}", "kwok-node-3"), ResourceMetricsPath("kwok-node-3"); got != want {
		t.Errorf("kwok serves the node's metrics at %q, the node's annotation says %q", got, want)
	}
	metrics, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "metrics")
	var names []string
	for _, m := range metrics {
		m := m.(map[string]any)
		names = append(names, m["name"].(string))
		if m["dimension"] == "container" {
			// The YAML anchor must have been expanded for each metric.
			if labels, ok := m["labels"].([]any); !ok || len(labels) != 3 {
				t.Errorf("%s has labels %v, want container, namespace and pod", m["name"], m["labels"])
			}
		}
	}
	// What metrics-server reads from a kubelet's /metrics/resource.
	for _, want := range []string{
		"node_cpu_usage_seconds_total", "node_memory_working_set_bytes", "container_cpu_usage_seconds_total",
		"container_memory_working_set_bytes", "container_start_time_seconds",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("the Metric lacks %s (has %v)", want, names)
		}
	}
}

func TestReadKwokUsage(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: resourceusages.kwok.x-k8s.io}
spec:
  group: kwok.x-k8s.io
  names: {kind: ResourceUsage, plural: resourceusages}
  scope: Namespaced
  versions: [{name: v1alpha1, served: true, storage: true}]
`
	usage := `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata: {name: usage-from-annotation}
spec: {usages: [{usage: {cpu: {value: 1m}}}]}
`
	tests := []struct {
		name        string
		content     string
		crds, other int
		wantErr     string
	}{
		{name: "CRDs and objects", content: crd + "---\n" + usage, crds: 1, other: 1},
		{name: "no CRD", content: usage, wantErr: "holds no CRD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "kwok-usage.yaml")
			if err := os.WriteFile(file, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readKwokUsage(file)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.crds) != tt.crds || len(got.objects) != tt.other {
				t.Errorf("%d CRDs and %d objects, want %d and %d", len(got.crds), len(got.objects), tt.crds, tt.other)
			}
			if got.crds[0].Spec.Names.Plural != "resourceusages" {
				t.Errorf("CRD plural %q", got.crds[0].Spec.Names.Plural)
			}
		})
	}
}
