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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const oldGang = `apiVersion: scheduling.berth.io/v1alpha1
kind: PodGroup
metadata:
  name: train
  namespace: ml
  uid: 6f1c2a3e-0000-4000-8000-000000000001
  resourceVersion: "9"
spec:
  minMember: 8
  scheduleTimeoutSeconds: 60
status:
  phase: Running
`

const rackGang = `apiVersion: scheduling.berth.io/v1alpha1
kind: PodGroup
metadata:
  name: ring
  namespace: ml
  labels:
    team: a
spec:
  schedulingPolicy:
    gang:
      minCount: 4
  schedulingConstraints:
    topology:
    - key: topology.example.com/rack
  disruptionMode:
    all: {}
  priorityClassName: training
`

const basicList = `apiVersion: scheduling.berth.io/v1alpha1
kind: PodGroupList
items:
- metadata:
    name: web
    namespace: ml
  spec:
    schedulingPolicy:
      basic: {}
`

func TestConvertPodGroups(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		target       PodGroupTarget
		want         string
		wantWarnings []string
		wantErr      string
	}{
		{
			name: "the deprecated minMember becomes a native gang", in: oldGang, target: ToNative,
			want: `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: train
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: 8
`,
			wantWarnings: []string{"scheduleTimeoutSeconds", "spec.schedulingGroup.podGroupName"},
		},
		{
			name: "topology, disruption mode and labels carry over; two documents", in: rackGang + "---\n" + basicList, target: ToNative,
			want: `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  labels:
    team: a
  name: ring
  namespace: ml
spec:
  disruptionMode:
    all: {}
  priorityClassName: training
  schedulingConstraints:
    topology:
    - key: topology.example.com/rack
  schedulingPolicy:
    gang:
      minCount: 4
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: web
  namespace: ml
spec:
  schedulingPolicy:
    basic: {}
`,
			wantWarnings: []string{"spec.schedulingGroup.podGroupName"},
		},
		{
			name: "Berth's PodGroup without its deprecated fields", in: oldGang, target: ToBerth,
			want: `apiVersion: scheduling.berth.io/v1alpha1
kind: PodGroup
metadata:
  name: train
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: 8
`,
			wantWarnings: []string{"scheduleTimeoutSeconds"},
		},
		{name: "an unknown field is refused", in: strings.Replace(rackGang, "disruptionMode", "disruptMode", 1), target: ToNative, wantErr: `unknown field "spec.disruptMode"`},
		{name: "another kind in the stream is refused", in: rackGang + "---\napiVersion: v1\nkind: Pod\n", target: ToNative, wantErr: "document 2 is v1 Pod"},
		{name: "an unknown target is refused", in: rackGang, target: "volcano", wantErr: `unknown target "volcano"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !IsBerthPodGroups([]byte(tt.in)) {
				t.Fatal("IsBerthPodGroups() = false")
			}
			res, err := ConvertPodGroups([]byte(tt.in), tt.target)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WritePodGroups(&buf, res.Objects); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if len(res.Warnings) != len(tt.wantWarnings) {
				t.Fatalf("warnings = %q, want ones about %q", res.Warnings, tt.wantWarnings)
			}
			for i, w := range tt.wantWarnings {
				if !strings.Contains(res.Warnings[i], w) {
					t.Errorf("warning %d = %q, want it to mention %q", i, res.Warnings[i], w)
				}
			}
		})
	}
}

func TestIsBerthPodGroups(t *testing.T) {
	for in, want := range map[string]bool{
		oldGang:   true,
		basicList: true,
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n": false,
		"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n":                        false,
		"not: [yaml": false,
	} {
		if got := IsBerthPodGroups([]byte(in)); got != want {
			t.Errorf("IsBerthPodGroups(%.40q) = %v, want %v", in, got, want)
		}
	}
}
