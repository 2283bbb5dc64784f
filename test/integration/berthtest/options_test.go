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

package berthtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// unknownPluginProfile enables a score plugin that no registry knows.
func unknownPluginProfile(name string) *v1alpha1.SchedulingProfile {
	return &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NodeResourcesFitt"}}},
		}},
	}
}

// TestOptions starts one environment with every option and checks what each adds.
func TestOptions(t *testing.T) {
	ctx := t.Context()
	crdDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(crdDir, "widgets.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	env, err := berthtest.Start(ctx, berthtest.WithWebhook(), berthtest.WithCRDDirectory(crdDir), berthtest.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})

	t.Run("the webhook rejects an unknown plugin", func(t *testing.T) {
		err := env.Client.Create(ctx, unknownPluginProfile("typo"))
		if !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) {
			t.Fatalf("creating a profile with an unknown plugin: %v, want the webhook to reject it", err)
		}
		if !strings.Contains(err.Error(), "NodeResourcesFitt") {
			t.Errorf("the rejection %q does not name the plugin", err)
		}
	})

	t.Run("the namespace default gives a labelled namespace's pods its schedulerName", func(t *testing.T) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "batch-",
			Labels: map[string]string{v1alpha1.SchedulerNameLabel: "batch"}}}
		if err := env.Client.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
		for _, pod := range []*corev1.Pod{
			berthtest.NewPod(ns.Name, "unnamed").SchedulerName("").Obj(),
			berthtest.NewPod(ns.Name, "other").SchedulerName("gpu").Obj(),
		} {
			want := map[string]string{"unnamed": "batch", "other": "gpu"}[pod.Name]
			if err := env.Client.Create(ctx, pod); err != nil {
				t.Fatal(err)
			}
			if pod.Spec.SchedulerName != want {
				t.Errorf("pod %s was stored with schedulerName %q, want %q", pod.Name, pod.Spec.SchedulerName, want)
			}
		}
	})

	t.Run("the CRDs of WithCRDDirectory are installed", func(t *testing.T) {
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
		w.SetName("w1")
		w.SetNamespace("default")
		if err := env.Client.Create(ctx, w); err != nil {
			t.Fatalf("creating a Widget: %v", err)
		}
	})
}

// TestStalledProfileIsReported checks that, with the webhook off, waiting for
// an invalid profile fails at once with the controller's reason.
func TestStalledProfileIsReported(t *testing.T) {
	ctx := t.Context()
	env, err := berthtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	if err := env.Client.Create(ctx, unknownPluginProfile("typo")); err != nil {
		t.Fatal(err)
	}
	_, err = env.WaitForProfileReady(ctx, "typo")
	if err == nil || !strings.Contains(err.Error(), "stalled") || !strings.Contains(err.Error(), "NodeResourcesFitt") {
		t.Fatalf("WaitForProfileReady = %v, want it to report the stalled profile and the unknown plugin", err)
	}
}

// widgetCRD is a user's own CRD, installed with WithCRDDirectory.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`
