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
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

func TestContainerArgv(t *testing.T) {
	image := PodImage{Entrypoint: []string{"/berth", "manager"}, Cmd: []string{"--default"}}
	tests := []struct {
		name          string
		command, args []string
		image         PodImage
		want          []string
		wantErr       string
	}{
		{name: "image defaults", image: image, want: []string{"/berth", "manager", "--default"}},
		{name: "args replace CMD", args: []string{"--leader-elect"}, image: image, want: []string{"/berth", "manager", "--leader-elect"}},
		{name: "args repeating the subcommand", args: []string{"manager", "--x"}, image: image, want: []string{"/berth", "manager", "manager", "--x"}},
		{name: "command replaces ENTRYPOINT and CMD", command: []string{"/other"}, image: image, want: []string{"/other"}},
		{name: "command and args", command: []string{"/other"}, args: []string{"a"}, image: image, want: []string{"/other", "a"}},
		{name: "nothing to run", image: PodImage{}, wantErr: "no command"},
		{name: "relative command", command: []string{"berth"}, image: image, wantErr: "not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := containerArgv(&corev1.Container{Command: tt.command, Args: tt.args}, tt.image)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("argv = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPodCredentials(t *testing.T) {
	tests := []struct {
		name      string
		image     string
		pod       *corev1.PodSecurityContext
		container *corev1.SecurityContext
		uid, gid  uint32
		groups    []uint32
		wantErr   bool
	}{
		{name: "image user", image: "65532:65532", uid: 65532, gid: 65532},
		{name: "pod overrides image", image: "1000", pod: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](42), FSGroup: ptr.To[int64](7)}, uid: 42, groups: []uint32{7}},
		{name: "container overrides pod", pod: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](42)}, container: &corev1.SecurityContext{RunAsUser: ptr.To[int64](43), RunAsGroup: ptr.To[int64](44)}, uid: 43, gid: 44},
		{name: "runAsNonRoot refuses root", pod: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}, wantErr: true},
		{name: "runAsNonRoot with a non-root image", image: "65532", pod: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}, uid: 65532},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: tt.pod}}
			uid, gid, groups, err := podCredentials(pod, &corev1.Container{SecurityContext: tt.container}, PodImage{User: tt.image})
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil || uid != tt.uid || gid != tt.gid || !slices.Equal(groups, tt.groups) {
				t.Fatalf("got %d:%d %v %v, want %d:%d %v", uid, gid, groups, err, tt.uid, tt.gid, tt.groups)
			}
		})
	}
}

func TestExpandRefs(t *testing.T) {
	env := []string{"NS=berth-system", "EMPTY="}
	tests := []struct{ in, want string }{
		{"--ns=$(NS)", "--ns=berth-system"},
		{"$(NS)/$(NS)", "berth-system/berth-system"},
		{"$$(NS)", "$(NS)"},
		{"$(MISSING)", "$(MISSING)"},
		{"x$(EMPTY)y", "xy"},
		{"$(", "$("},
	}
	for _, tt := range tests {
		if got := expandRefs([]string{tt.in}, env)[0]; got != tt.want {
			t.Errorf("expandRefs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestImageRepository(t *testing.T) {
	tests := map[string]string{
		"ghcr.io/berth-io/berth:v0.1.0":        "ghcr.io/berth-io/berth",
		"ghcr.io/berth-io/berth":               "ghcr.io/berth-io/berth",
		"localhost:5000/berth:dev":             "localhost:5000/berth",
		"localhost:5000/berth":                 "localhost:5000/berth",
		"ghcr.io/berth-io/berth@sha256:abcdef": "ghcr.io/berth-io/berth",
	}
	for in, want := range tests {
		if got := imageRepository(in); got != want {
			t.Errorf("imageRepository(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDownwardAPI(t *testing.T) {
	pod := &corev1.Pod{}
	pod.Name, pod.Namespace, pod.Labels = "m-1", "berth-system", map[string]string{"app": "berth"}
	for field, want := range map[string]string{
		"metadata.name": "m-1", "metadata.namespace": "berth-system", "spec.serviceAccountName": "default",
		"metadata.labels['app']": "berth", "status.podIP": "127.0.0.1",
	} {
		if got, err := podField(pod, field); err != nil || got != want {
			t.Errorf("podField(%s) = %q, %v; want %q", field, got, err, want)
		}
	}
	if _, err := podField(pod, "spec.bogus"); err == nil {
		t.Error("podField(spec.bogus) must fail")
	}

	c := &corev1.Container{Resources: corev1.ResourceRequirements{
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")},
	}}
	for _, tt := range []struct {
		ref  corev1.ResourceFieldSelector
		want string
	}{
		{corev1.ResourceFieldSelector{Resource: "limits.memory"}, "1073741824"},
		{corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}, "1024"},
		{corev1.ResourceFieldSelector{Resource: "requests.cpu"}, "1"},
		{corev1.ResourceFieldSelector{Resource: "requests.cpu", Divisor: resource.MustParse("1m")}, "200"},
	} {
		if got, err := resourceField(c, &tt.ref); err != nil || got != tt.want {
			t.Errorf("resourceField(%s / %s) = %q, %v; want %q", tt.ref.Resource, tt.ref.Divisor.String(), got, err, tt.want)
		}
	}
}
