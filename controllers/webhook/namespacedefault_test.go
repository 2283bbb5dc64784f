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

package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// labelled returns a namespace's labels with the scheduler-name label set to value.
func labelled(value string) map[string]string {
	return map[string]string{v1alpha1.SchedulerNameLabel: value, "team": "a"}
}

// fieldsOf returns the parts of pod that the defaulter reads, as it decodes them.
func fieldsOf(t *testing.T, pod *corev1.Pod) podFields {
	t.Helper()
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	var f podFields
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name      string
		namespace string
		labels    map[string]string
		pod       *corev1.Pod
		want      string
		warning   string
	}{
		{name: "no scheduler named", namespace: "apps", labels: labelled("batch"), pod: st.Pod("p").Obj(), want: "batch"},
		{name: "default-scheduler named", namespace: "apps", labels: labelled("batch"),
			pod: st.Pod("p").SchedulerName("default-scheduler").Obj(), want: "batch"},
		{name: "another scheduler named", namespace: "apps", labels: labelled("batch"),
			pod: st.Pod("p").SchedulerName("gpu").Obj()},
		{name: "already the label's scheduler", namespace: "apps", labels: labelled("batch"),
			pod: st.Pod("p").SchedulerName("batch").Obj()},
		{name: "no label", namespace: "apps", labels: map[string]string{"team": "a"}, pod: st.Pod("p").Obj()},
		{name: "no labels at all", namespace: "apps", pod: st.Pod("p").Obj()},
		{name: "label names default-scheduler", namespace: "apps", labels: labelled("default-scheduler"), pod: st.Pod("p").Obj()},
		{name: "kube-system", namespace: "kube-system", labels: labelled("batch"), pod: st.Pod("p").Obj()},
		{name: "Berth's namespace", namespace: "berth", labels: labelled("batch"), pod: st.Pod("p").Obj()},
		{name: "pod already on a node", namespace: "apps", labels: labelled("batch"),
			pod: st.Pod("p").NodeName("n1").Obj()},
		{name: "empty label value", namespace: "apps", labels: labelled(""), pod: st.Pod("p").Obj(),
			warning: `namespace apps: label scheduling.berth.io/scheduler-name="" is not a schedulerName`},
		{name: "label value with capitals", namespace: "apps", labels: labelled("Batch_Queue"), pod: st.Pod("p").Obj(),
			warning: `label scheduling.berth.io/scheduler-name="Batch_Queue" is not a schedulerName (a lowercase RFC 1123 subdomain`},
		{name: "dotted label value", namespace: "apps", labels: labelled("batch.example.com"), pod: st.Pod("p").Obj(),
			want: "batch.example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.namespace, "berth", tc.labels, fieldsOf(t, tc.pod))
			if got.schedulerName != tc.want {
				t.Errorf("schedulerName = %q, want %q", got.schedulerName, tc.want)
			}
			checkWarning(t, got.warnings, tc.warning)
		})
	}
}

// checkWarning fails unless warnings is one warning containing want, or empty when want is.
func checkWarning(t *testing.T, warnings []string, want string) {
	t.Helper()
	if want == "" {
		if len(warnings) > 0 {
			t.Errorf("warnings = %q, want none", warnings)
		}
		return
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], want) {
		t.Errorf("warnings = %q, want one containing %q", warnings, want)
	}
}

// namespaces returns a NamespaceGetter over nss.
func namespaces(nss ...*corev1.Namespace) NamespaceGetter {
	return func(_ context.Context, name string) (*corev1.Namespace, error) {
		for _, ns := range nss {
			if ns.Name == name {
				return ns, nil
			}
		}
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	}
}

// namespace returns a namespace with labels.
func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// createRequest is the admission request for creating pod.
func createRequest(t *testing.T, pod *corev1.Pod) admission.Request {
	t.Helper()
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Namespace: pod.Namespace,
		Object:    runtime.RawExtension{Raw: raw},
	}}
}

func TestNamespaceDefaulterHandle(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	profiles := ctrlfake.NewClientBuilder().WithScheme(s).
		WithObjects(st.Profile("batch").Obj(), st.Profile("gpu-shadow").ShadowOf("gpu").Obj()).Build()
	nss := namespaces(namespace("apps", labelled("batch")), namespace("ml", labelled("gpu")), namespace("plain", nil))
	broken := func(context.Context, string) (*corev1.Namespace, error) { return nil, errors.New("connection refused") }
	setName := []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/schedulerName", Value: "batch"}}

	tests := []struct {
		name       string
		namespaces NamespaceGetter
		req        func(t *testing.T) admission.Request
		patches    []jsonpatch.JsonPatchOperation
		warning    string
	}{
		{
			name: "served schedulerName", namespaces: nss, patches: setName,
			req: func(t *testing.T) admission.Request { return createRequest(t, st.Pod("p").Namespace("apps").Obj()) },
		},
		{
			name: "no profile serves it (a shadow does not)", namespaces: nss,
			patches: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/schedulerName", Value: "gpu"}},
			warning: `no SchedulingProfile serves schedulerName "gpu" yet`,
			req:     func(t *testing.T) admission.Request { return createRequest(t, st.Pod("p").Namespace("ml").Obj()) },
		},
		{
			name: "unlabelled namespace", namespaces: nss,
			req: func(t *testing.T) admission.Request { return createRequest(t, st.Pod("p").Namespace("plain").Obj()) },
		},
		{
			name: "kube-system is not read", namespaces: broken,
			req: func(t *testing.T) admission.Request {
				return createRequest(t, st.Pod("p").Namespace("kube-system").Obj())
			},
		},
		{
			name: "namespace unreadable: fail open", namespaces: broken,
			warning: `Berth could not read namespace apps, so the pod keeps schedulerName "default-scheduler"`,
			req:     func(t *testing.T) admission.Request { return createRequest(t, st.Pod("p").Namespace("apps").Obj()) },
		},
		{
			name: "an update is not changed", namespaces: nss,
			req: func(t *testing.T) admission.Request {
				r := createRequest(t, st.Pod("p").Namespace("apps").Obj())
				r.Operation = admissionv1.Update
				return r
			},
		},
		{
			name: "a pod that does not decode is admitted", namespaces: nss,
			warning: "Berth could not decode the pod",
			req: func(t *testing.T) admission.Request {
				r := createRequest(t, st.Pod("p").Namespace("apps").Obj())
				r.Object.Raw = []byte(`{"spec":`)
				return r
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewNamespaceDefaulter(tc.namespaces, WithBerthNamespace("berth"), WithProfiles(profiles))
			resp := d.Handle(context.Background(), tc.req(t))
			if !resp.Allowed {
				t.Fatalf("not allowed: %v", resp.Result)
			}
			if !slices.Equal(resp.Patches, tc.patches) {
				t.Errorf("patches = %v, want %v", resp.Patches, tc.patches)
			}
			checkWarning(t, resp.Warnings, tc.warning)
		})
	}
}

func TestCachedNamespaces(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, ns := range []*corev1.Namespace{namespace("apps", labelled("batch")), namespace("stale", nil)} {
		if err := indexer.Add(ns); err != nil {
			t.Fatal(err)
		}
	}
	live := ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithObjects(namespace("apps", labelled("live")), namespace("stale", labelled("now")), namespace("new", labelled("fresh"))).Build()
	get := CachedNamespaces(corelisters.NewNamespaceLister(indexer), live)

	tests := []struct {
		name, namespace, want string
		wantErr               bool
	}{
		{name: "labelled in the cache", namespace: "apps", want: "batch"},
		{name: "labelled since the cache saw it", namespace: "stale", want: "now"},
		{name: "not in the cache yet", namespace: "new", want: "fresh"},
		{name: "nowhere", namespace: "gone", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns, err := get(context.Background(), tc.namespace)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %t", err, tc.wantErr)
			}
			if err == nil && ns.Labels[v1alpha1.SchedulerNameLabel] != tc.want {
				t.Errorf("label = %q, want %q", ns.Labels[v1alpha1.SchedulerNameLabel], tc.want)
			}
		})
	}
}

// BenchmarkNamespaceDefaulterHandle measures one admission of a pod in a
// labelled namespace: decoding, the namespace read and the decision. The
// profile lookup, a List from the manager's cache in `berth manager`, is
// left out: the fake client's List would measure the fake.
func BenchmarkNamespaceDefaulterHandle(b *testing.B) {
	d := NewNamespaceDefaulter(namespaces(namespace("apps", labelled("batch"))))
	raw, err := json.Marshal(st.Pod("p").Namespace("apps").Container("cpu", "1").Obj())
	if err != nil {
		b.Fatal(err)
	}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create, Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Namespace: "apps", Object: runtime.RawExtension{Raw: raw},
	}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if resp := d.Handle(ctx, req); len(resp.Patches) != 1 {
			b.Fatalf("patches = %v", resp.Patches)
		}
	}
}
