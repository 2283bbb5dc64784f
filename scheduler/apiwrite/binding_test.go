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

package apiwrite

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
)

func testBinding() *v1.Binding {
	return &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-123"},
		Target:     v1.ObjectReference{Kind: "Node", Name: "node-1"},
	}
}

// TestPostBindingOverHTTP binds through a real REST client against a server
// that records the request: the typed client's path, with a protobuf body
// whatever content type the client set was configured with.
func TestPostBindingOverHTTP(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		status      int
		wantErr     bool
	}{
		{name: "protobuf", contentType: runtime.ContentTypeProtobuf, status: http.StatusCreated},
		{name: "json client set", contentType: runtime.ContentTypeJSON, status: http.StatusCreated},
		{name: "conflict", contentType: runtime.ContentTypeJSON, status: http.StatusConflict, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var method, path, query, gotType string
			var body []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				method, path, query, gotType = r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type")
				body, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", runtime.ContentTypeJSON)
				w.WriteHeader(tt.status)
				status := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: int32(tt.status)}
				if tt.status != http.StatusCreated {
					status.Status, status.Reason, status.Message = metav1.StatusFailure, metav1.StatusReasonConflict, "uid mismatch"
				}
				raw, _ := runtime.Encode(scheme.Codecs.LegacyCodec(v1.SchemeGroupVersion), &status)
				_, _ = w.Write(raw)
			}))
			defer srv.Close()
			client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: tt.contentType}})
			if err != nil {
				t.Fatal(err)
			}
			b := NewBindingPoster(client)
			if b.poster == nil {
				t.Fatal("a real client set's REST client was not used")
			}
			err = b.PostBinding(context.Background(), testBinding())
			if (err != nil) != tt.wantErr {
				t.Fatalf("PostBinding = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr && !apierrors.IsConflict(err) {
				t.Errorf("error %v is not the API conflict", err)
			}
			if method != http.MethodPost || path != "/api/v1/namespaces/ns/pods/p/binding" || query != "" {
				t.Errorf("request = %s %s?%s, want POST /api/v1/namespaces/ns/pods/p/binding with no query", method, path, query)
			}
			if gotType != runtime.ContentTypeProtobuf {
				t.Errorf("content type = %q, want protobuf", gotType)
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
			if err != nil {
				t.Fatalf("decoding the posted body: %v", err)
			}
			got, ok := obj.(*v1.Binding)
			if !ok {
				t.Fatalf("posted a %T, want a Binding", obj)
			}
			if got.Namespace != "ns" || got.Name != "p" || got.UID != "uid-123" || got.Target.Kind != "Node" || got.Target.Name != "node-1" {
				t.Errorf("posted binding = %s/%s uid %s target %+v", got.Namespace, got.Name, got.UID, got.Target)
			}
		})
	}
}

// TestPostBindingTypedClient binds through a fake client set, which has no
// REST client to post on: the typed client's Bind.
func TestPostBindingTypedClient(t *testing.T) {
	client := fake.NewClientset()
	var got *v1.Binding
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		got = a.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		return true, got, nil
	})
	if err := NewBindingPoster(client).PostBinding(context.Background(), testBinding()); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Name != "p" || got.UID != "uid-123" || got.Target.Name != "node-1" {
		t.Errorf("posted binding = %+v", got)
	}
}

// BenchmarkPostBinding measures the client side of one bind against a
// local server: the typed client's Bind against the plain POST.
func BenchmarkPostBinding(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", runtime.ContentTypeJSON)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success","code":201}`))
	}))
	defer srv.Close()
	// No client-side rate limit: the manager's default.
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1, ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf}})
	if err != nil {
		b.Fatal(err)
	}
	binding := testBinding()
	for _, typed := range []bool{true, false} {
		name := "apipost"
		if typed {
			name = "typed-client"
		}
		b.Run(name, func(b *testing.B) {
			poster := NewBindingPoster(client)
			if typed {
				poster.poster = nil
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := poster.PostBinding(context.Background(), binding); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
