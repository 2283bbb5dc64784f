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
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/manifest"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/internal/validate"
)

// TestWebhookAgreesWithValidate feeds every object of berth validate's
// corpus to the webhook's HTTP handlers, as AdmissionReviews, and to the
// Checker, and requires the same verdict and the same errors (field and
// message) from both. Each object is sent twice: as written in its file,
// and as the apiserver would send it (pruned and defaulted by the CRD).
// Objects the CRD schema rejects never reach the webhook and are skipped.
func TestWebhookAgreesWithValidate(t *testing.T) {
	scheme := apiruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	registry := testRegistry()
	v := NewValidator(registry)
	handlers := map[string]http.Handler{
		"SchedulingProfile": admission.WithValidator(scheme, profileAdmission{v}),
		"PluginWeight":      admission.WithValidator(scheme, weightAdmission{v}),
	}
	reg := registries.InTree()
	reg.Plugins = registry
	checker, err := validate.NewChecker(reg)
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join("..", "..", "internal", "validate", "testdata")
	set, err := manifest.NewReader().Read([]string{filepath.Join(corpus, "good"), filepath.Join(corpus, "bad")})
	if err != nil {
		t.Fatal(err)
	}
	compared, rejected := 0, 0
	for _, d := range set.Documents {
		for _, obj := range d.Objects {
			h, ok := handlers[obj.GetKind()]
			if !ok || obj.GetAPIVersion() != v1alpha1.GroupVersion.String() {
				continue
			}
			written := obj.DeepCopy()
			// Each object alone: the webhook sees one object at a time.
			in := []validate.Input{{Origin: validate.Origin{File: d.File, Document: d.Index}, Object: obj}}
			report := checker.Check(t.Context(), in)
			if slices.ContainsFunc(report.Findings, func(f validate.Finding) bool { return f.Stage == validate.StageSchema }) {
				continue
			}
			var want []cause
			for _, f := range report.Findings {
				if f.Stage == validate.StageWebhook {
					want = append(want, cause{f.Field, f.Message})
				}
			}
			for variant, sent := range map[string]*unstructured.Unstructured{"as written": written, "as the apiserver sends it": obj} {
				got := review(t, h, sent)
				if !slices.Equal(got, want) {
					t.Errorf("%s, %s %s %s: the webhook says %v, berth validate %v", d.File, obj.GetKind(), obj.GetName(), variant, got, want)
				}
			}
			compared++
			if len(want) > 0 {
				rejected++
			}
		}
	}
	if compared < 10 || rejected < 8 {
		t.Errorf("compared %d objects, %d rejected: the corpus lost its webhook cases", compared, rejected)
	}
}

// cause is one error of an admission response: its field and message.
type cause struct{ field, message string }

// review sends obj to h as the apiserver does on create and returns the
// causes of a denial; nil means allowed.
func review(t *testing.T, h http.Handler, obj *unstructured.Unstructured) []cause {
	t.Helper()
	raw, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	gvk := obj.GroupVersionKind()
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("review-" + obj.GetName()),
			Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
			Name:      obj.GetName(),
			Operation: admissionv1.Create,
			Object:    apiruntime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/validate", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var resp admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Response == nil {
		t.Fatalf("webhook answered %d %q: %v", rec.Code, rec.Body.String(), err)
	}
	if resp.Response.Allowed {
		return nil
	}
	result := resp.Response.Result
	if result == nil || result.Details == nil || len(result.Details.Causes) == 0 {
		t.Fatalf("denied without causes: %+v", result)
	}
	out := make([]cause, 0, len(result.Details.Causes))
	for _, c := range result.Details.Causes {
		out = append(out, cause{c.Field, c.Message})
	}
	return out
}
