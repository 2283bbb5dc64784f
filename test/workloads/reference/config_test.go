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

package reference

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/test/workloads"
)

func TestSchedulerConfig(t *testing.T) {
	base := map[string]any{
		"apiVersion":       "kubescheduler.config.k8s.io/v1",
		"kind":             "KubeSchedulerConfiguration",
		"clientConnection": map[string]any{"kubeconfig": "/tmp/kubeconfig"},
		"leaderElection":   map[string]any{"leaderElect": false},
	}
	withProfiles := func(profiles ...any) map[string]any {
		out := map[string]any{"profiles": profiles}
		for k, v := range base {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name    string
		profile workloads.Profile
		want    map[string]any
	}{
		{name: "the default profile", want: base},
		{
			name:    "the signing profile",
			profile: workloads.SigningProfile(),
			want: withProfiles(map[string]any{
				"schedulerName": "default-scheduler",
				"pluginConfig": []any{map[string]any{
					"name": "PodTopologySpread",
					"args": map[string]any{"defaultingType": "List"},
				}},
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := schedulerConfig("/tmp/kubeconfig", tt.profile)
			if err != nil {
				t.Fatalf("schedulerConfig: %v", err)
			}
			var got map[string]any
			if err := yaml.Unmarshal(out, &got); err != nil {
				t.Fatalf("the configuration is no YAML: %v\n%s", err, out)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("configuration (-want +got):\n%s", diff)
			}
		})
	}
}
