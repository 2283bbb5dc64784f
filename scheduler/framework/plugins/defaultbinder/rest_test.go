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

package defaultbinder

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestBindOverHTTP binds through a real REST client against a server that
// records the request: the typed client's path, with a protobuf body
// whatever content type the client set was configured with.
func TestBindOverHTTP(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		status      int
		want        framework.Code
	}{
		{name: "protobuf", contentType: runtime.ContentTypeProtobuf, status: http.StatusCreated, want: framework.Success},
		{name: "json client set", contentType: runtime.ContentTypeJSON, status: http.StatusCreated, want: framework.Success},
		{name: "conflict", contentType: runtime.ContentTypeJSON, status: http.StatusConflict, want: framework.Error},
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
			b := NewBinder(client)
			if b.poster == nil {
				t.Fatal("a real client set's REST client was not used")
			}
			pod := st.Pod("p").Namespace("ns").UID("uid-123").Obj()

			status := b.Bind(context.Background(), framework.NewCycleState(), pod, "node-1")
			if status.Code() != tt.want {
				t.Fatalf("Bind = %v, want %v", status, tt.want)
			}
			if tt.want != framework.Success && !apierrors.IsConflict(errors.Unwrap(status.AsError())) {
				t.Errorf("error %v does not wrap the API conflict", status.AsError())
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

// BenchmarkBind measures the client side of one bind against a local
// server: the typed client's Bind against the plain POST.
func BenchmarkBind(b *testing.B) {
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
	pod := st.Pod("p").Namespace("ns").UID("uid-123").Obj()
	for _, typed := range []bool{true, false} {
		name := "apipost"
		if typed {
			name = "typed-client"
		}
		b.Run(name, func(b *testing.B) {
			binder := NewBinder(client)
			if typed {
				binder.poster = nil
			}
			b.ReportAllocs()
			for b.Loop() {
				if status := binder.Bind(context.Background(), nil, pod, "node-1"); !status.IsSuccess() {
					b.Fatal(status)
				}
			}
		})
	}
}
